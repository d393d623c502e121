//! The bound on what one app sends its host: each message at most
//! [`MAX_MESSAGE_BYTES`], at most [`MAX_MESSAGES`] in any
//! [`WINDOW`]. An app past the rate is cut off for good (its frame is
//! torn down and the person told which app it was); a message too large is
//! refused alone.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The largest message an app may send its host, in bytes of JSON.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024;

/// The most messages an app may send in one [`WINDOW`].
pub const MAX_MESSAGES: usize = 40;

/// The window [`MAX_MESSAGES`] counts over.
pub const WINDOW: Duration = Duration::from_secs(2);

/// Why an app's message was not taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The message alone is too large; the app goes on.
    #[error("a message of {bytes} bytes, more than the {MAX_MESSAGE_BYTES} an app may send")]
    TooLarge {
        /// Its size.
        bytes: usize,
    },
    /// The app sent too many; it is cut off.
    #[error("cut off: it sent more than {MAX_MESSAGES} messages in {} seconds", WINDOW.as_secs())]
    CutOff,
}

/// One app's count of what it sent.
#[derive(Debug, Default)]
pub struct Gate {
    sent: VecDeque<Instant>,
    cut_off: bool,
}

impl Gate {
    /// Takes a message of `bytes` sent at `now`, or says why not.
    pub fn admit(&mut self, now: Instant, bytes: usize) -> Result<(), Refusal> {
        if self.cut_off {
            return Err(Refusal::CutOff);
        }
        while self
            .sent
            .front()
            .is_some_and(|&at| now.saturating_duration_since(at) >= WINDOW)
        {
            self.sent.pop_front();
        }
        if self.sent.len() >= MAX_MESSAGES {
            self.cut_off = true;
            self.sent.clear();
            return Err(Refusal::CutOff);
        }
        self.sent.push_back(now);
        if bytes > MAX_MESSAGE_BYTES {
            return Err(Refusal::TooLarge { bytes });
        }
        Ok(())
    }

    /// Whether the app was cut off.
    pub fn is_cut_off(&self) -> bool {
        self.cut_off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_app_goes_on_and_a_flood_is_cut_off_for_good() {
        let start = Instant::now();
        let mut gate = Gate::default();
        // Just under the rate, for a long time.
        for i in 0..200u32 {
            let at = start + WINDOW / (MAX_MESSAGES as u32) * i;
            gate.admit(at, 10).unwrap();
        }
        let mut flood = Gate::default();
        for _ in 0..MAX_MESSAGES {
            flood.admit(start, 10).unwrap();
        }
        assert_eq!(flood.admit(start, 10), Err(Refusal::CutOff));
        assert!(flood.is_cut_off());
        // Quiet afterwards is not enough.
        assert_eq!(flood.admit(start + WINDOW * 10, 10), Err(Refusal::CutOff));
        assert_eq!(
            Refusal::CutOff.to_string(),
            "cut off: it sent more than 40 messages in 2 seconds"
        );
    }

    #[test]
    fn a_large_message_is_refused_alone() {
        let mut gate = Gate::default();
        let now = Instant::now();
        assert_eq!(
            gate.admit(now, MAX_MESSAGE_BYTES + 1),
            Err(Refusal::TooLarge {
                bytes: MAX_MESSAGE_BYTES + 1
            })
        );
        gate.admit(now, MAX_MESSAGE_BYTES).unwrap();
        assert!(!gate.is_cut_off());
    }
}
