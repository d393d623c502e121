//! Asking the client for input: one flow behind `ctx.elicit`, `ctx.sample`,
//! `ctx.roots` and `ctx.ask`, for one question or several at once.
//!
//! A round is a list of [`Ask`]s, each under a key of the tool's. In a
//! legacy session every question is a real request to the client, all sent
//! at once and awaited together (at most the server's elicitation timeout;
//! the first failure withdraws the others). In the 2026-07-28 era servers may
//! not send requests: the call ends with one `input_required` result that
//! carries every question the retry has no answer for yet, and the tool runs
//! again from the start once the client sends them all. A peer that answers
//! in-process (the in-process door, a task's record) is asked directly.
//!
//! The answers are checked before the tool sees them: each must parse as the
//! result of its method (`ElicitResult`, `CreateMessageResult`,
//! `ListRootsResult`, at most [`MAX_ROOTS`] roots; in `answers`).

use crate::conn::peer::{Asked, Peer};
use crate::context::Context;
use crate::context::elicit::{ElicitRequest, Elicitation, Interrupt, Question};
use crate::context::sample::{SampleRequest, SampleResult};
use crate::outcome::ToolError;
use crate::protocol::ProtocolVersion;
use crate::protocol::model::Root;
use crate::util::lock;
use serde_json::Value;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

mod answers;
use answers::{failed, read, roots, timed_out, undeclared};

/// The most roots a client's `roots/list` answer may carry: a hostile
/// client's list of millions is refused, not handed to the tool.
pub const MAX_ROOTS: usize = 1_000;

/// One question for the client and the type its answer reads as: a form
/// ([`Ask::elicit`]), a model's message ([`Ask::sample`]) or the client's
/// roots ([`Ask::roots`]). Give several to [`Context::ask`] as a tuple to
/// ask them in one round.
///
/// `key` names the question within the tool: stable across runs (in the
/// 2026-07-28 era the tool runs again once the answers are in) and distinct
/// within a round.
#[derive(Clone, Debug)]
#[must_use = "an Ask does nothing until given to Context::ask"]
pub struct Ask<T> {
    pending: Pending,
    answer: PhantomData<fn() -> T>,
}

impl Ask<Elicitation> {
    /// A form for the user (`elicitation/create`).
    pub fn elicit(key: impl Into<String>, request: ElicitRequest) -> Ask<Elicitation> {
        Ask::new(key, Question::Elicit(request))
    }
}

impl Ask<SampleResult> {
    /// A message from the client's model (`sampling/createMessage`).
    pub fn sample(key: impl Into<String>, request: SampleRequest) -> Ask<SampleResult> {
        Ask::new(key, Question::Sample(Box::new(request)))
    }
}

impl Ask<Vec<Root>> {
    /// The client's roots (`roots/list`): the directories or files it lets
    /// the server work in.
    pub fn roots(key: impl Into<String>) -> Ask<Vec<Root>> {
        Ask::new(key, Question::Roots)
    }
}

impl<T> Ask<T> {
    fn new(key: impl Into<String>, question: Question) -> Ask<T> {
        Ask {
            pending: Pending {
                key: key.into(),
                question,
            },
            answer: PhantomData,
        }
    }

    /// The key the question is asked under.
    pub fn key(&self) -> &str {
        &self.pending.key
    }
}

/// A question of a round, its answer's type erased.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct Pending {
    key: String,
    question: Question,
}

/// The answer to one [`Pending`] question, before its [`Ask`] reads it.
#[doc(hidden)]
#[derive(Debug)]
pub struct Answer(Answered);

#[derive(Debug)]
enum Answered {
    Elicit(Elicitation),
    Sample(SampleResult),
    Roots(Vec<Root>),
}

/// What an [`Ask`]'s answer reads as: implemented for [`Elicitation`],
/// [`SampleResult`] and `Vec<Root>`, the answers of the three questions.
pub trait FromAnswer: Sized + sealed::Sealed {
    #[doc(hidden)]
    fn from_answer(answer: Answer) -> Option<Self>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Elicitation {}
    impl Sealed for super::SampleResult {}
    impl Sealed for Vec<super::Root> {}
}

impl FromAnswer for Elicitation {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer.0 {
            Answered::Elicit(answer) => Some(answer),
            _ => None,
        }
    }
}

impl FromAnswer for SampleResult {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer.0 {
            Answered::Sample(answer) => Some(answer),
            _ => None,
        }
    }
}

impl FromAnswer for Vec<Root> {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer.0 {
            Answered::Roots(roots) => Some(roots),
            _ => None,
        }
    }
}

/// The questions of one round for [`Context::ask`]: an [`Ask`], or a tuple
/// of them (up to six), answered as the matching tuple.
pub trait Asks {
    /// The answers, in the shape of the questions.
    type Output;
    /// Appends the questions, in order.
    #[doc(hidden)]
    fn push(self, into: &mut Vec<Pending>);
    /// Reads the answers of [`Asks::push`]'s questions, in order.
    #[doc(hidden)]
    fn take(answers: &mut dyn Iterator<Item = Answer>) -> Option<Self::Output>;
}

impl<T: FromAnswer> Asks for Ask<T> {
    type Output = T;

    fn push(self, into: &mut Vec<Pending>) {
        into.push(self.pending);
    }

    fn take(answers: &mut dyn Iterator<Item = Answer>) -> Option<T> {
        T::from_answer(answers.next()?)
    }
}

macro_rules! tuple_asks {
    ($($name:ident),+) => {
        impl<$($name: Asks),+> Asks for ($($name,)+) {
            type Output = ($($name::Output,)+);

            #[allow(non_snake_case)]
            fn push(self, into: &mut Vec<Pending>) {
                let ($($name,)+) = self;
                $($name.push(into);)+
            }

            fn take(answers: &mut dyn Iterator<Item = Answer>) -> Option<Self::Output> {
                Some(($($name::take(answers)?,)+))
            }
        }
    };
}

tuple_asks!(A);
tuple_asks!(A, B);
tuple_asks!(A, B, C);
tuple_asks!(A, B, C, D);
tuple_asks!(A, B, C, D, E);
tuple_asks!(A, B, C, D, E, F);

/// `ctx.ask(asks)`: every question of the round asked at once, the answers
/// read in the questions' shape.
pub(crate) async fn ask<A: Asks>(ctx: &Context, asks: A) -> Result<A::Output, ToolError> {
    let mut round = Vec::new();
    asks.push(&mut round);
    for (i, pending) in round.iter().enumerate() {
        if round[..i].iter().any(|earlier| earlier.key == pending.key) {
            return Err(ToolError::new(format!(
                "two questions of one round share the key `{}`; give each its own",
                pending.key
            )));
        }
    }
    let answers = ask_round(ctx, round).await?;
    A::take(&mut answers.into_iter())
        .ok_or_else(|| ToolError::new("the answers do not match the questions asked"))
}

/// The answers to `round`, in order, from whichever peer the call has.
async fn ask_round(ctx: &Context, round: Vec<Pending>) -> Result<Vec<Answer>, ToolError> {
    let version = ctx.protocol_version();
    let mut asked = Vec::with_capacity(round.len());
    for pending in &round {
        match ask_peer(ctx.peer(), &pending.question, version) {
            // The wire: every question of the round goes the same way.
            PeerAsked::OnTheWire => return ask_client(ctx, round).await,
            PeerAsked::Unable => return Err(undeclared(&[pending.question.capability()])),
            PeerAsked::Answer(answer) => asked.push(answer),
        }
    }
    within(ctx.elicitation_timeout(), &round, try_join_all(asked)).await
}

/// How a peer takes one question of a round ([`Asked`], the answer typed).
enum PeerAsked {
    Answer(Waiting<'static, Answer>),
    Unable,
    OnTheWire,
}

/// Asks a peer that may answer in-process, the answer typed.
fn ask_peer(peer: &dyn Peer, question: &Question, version: ProtocolVersion) -> PeerAsked {
    fn typed<T: Send + 'static>(
        asked: Asked<T>,
        noun: &'static str,
        into: fn(T) -> Result<Answered, ToolError>,
    ) -> PeerAsked {
        match asked {
            Asked::Answer(answer) => PeerAsked::Answer(Box::pin(async move {
                match answer.await {
                    Ok(answer) => into(answer).map(Answer),
                    Err(error) => Err(failed(noun, &error.message)),
                }
            })),
            Asked::Unable => PeerAsked::Unable,
            Asked::OnTheWire => PeerAsked::OnTheWire,
        }
    }
    let noun = question.noun();
    match question {
        Question::Elicit(request) => typed(peer.elicit(request.model(version)), noun, |a| {
            Ok(Answered::Elicit(a))
        }),
        Question::Sample(request) => typed(peer.sample(request.params().clone()), noun, |a| {
            Ok(Answered::Sample(a))
        }),
        Question::Roots => typed(peer.roots(), noun, |a| roots(a.roots)),
    }
}

/// The client's answers to `round`, in either era.
async fn ask_client(ctx: &Context, round: Vec<Pending>) -> Result<Vec<Answer>, ToolError> {
    // Each capability once, in the order the round first needs it.
    let mut undeclared_names: Vec<&'static str> = Vec::new();
    for pending in &round {
        let name = pending.question.capability();
        if ctx.client_capabilities().get(name).is_none() && !undeclared_names.contains(&name) {
            undeclared_names.push(name);
        }
    }
    if ctx.protocol_version().is_modern() {
        ask_modern(ctx, round, undeclared_names).await
    } else {
        if !undeclared_names.is_empty() {
            return Err(undeclared(&undeclared_names));
        }
        ask_legacy(ctx, round).await
    }
}

/// Legacy: every question a request to the client, sent at once; the first
/// failure (or the timeout) drops the rest, which withdraws them.
async fn ask_legacy(ctx: &Context, round: Vec<Pending>) -> Result<Vec<Answer>, ToolError> {
    let version = ctx.protocol_version();
    let connection = ctx.connection();
    let waiting = round
        .iter()
        .map(|pending| {
            let mut request = connection.request_client(&pending.question.wire(version));
            let question = &pending.question;
            Box::pin(async move {
                match request.reply().await {
                    Ok(Ok(result)) => read(question, &result),
                    Ok(Err(error)) => Err(failed(
                        question.noun(),
                        error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("no message"),
                    )),
                    Err(_) => Err(ToolError::new("the client went away before answering")),
                }
            }) as Waiting<'_, _>
        })
        .collect();
    within(ctx.elicitation_timeout(), &round, try_join_all(waiting)).await
}

/// 2026-07-28: the answers the retry carries; when some are missing, the
/// call stops with the round's unanswered questions (or, when their
/// capabilities were not declared, with `-32021` naming them).
async fn ask_modern(
    ctx: &Context,
    round: Vec<Pending>,
    undeclared: Vec<&'static str>,
) -> Result<Vec<Answer>, ToolError> {
    let answers = ctx.answers();
    if round
        .iter()
        .all(|pending| answers.contains_key(&pending.key))
    {
        return round
            .iter()
            .map(|pending| read(&pending.question, &answers[&pending.key]))
            .collect();
    }
    let interrupt = if undeclared.is_empty() {
        Interrupt::InputRequired(
            round
                .into_iter()
                .filter(|pending| !answers.contains_key(&pending.key))
                .map(|pending| (pending.key, pending.question))
                .collect(),
        )
    } else {
        Interrupt::MissingCapability(undeclared)
    };
    lock(ctx.interrupt_slot()).get_or_insert(interrupt);
    ctx.notify_interrupted();
    // The runtime answers for the call now and drops this future.
    std::future::pending().await
}

/// A question waiting for its answer.
type Waiting<'a, T> = Pin<Box<dyn Future<Output = Result<T, ToolError>> + Send + 'a>>;

/// `answers`, unless `limit` passes first: then the round is withdrawn
/// (dropping the questions does it) with an error naming the first.
async fn within<T>(
    limit: Duration,
    round: &[Pending],
    answers: impl Future<Output = Result<T, ToolError>>,
) -> Result<T, ToolError> {
    match tokio::time::timeout(limit, answers).await {
        Ok(answers) => answers,
        Err(_) => Err(timed_out(round.first().map(|p| &p.question), limit)),
    }
}

/// Every future's output in order, or the first error (the others are
/// dropped then): the round's questions are awaited together.
async fn try_join_all<T>(mut waiting: Vec<Waiting<'_, T>>) -> Result<Vec<T>, ToolError> {
    let mut done: Vec<Option<T>> = waiting.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, slot) in waiting.iter_mut().zip(done.iter_mut()) {
            if slot.is_some() {
                continue;
            }
            match future.as_mut().poll(cx) {
                Poll::Ready(Ok(answer)) => *slot = Some(answer),
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Pending => pending = true,
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(Ok(()))
        }
    })
    .await?;
    Ok(done.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> ElicitRequest {
        ElicitRequest::new("?")
    }

    #[tokio::test]
    async fn a_round_with_a_key_twice_is_refused_before_anything_is_asked() {
        let (ctx, _peer) = Context::test_builder()
            .client_capabilities(json!({"elicitation": {}}))
            .build();
        let refused = ctx
            .ask((Ask::elicit("k", form()), Ask::roots("k")))
            .await
            .unwrap_err();
        assert_eq!(
            refused.message(),
            "two questions of one round share the key `k`; give each its own"
        );
    }

    #[tokio::test]
    async fn a_modern_round_names_each_missing_capability_once_in_order() {
        let (ctx, _peer) = Context::test_builder()
            .protocol_version(ProtocolVersion::V2026_07_28)
            .client_capabilities(json!({"sampling": {}}))
            .build();
        let asking = ctx.clone();
        let asked = tokio::spawn(async move {
            let round = (
                Ask::elicit("a", form()),
                Ask::sample("b", SampleRequest::prompt("hi")),
                Ask::roots("c"),
                Ask::elicit("d", form()),
            );
            asking.ask(round).await.map(|_| ())
        });
        match ctx.interrupted().await {
            Interrupt::MissingCapability(names) => {
                assert_eq!(names, ["elicitation", "roots"]);
            }
            other => panic!("{other:?}"),
        }
        asked.abort();
    }
}
