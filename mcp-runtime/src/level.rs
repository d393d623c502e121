//! Log levels of MCP logging (RFC 5424 severities, least severe first).

use std::fmt;
use std::str::FromStr;

/// The severity of a log message sent to the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Detailed debugging information.
    Debug = 1,
    /// Normal operational messages.
    Info = 2,
    /// Normal but significant events.
    Notice = 3,
    /// Warning conditions.
    Warning = 4,
    /// Error conditions.
    Error = 5,
    /// Critical conditions.
    Critical = 6,
    /// Action must be taken immediately.
    Alert = 7,
    /// The system is unusable.
    Emergency = 8,
}

impl Level {
    /// Every level, least severe first.
    pub const ALL: [Level; 8] = [
        Level::Debug,
        Level::Info,
        Level::Notice,
        Level::Warning,
        Level::Error,
        Level::Critical,
        Level::Alert,
        Level::Emergency,
    ];

    /// The wire name, e.g. `"warning"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Error => "error",
            Level::Critical => "critical",
            Level::Alert => "alert",
            Level::Emergency => "emergency",
        }
    }

    pub(crate) fn from_u8(n: u8) -> Option<Level> {
        Level::ALL.into_iter().find(|l| *l as u8 == n)
    }
}

impl FromStr for Level {
    type Err = UnknownLevel;

    fn from_str(text: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str() == text)
            .ok_or_else(|| UnknownLevel(text.to_owned()))
    }
}

/// A name [`Level::from_str`] does not know; it displays as the message a
/// user reads (the name, and the names there are).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLevel(String);

impl UnknownLevel {
    /// The name that was given.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UnknownLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown log level {:?}; use one of debug, info, notice, warning, error, critical, alert, emergency",
            self.0
        )
    }
}

impl std::error::Error for UnknownLevel {}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_round_trip_and_order() {
        for level in Level::ALL {
            assert_eq!(level.as_str().parse::<Level>(), Ok(level));
            assert_eq!(Level::from_u8(level as u8), Some(level));
        }
        assert!(Level::Debug < Level::Emergency);
        assert!("verbose".parse::<Level>().is_err());
    }
}
