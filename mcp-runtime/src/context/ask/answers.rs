//! The client's answers, read and checked before the tool sees them (each
//! parses as its method's result; roots are bounded), and the errors that
//! say why a question got none.

use super::{Answer, Answered, MAX_ROOTS};
use crate::context::elicit::{Question, read_elicitation};
use crate::context::sample::read_result;
use crate::outcome::ToolError;
use crate::protocol::model::{ListRootsResult, Root};
use crate::util::human_duration;
use serde::Deserialize as _;
use serde_json::Value;
use std::time::Duration;

/// A client's (JSON) answer to `question`, checked.
pub(super) fn read(question: &Question, answer: &Value) -> Result<Answer, ToolError> {
    Ok(Answer(match question {
        Question::Elicit(_) => Answered::Elicit(read_elicitation(answer)?),
        Question::Sample(_) => Answered::Sample(read_result(answer)?),
        Question::Roots => {
            let result = ListRootsResult::deserialize(answer).map_err(|err| {
                ToolError::new(format!(
                    "the client's roots/list answer is not valid: {err}"
                ))
            })?;
            roots(result.roots)?
        }
    }))
}

/// The roots of an answer, refused past [`MAX_ROOTS`].
pub(super) fn roots(roots: Vec<Root>) -> Result<Answered, ToolError> {
    if roots.len() > MAX_ROOTS {
        return Err(ToolError::new(format!(
            "the client's roots/list answer has {} roots, more than the {MAX_ROOTS} this server takes",
            roots.len()
        )));
    }
    Ok(Answered::Roots(roots))
}

/// Why a client that did not declare the capabilities `names` is not asked.
pub(super) fn undeclared(names: &[&'static str]) -> ToolError {
    let what = |name: &str| match name {
        "elicitation" => "answer questions",
        "sampling" => "sample its model",
        _ => "list its roots",
    };
    let name = names.first().copied().unwrap_or("roots");
    ToolError::new(format!(
        "this client cannot {} (it did not declare the {name} capability)",
        what(name)
    ))
}

pub(super) fn failed(noun: &str, message: &str) -> ToolError {
    ToolError::new(format!("the client failed the {noun}: {message}"))
}

/// Why a question the client did not answer within `limit` was withdrawn.
pub(super) fn timed_out(question: Option<&Question>, limit: Duration) -> ToolError {
    ToolError::new(match question {
        Some(Question::Elicit(_)) => format!(
            "the user did not answer within {}; the question was withdrawn",
            human_duration(limit)
        ),
        other => format!(
            "the client did not answer the {} within {}; it was withdrawn",
            other.map_or("request", Question::noun),
            human_duration(limit)
        ),
    })
}
