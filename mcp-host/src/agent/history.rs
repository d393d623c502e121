//! The conversation as the model APIs need it: every message since the
//! first, resent with each request, tool calls and their results included
//! (the model resolves "那上海呢" after a weather question only because it
//! sees the earlier `tool_use` and its `tool_result`).
//!
//! The history is kept in *turns*: a turn is a user's line and everything
//! the loop added for it (assistant messages, tool results), so a turn
//! boundary never falls between a `tool_use` and its `tool_result`. A
//! [`HistoryPolicy`] runs after each line and may shorten the history by
//! whole turns: [`FullHistory`] (the default) keeps everything,
//! [`LastTurns`] keeps the first user message and the last N turns, and a
//! policy of the user's own can replace old turns with a summary
//! ([`History::replace_turns`]).
//!
//! [`TokenBudget`] keeps the request under a number of input tokens: it
//! estimates what the next request will cost from the last response's
//! count ([`History::estimated_tokens`]) and, once over, drops the oldest
//! turns down to three quarters of the budget, so that the history's
//! prefix then stays the same for several lines (a prompt cache of it
//! keeps paying) instead of moving at every line.
//!
//! When a request does not fit the model's context window anyway, the
//! agent folds about half of the turns before the current one
//! ([`History::overflow_turns`]) and sends it again.
//!
//! What trimming costs: the model forgets what it no longer sees. A
//! follow-up that leans on a dropped turn ("那上海呢", "and the second
//! one?") loses its referent, and a dropped tool result is a call the model
//! may make again.

use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::ops::Range;

/// The messages of a conversation, in the provider's form, by turn.
#[derive(Clone, Debug, Default)]
pub struct History {
    messages: Vec<Value>,
    /// Where each turn starts in `messages`.
    starts: Vec<usize>,
    /// Each message's length as JSON text, once a policy asked for it: a
    /// message does not change once in the history (but for a line joined
    /// to it, which forgets its length), so a size policy measures each one
    /// once instead of the whole history every line.
    json_lens: Vec<Option<usize>>,
    /// The input tokens the API counted for a request that sent the first
    /// `.0` messages of this history, while those are still as they were.
    counted: Option<(usize, u64)>,
}

impl PartialEq for History {
    fn eq(&self, other: &History) -> bool {
        // The length cache is not part of what a history is.
        self.messages == other.messages && self.starts == other.starts
    }
}

/// What the agent did to the history to recover from a request that did
/// not fit the model's context window, as an [`Answer`](super::Answer)
/// reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Trim {
    /// How many of the oldest turns were dropped or summarized.
    pub turns: usize,
    /// How many messages left the history (the summary, or the first user
    /// message kept, not counted).
    pub messages: usize,
    /// Whether the turns were replaced by a summary the model wrote (else
    /// they were dropped, the first user message kept).
    pub summarized: bool,
}

/// Bytes of JSON per token, for what no response has counted yet: about 4
/// for English text and JSON; CJK text is nearer 3 bytes a token, so the
/// estimate errs low there, until the next response counts it exactly.
const BYTES_PER_TOKEN: usize = 4;

impl History {
    /// Every message, oldest first: what a request sends.
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }

    /// How many turns there are.
    pub fn turn_count(&self) -> usize {
        self.starts.len()
    }

    /// The messages of turn `index` (its user message first).
    ///
    /// # Panics
    /// If there is no such turn.
    pub fn turn(&self, index: usize) -> &[Value] {
        let end = self
            .starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.messages.len());
        &self.messages[self.starts[index]..end]
    }

    /// The length of turn `index`'s messages as JSON text, measured once
    /// per message and kept.
    ///
    /// # Panics
    /// If there is no such turn.
    pub fn turn_json_len(&mut self, index: usize) -> usize {
        let end = self
            .starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.messages.len());
        let start = self.starts[index];
        let (messages, lens) = (&self.messages, &mut self.json_lens);
        lens[start..end]
            .iter_mut()
            .zip(&messages[start..end])
            .map(|(len, message)| *len.get_or_insert_with(|| json_len(message)))
            .sum()
    }

    /// Replaces the turns `range` by one turn made of `messages` (a summary
    /// as a user message, say), or removes them when `messages` is empty.
    /// Whole turns only, so no `tool_use` is parted from its result.
    ///
    /// # Panics
    /// If `range` is not a range of turns.
    pub fn replace_turns(&mut self, range: Range<usize>, messages: Vec<Value>) {
        assert!(range.start <= range.end && range.end <= self.starts.len());
        if range.is_empty() && messages.is_empty() {
            return;
        }
        let from = self
            .starts
            .get(range.start)
            .copied()
            .unwrap_or(self.messages.len());
        let to = self
            .starts
            .get(range.end)
            .copied()
            .unwrap_or(self.messages.len());
        let added = messages.len();
        if self.counted.is_some_and(|(counted, _)| counted > from) {
            self.counted = None;
        }
        self.messages.splice(from..to, messages);
        self.json_lens
            .splice(from..to, std::iter::repeat_n(None, added));
        let shift = |start: usize| start + added - (to - from);
        let mut starts: Vec<usize> = self.starts[..range.start].to_vec();
        if added > 0 {
            starts.push(from);
        }
        starts.extend(self.starts[range.end..].iter().map(|&s| shift(s)));
        self.starts = starts;
    }

    /// Turns `0..n` that about halve what the history holds before its
    /// current (last) turn, for the agent to drop or summarize when a
    /// request does not fit the model's context window; `None` when there
    /// is nothing before the current turn but the first user message.
    ///
    /// Dropping them keeps the first user message ([`drop_turns`](Self::drop_turns)).
    pub fn overflow_turns(&self) -> Option<Range<usize>> {
        let before = self.turn_count().checked_sub(1)?;
        // A first turn that is its user message alone (kept by an earlier
        // trim) has nothing to drop.
        let lone_first = usize::from(before > 0 && self.turn(0).len() == 1);
        let droppable = before - lone_first;
        (droppable > 0).then(|| 0..lone_first + droppable.div_ceil(2))
    }

    /// Drops the turns `range` (starting at 0) but the first user message;
    /// returns how many messages left.
    ///
    /// # Panics
    /// If `range` does not start at turn 0 or is not a range of turns.
    pub fn drop_turns(&mut self, range: Range<usize>) -> usize {
        assert_eq!(range.start, 0, "the first user message is kept");
        if range.is_empty() {
            return 0;
        }
        let before = self.messages.len();
        let first = self.messages[0].clone();
        self.replace_turns(range, vec![first]);
        before - self.messages.len()
    }

    /// How many input tokens a request of this history will cost: the
    /// count the API reported for the last request (which covers the
    /// system prompt and the tools as well, and is exact) plus
    /// one token per 4 bytes of JSON of each message added since
    /// (which the API has not counted yet, and no tokenizer of ours can: the
    /// models' tokenizers are not public). Before any count, every message
    /// is estimated.
    pub fn estimated_tokens(&mut self) -> u64 {
        let (from, counted) = self.counted.unwrap_or((0, 0));
        let added: usize = (from..self.messages.len())
            .map(|index| self.message_json_len(index))
            .sum();
        counted + (added / BYTES_PER_TOKEN) as u64
    }

    /// Records that a request of the first `messages` messages cost
    /// `input_tokens` (unknown when 0).
    pub(crate) fn count_tokens(&mut self, messages: usize, input_tokens: u64) {
        if input_tokens > 0 && messages <= self.messages.len() {
            self.counted = Some((messages, input_tokens));
        }
    }

    /// The length of message `index` as JSON text, measured once.
    fn message_json_len(&mut self, index: usize) -> usize {
        *self.json_lens[index].get_or_insert_with(|| json_len(&self.messages[index]))
    }

    /// Puts the user's line into the last message with `join` (which says
    /// whether it did), or starts a turn with `user()`; returns the last
    /// message as it was when the line joined it, to put back if the line
    /// is undone.
    pub(crate) fn add_line(
        &mut self,
        join: impl FnOnce(&mut Value) -> bool,
        user: impl FnOnce() -> Value,
    ) -> Option<Value> {
        if let Some(last) = self.messages.last_mut() {
            let before = last.clone();
            if join(last) {
                let index = self.messages.len() - 1;
                self.json_lens[index] = None;
                if self.counted.is_some_and(|(counted, _)| counted > index) {
                    self.counted = None;
                }
                return Some(before);
            }
        }
        self.begin_turn(user());
        None
    }

    /// Starts a turn with the user's message.
    pub(crate) fn begin_turn(&mut self, user: Value) {
        self.starts.push(self.messages.len());
        self.messages.push(user);
        self.json_lens.push(None);
    }

    /// Adds a message to the current turn.
    pub(crate) fn push(&mut self, message: Value) {
        debug_assert!(!self.starts.is_empty(), "a message before any turn");
        self.messages.push(message);
        self.json_lens.push(None);
    }

    /// Removes the last `count` messages, and the turns they started.
    /// Counted from the end, so that a trim of older turns in between
    /// changes nothing.
    pub(crate) fn drop_last(&mut self, count: usize) {
        let len = self.messages.len().saturating_sub(count);
        self.messages.truncate(len);
        self.json_lens.truncate(len);
        self.starts.retain(|&start| start < len);
        if self.counted.is_some_and(|(counted, _)| counted > len) {
            self.counted = None;
        }
    }

    /// Puts back the last message as it was before a line joined it.
    pub(crate) fn restore_last(&mut self, message: Value) {
        if let Some(last) = self.messages.last_mut() {
            *last = message;
            let index = self.messages.len() - 1;
            self.json_lens[index] = None;
        }
    }
}

/// What the history keeps, decided after each line.
pub trait HistoryPolicy: Send + Sync + fmt::Debug + 'static {
    /// Shortens `history` as the policy wants, by whole turns
    /// ([`History::replace_turns`]).
    fn after_turn(&self, history: &mut History);
}

/// Keeps every message (the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct FullHistory;

impl HistoryPolicy for FullHistory {
    fn after_turn(&self, _history: &mut History) {}
}

/// Keeps the first user message and the last `N` turns whole.
#[derive(Clone, Copy, Debug)]
pub struct LastTurns(pub usize);

impl HistoryPolicy for LastTurns {
    fn after_turn(&self, history: &mut History) {
        let count = history.turn_count();
        if count <= self.0 + 1 {
            // Nothing older than the last N but the first turn: trimming it
            // to its user message is all there could be, and is only worth
            // it once there is an older turn to drop.
            if count == self.0 + 1 && history.turn(0).len() > 1 {
                let first = history.turn(0)[0].clone();
                history.replace_turns(0..1, vec![first]);
            }
            return;
        }
        let first = history.turn(0)[0].clone();
        history.replace_turns(0..count - self.0, vec![first]);
    }
}

/// Keeps the estimated input tokens of the next request
/// ([`History::estimated_tokens`]: the system prompt and the tools
/// included) at most `N`: once over, drops the oldest whole turns, the
/// first user message kept and the last turn always, down to three
/// quarters of `N`.
///
/// Trimming to a low-water mark rather than to the budget itself leaves
/// room for several lines before the next trim, and between trims every
/// request starts with the same bytes as the one before (a prompt cache
/// of that prefix keeps paying); trimming one turn each line would change
/// the prefix at every line.
#[derive(Clone, Copy, Debug)]
pub struct TokenBudget(pub u64);

impl HistoryPolicy for TokenBudget {
    fn after_turn(&self, history: &mut History) {
        let mut estimate = history.estimated_tokens();
        if estimate <= self.0 {
            return;
        }
        let low_water = self.0 / 4 * 3;
        let count = history.turn_count();
        let mut dropped = 0;
        // Turn 0 gives up all but its user message; the last turn stays.
        while estimate > low_water && dropped + 1 < count {
            let first_user = if dropped == 0 {
                json_len(&history.turn(0)[0])
            } else {
                0
            };
            let freed = history.turn_json_len(dropped) - first_user;
            estimate = estimate.saturating_sub((freed / BYTES_PER_TOKEN) as u64);
            dropped += 1;
        }
        history.drop_turns(0..dropped);
    }
}

/// Both policies, the first then the second (`(LastTurns(20),
/// MaxBytes(32_000_000))`: the last 20 turns, and never more bytes than
/// the API takes).
impl<A: HistoryPolicy, B: HistoryPolicy> HistoryPolicy for (A, B) {
    fn after_turn(&self, history: &mut History) {
        self.0.after_turn(history);
        self.1.after_turn(history);
    }
}

/// Keeps the newest whole turns whose messages take at most `max_bytes`
/// of JSON together, and always the last turn; older turns are dropped.
///
/// A model API that answers each line with the largest response its
/// bound allows would otherwise grow the history, and every request that
/// resends it, without end. The Anthropic API refuses requests over
/// 32 MB, so a history past that could not be sent anyway.
#[derive(Clone, Copy, Debug)]
pub struct MaxBytes(pub usize);

impl HistoryPolicy for MaxBytes {
    fn after_turn(&self, history: &mut History) {
        let sizes: Vec<usize> = (0..history.turn_count())
            .map(|turn| history.turn_json_len(turn))
            .collect();
        let mut total: usize = sizes.iter().sum();
        let mut dropped = 0;
        while total > self.0 && dropped + 1 < sizes.len() {
            total -= sizes[dropped];
            dropped += 1;
        }
        history.replace_turns(0..dropped, Vec::new());
    }
}

/// The length of `value` as JSON text, counted without writing it out.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn history(turns: &[&[&str]]) -> History {
        let mut history = History::default();
        for turn in turns {
            history.begin_turn(json!(turn[0]));
            for message in &turn[1..] {
                history.push(json!(message));
            }
        }
        history
    }

    #[test]
    fn turns_are_read_replaced_and_reset_whole() {
        let mut h = history(&[&["u1", "a1"], &["u2", "use", "result", "a2"], &["u3", "a3"]]);
        assert_eq!(h.turn_count(), 3);
        assert_eq!(
            h.turn(1),
            &[json!("u2"), json!("use"), json!("result"), json!("a2")]
        );
        h.begin_turn(json!("u4"));
        h.push(json!("a4"));
        h.drop_last(2);
        assert_eq!(
            h,
            history(&[&["u1", "a1"], &["u2", "use", "result", "a2"], &["u3", "a3"]])
        );
        h.replace_turns(0..2, vec![json!("summary")]);
        assert_eq!(h.messages(), &[json!("summary"), json!("u3"), json!("a3")]);
        assert_eq!(
            (h.turn_count(), h.turn(1)),
            (2, &[json!("u3"), json!("a3")][..])
        );
        h.replace_turns(0..1, Vec::new());
        assert_eq!(
            (h.turn_count(), h.messages()),
            (1, &[json!("u3"), json!("a3")][..])
        );
    }

    #[test]
    fn last_turns_keeps_the_first_user_message_and_whole_recent_turns() {
        let mut h = history(&[&["u1", "a1"], &["u2", "use", "result", "a2"]]);
        LastTurns(2).after_turn(&mut h);
        assert_eq!(h.turn_count(), 2, "nothing to drop yet");
        let mut h = history(&[
            &["u1", "a1"],
            &["u2", "use", "result", "a2"],
            &["u3", "a3"],
            &["u4", "a4"],
        ]);
        LastTurns(2).after_turn(&mut h);
        assert_eq!(
            h.messages(),
            &[
                json!("u1"),
                json!("u3"),
                json!("a3"),
                json!("u4"),
                json!("a4")
            ]
        );
        let mut again = h.clone();
        LastTurns(2).after_turn(&mut again);
        assert_eq!(again, h, "trimming is stable");
        let mut full = history(&[&["u1", "a1"], &["u2", "a2"]]);
        FullHistory.after_turn(&mut full);
        assert_eq!(full.messages().len(), 4);
    }

    #[test]
    fn max_bytes_drops_the_oldest_whole_turns_and_keeps_the_last() {
        // Each message is 4 bytes of JSON ("uN" with its quotes).
        let turns: &[&[&str]] = &[&["u1", "a1"], &["u2", "a2"], &["u3", "a3"]];
        let mut h = history(turns);
        MaxBytes(24).after_turn(&mut h);
        assert_eq!(h.turn_count(), 3, "24 bytes: all fit");
        MaxBytes(16).after_turn(&mut h);
        assert_eq!(
            h.messages(),
            &[json!("u2"), json!("a2"), json!("u3"), json!("a3")]
        );
        MaxBytes(1).after_turn(&mut h);
        assert_eq!(
            h.messages(),
            &[json!("u3"), json!("a3")],
            "the last turn stays"
        );
    }

    #[test]
    fn turn_lengths_are_kept_in_step_with_the_turns() {
        let measured =
            |h: &History, turn: usize| -> usize { h.turn(turn).iter().map(json_len).sum() };
        let mut h = history(&[&["u1", "a1"], &["u2", "a2"], &["u3"]]);
        for turn in 0..3 {
            assert_eq!(h.turn_json_len(turn), measured(&h, turn));
        }
        h.replace_turns(0..1, vec![json!({"summary": "of u1"})]);
        h.begin_turn(json!("a longer fourth message"));
        h.push(json!(["an", "answer"]));
        for turn in 0..h.turn_count() {
            assert_eq!(h.turn_json_len(turn), measured(&h, turn), "turn {turn}");
        }
        h.drop_last(2);
        h.begin_turn(json!("4"));
        let last = h.turn_count() - 1;
        assert_eq!(h.turn_json_len(last), 3);
        assert_eq!(h.turn_json_len(0), measured(&h, 0));
    }
    #[test]
    fn an_overflow_folds_about_half_of_the_turns_before_the_current_one() {
        let h = history(&[&["u1", "a1"]]);
        assert_eq!(h.overflow_turns(), None, "the current turn alone");
        let h = history(&[&["u1", "a1"], &["u2", "a2"]]);
        assert_eq!(h.overflow_turns(), Some(0..1));
        let h = history(&[&["u1", "a1"], &["u2"], &["u3"], &["u4"]]);
        assert_eq!(h.overflow_turns(), Some(0..2));
        let mut h = history(&[
            &["u1", "a1"],
            &["u2", "use", "result", "a2"],
            &["u3", "a3"],
            &["u4", "a4"],
            &["u5"],
        ]);
        assert_eq!(h.overflow_turns(), Some(0..2));
        assert_eq!(h.drop_turns(0..2), 5);
        assert_eq!(
            h.messages(),
            &[
                json!("u1"),
                json!("u3"),
                json!("a3"),
                json!("u4"),
                json!("a4"),
                json!("u5")
            ]
        );
        // The first question alone is not worth a turn of the count: the
        // next fold takes turns 1 and 2 with it.
        assert_eq!(h.overflow_turns(), Some(0..2));
        h.drop_turns(0..2);
        assert_eq!(
            h.messages(),
            &[json!("u1"), json!("u4"), json!("a4"), json!("u5")]
        );
        assert_eq!(h.overflow_turns(), Some(0..2));
        h.drop_turns(0..2);
        assert_eq!(h.messages(), &[json!("u1"), json!("u5")]);
        assert_eq!(
            h.overflow_turns(),
            None,
            "nothing left but the first question"
        );
    }

    #[test]
    fn the_estimate_is_the_last_count_plus_a_token_per_four_bytes_since() {
        // "uN" is 4 bytes of JSON, a token.
        let mut h = history(&[&["u1", "a1"], &["u2"]]);
        assert_eq!(h.estimated_tokens(), 3, "nothing counted yet");
        h.count_tokens(3, 1000);
        assert_eq!(h.estimated_tokens(), 1000);
        h.push(json!("a2"));
        h.begin_turn(json!("u3"));
        assert_eq!(h.estimated_tokens(), 1002);
        h.count_tokens(5, 0);
        assert_eq!(h.estimated_tokens(), 1002, "a count of 0 is no count");
        // A count whose messages changed no longer holds.
        h.drop_turns(0..1);
        assert_eq!(h.estimated_tokens(), 4);
    }

    #[test]
    fn the_token_budget_trims_to_three_quarters_and_not_before_it_is_over() {
        // 12 turns of 400 bytes, 100 tokens each, counted.
        let mut h = History::default();
        let long = "x".repeat(198);
        for _ in 0..12 {
            h.begin_turn(json!(long));
            h.push(json!(long));
        }
        h.count_tokens(24, 1200);
        let mut same = h.clone();
        TokenBudget(1200).after_turn(&mut same);
        assert_eq!(same, h, "at the budget: nothing dropped");
        TokenBudget(1100).after_turn(&mut h);
        // Down to at most 825 tokens: 4 turns and the second message of
        // the first go (1200 - 50 - 300 = 850 > 825; - 400 = 750).
        assert_eq!(h.turn_count(), 8);
        assert_eq!(h.turn(0), &[json!(long)]);
        assert_eq!(h.messages().len(), 15);
        assert!(h.estimated_tokens() <= 825, "{}", h.estimated_tokens());
    }

    #[test]
    fn a_line_joined_to_the_last_message_can_be_taken_out_again() {
        let mut h = history(&[&["u1", "a1"]]);
        let joined = h.add_line(
            |last| {
                *last = json!(["a1", "u2"]);
                true
            },
            || unreachable!(),
        );
        assert_eq!(joined, Some(json!("a1")));
        assert_eq!((h.turn_count(), h.turn_json_len(0)), (1, 4 + 11));
        h.restore_last(joined.unwrap());
        assert_eq!(h, history(&[&["u1", "a1"]]));
        assert_eq!(h.turn_json_len(0), 8);
        assert_eq!(h.add_line(|_| false, || json!("u2")), None);
        assert_eq!(h, history(&[&["u1", "a1"], &["u2"]]));
    }

    #[test]
    fn policies_in_a_pair_run_in_order() {
        let mut h = history(&[&["u1", "a1"], &["u2", "a2"], &["u3", "a3"]]);
        (LastTurns(2), MaxBytes(8)).after_turn(&mut h);
        assert_eq!(h.messages(), &[json!("u3"), json!("a3")]);
    }
}
