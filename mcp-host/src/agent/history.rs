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
//! What trimming costs: the model forgets what it no longer sees. A
//! follow-up that leans on a dropped turn ("那上海呢", "and the second
//! one?") loses its referent, and a dropped tool result is a call the model
//! may make again.

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
    /// message does not change once in the history, so a size policy
    /// measures each one once instead of the whole history every line.
    json_lens: Vec<Option<usize>>,
}

impl PartialEq for History {
    fn eq(&self, other: &History) -> bool {
        // The length cache is not part of what a history is.
        self.messages == other.messages && self.starts == other.starts
    }
}

/// A point the history can be put back to (before a line that failed).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark {
    messages: usize,
    turns: usize,
}

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

    pub(crate) fn mark(&self) -> Mark {
        Mark {
            messages: self.messages.len(),
            turns: self.starts.len(),
        }
    }

    /// Puts the history back to `mark` (taken in this line: nothing before
    /// it changed since).
    pub(crate) fn reset(&mut self, mark: Mark) {
        self.messages.truncate(mark.messages);
        self.json_lens.truncate(mark.messages);
        self.starts.truncate(mark.turns);
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
        let mark = h.mark();
        h.begin_turn(json!("u4"));
        h.push(json!("a4"));
        h.reset(mark);
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
        let mark = h.mark();
        h.begin_turn(json!("a longer fourth message"));
        h.push(json!(["an", "answer"]));
        for turn in 0..h.turn_count() {
            assert_eq!(h.turn_json_len(turn), measured(&h, turn), "turn {turn}");
        }
        h.reset(mark);
        h.begin_turn(json!("4"));
        let last = h.turn_count() - 1;
        assert_eq!(h.turn_json_len(last), 3);
        assert_eq!(h.turn_json_len(0), measured(&h, 0));
    }
}
