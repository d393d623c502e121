//! Finding a request's `id` in a line too long to hold: a streaming scanner
//! fed the line in pieces as it is skipped, so the refusal can be answered to
//! the request that caused it instead of leaving the client waiting.
//!
//! It tracks only what locating the top-level `"id"` member needs: nesting
//! depth, strings (with escapes) and, inside the top-level object, whether the
//! next string is a member name or a value. Members named `id` inside nested
//! objects (tool arguments, `_meta`) are not the request's and are ignored.
//! The TypeScript SDK writes `id` after `params`, so the member may come last.

use serde_json::value::RawValue;

/// The longest `id` kept, in bytes of JSON text (quotes included); a longer
/// one is given up on, as is a line whose top level is not an object.
pub const MAX_ID_LEN: usize = 256;

/// Ids are strings or integers (MCP narrows JSON-RPC here). A string with
/// escapes must decode: a lone surrogate (`"\ud800"`) is valid JSON syntax
/// but no string, and echoing it would make the response unreadable.
// Public for the server's reader of whole lines (`mcp-runtime`), which
// must accept exactly the ids this scanner does.
pub fn is_valid_id(raw: &RawValue) -> bool {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => !text.contains('\\') || serde_json::from_str::<String>(text).is_ok(),
        Some(b'-' | b'0'..=b'9') => text.bytes().skip(1).all(|b| b.is_ascii_digit()),
        _ => false,
    }
}

/// Where the scanner is in the top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Before the top-level value.
    Start,
    /// Expecting a member name.
    Key,
    /// After a member name, before its `:`; `id` says whether it was `"id"`.
    Colon { id: bool },
    /// Expecting a member's value.
    Value { id: bool },
    /// After a value, before `,` or `}`.
    Next,
    /// Finished: the id was found, or cannot be.
    Done,
}

/// What is being read inside a string or number at the top level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Capture {
    /// Nothing kept (a nested string, or a value that is not the id).
    None,
    /// A member name; `buf` holds its first bytes.
    Key,
    /// The id's JSON text, in `buf`.
    Id,
}

/// A streaming scanner for the top-level `"id"` of one JSON object.
#[derive(Debug)]
pub struct IdScanner {
    slot: Slot,
    /// Nesting depth: 1 inside the top-level object.
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// Reading the digits of a numeric id.
    in_number: bool,
    capture: Capture,
    buf: Vec<u8>,
    found: bool,
}

impl Default for IdScanner {
    fn default() -> Self {
        IdScanner {
            slot: Slot::Start,
            depth: 0,
            in_string: false,
            escaped: false,
            in_number: false,
            capture: Capture::None,
            buf: Vec::new(),
            found: false,
        }
    }
}

impl IdScanner {
    /// Forgets the previous line.
    pub fn reset(&mut self) {
        self.buf.clear();
        let buf = std::mem::take(&mut self.buf);
        *self = IdScanner {
            buf,
            ..IdScanner::default()
        };
    }

    /// The id found so far, as JSON text (a string with its quotes, or an
    /// integer); only a valid MCP id (string or integer) is returned. What
    /// was fed is the whole line: an integer id it ends in is complete.
    pub fn id(&self) -> Option<&str> {
        let ends_in_id = self.in_number && self.capture == Capture::Id;
        if !(self.found || ends_in_id && self.buf.len() <= MAX_ID_LEN) {
            return None;
        }
        let raw: &RawValue = serde_json::from_slice(&self.buf).ok()?;
        is_valid_id(raw).then(|| raw.get())
    }

    /// Feeds the next piece of the line.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && self.slot != Slot::Done {
            if self.in_string {
                bytes = self.string_bytes(bytes);
                continue;
            }
            let byte = bytes[0];
            bytes = &bytes[1..];
            if self.in_number {
                if byte.is_ascii_digit() {
                    self.keep(byte);
                    continue;
                }
                self.in_number = false;
                if matches!(byte, b'.' | b'e' | b'E') {
                    // Not an integer: no valid id.
                    self.slot = Slot::Done;
                    continue;
                }
                self.finish_id();
                continue;
            }
            self.structural(byte);
        }
    }

    /// Consumes string bytes up to and including the closing quote (or all
    /// of `bytes`); returns the rest.
    fn string_bytes<'b>(&mut self, bytes: &'b [u8]) -> &'b [u8] {
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes[i];
            i += 1;
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                self.keep_slice(&bytes[..i]);
                self.end_string();
                return &bytes[i..];
            }
            if self.capture == Capture::None {
                // Skip the body of a string nobody keeps in one go.
                let rest = &bytes[i..];
                if !self.escaped {
                    let skip = rest
                        .iter()
                        .position(|&b| b == b'"' || b == b'\\')
                        .unwrap_or(rest.len());
                    i += skip;
                }
            }
        }
        self.keep_slice(bytes);
        &[]
    }

    fn end_string(&mut self) {
        match self.capture {
            Capture::Key => {
                // `buf` is `"id"` when the member is named id (escaped
                // spellings of the name are not recognised).
                let id = self.buf == b"\"id\"";
                self.slot = Slot::Colon { id };
            }
            Capture::Id => self.finish_id(),
            Capture::None => {}
        }
        self.capture = Capture::None;
    }

    fn finish_id(&mut self) {
        self.found = self.buf.len() <= MAX_ID_LEN;
        self.slot = Slot::Done;
    }

    /// Keeps bytes of a captured name or id, within bounds.
    fn keep_slice(&mut self, bytes: &[u8]) {
        let limit = match self.capture {
            Capture::None => return,
            // Enough to tell `"id"` from anything else.
            Capture::Key => 5,
            Capture::Id => MAX_ID_LEN + 1,
        };
        let room = limit.saturating_sub(self.buf.len());
        self.buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn keep(&mut self, byte: u8) {
        self.keep_slice(&[byte]);
    }

    /// A byte outside strings and numeric ids.
    fn structural(&mut self, byte: u8) {
        if byte.is_ascii_whitespace() {
            return;
        }
        if self.depth > 1 {
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 1 {
                        self.slot = Slot::Next;
                    }
                }
                _ => {}
            }
            return;
        }
        match (self.slot, byte) {
            (Slot::Start, b'{') => {
                self.depth = 1;
                self.slot = Slot::Key;
            }
            (Slot::Key, b'"') => {
                self.in_string = true;
                self.capture = Capture::Key;
                self.buf.clear();
                self.keep(b'"');
            }
            (Slot::Colon { id }, b':') => self.slot = Slot::Value { id },
            (Slot::Value { id: true }, b'"') => {
                self.in_string = true;
                self.capture = Capture::Id;
                self.buf.clear();
                self.keep(b'"');
            }
            (Slot::Value { id: true }, b'-' | b'0'..=b'9') => {
                self.in_number = true;
                self.capture = Capture::Id;
                self.buf.clear();
                self.keep(byte);
            }
            (Slot::Value { id: false }, b'"') => {
                self.in_string = true;
                self.slot = Slot::Next;
            }
            (Slot::Value { id: false }, b'{' | b'[') => {
                self.depth += 1;
                self.slot = Slot::Next;
            }
            (Slot::Value { id: false }, _)
            | (Slot::Next, b'0'..=b'9' | b'a'..=b'z' | b'.' | b'+' | b'-' | b'E') => {
                // A number or literal value (or the rest of one).
                self.slot = Slot::Next;
            }
            (Slot::Next, b',') => self.slot = Slot::Key,
            // The object ended without an id, the top level is not an
            // object, or the id is no string or integer (null, an object):
            // nothing to find.
            _ => self.slot = Slot::Done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scans `line` fed in pieces split at `cuts`.
    fn scan_split(line: &str, cuts: &[usize]) -> Option<String> {
        let mut scanner = IdScanner::default();
        let mut from = 0;
        for &cut in cuts.iter().chain([&line.len()]) {
            scanner.feed(&line.as_bytes()[from..cut]);
            from = cut;
        }
        scanner.id().map(str::to_owned)
    }

    /// Scans `line` whole, byte by byte, and split at every position: all
    /// must agree.
    fn scan(line: &str) -> Option<String> {
        let whole = scan_split(line, &[]);
        let bytes: Vec<usize> = (1..line.len()).collect();
        assert_eq!(scan_split(line, &bytes), whole, "byte by byte: {line}");
        for cut in 1..line.len() {
            assert_eq!(scan_split(line, &[cut]), whole, "split at {cut}: {line}");
        }
        whole
    }

    #[test]
    fn finds_the_id_first_or_last() {
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{}}"#).as_deref(),
            Some("17")
        );
        assert_eq!(
            scan(
                r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"},"id":"req-9"}"#
            )
            .as_deref(),
            Some(r#""req-9""#)
        );
        assert_eq!(
            scan(r#" { "id" : -3 , "method":"x"}"#).as_deref(),
            Some("-3")
        );
        assert_eq!(scan(r#"{"method":"x","id":42}"#).as_deref(), Some("42"));
    }

    #[test]
    fn nested_ids_and_lookalike_text_are_ignored() {
        let line = r#"{"params":{"id":1,"arguments":{"id":"inner","text":"\"id\":5, {\"id\":6}"}},"note":["id",{"id":7}],"idx":8,"id":"outer"}"#;
        assert_eq!(scan(line).as_deref(), Some(r#""outer""#));
        assert_eq!(
            scan(r#"{"params":{"id":1},"method":"x"}"#),
            None,
            "no top-level id"
        );
    }

    #[test]
    fn string_ids_keep_their_escapes() {
        assert_eq!(
            scan(r#"{"method":"x","params":{"t":"a\\"},"id":"a\"b\\c\u00e9"}"#).as_deref(),
            Some(r#""a\"b\\c\u00e9""#)
        );
    }

    #[test]
    fn invalid_or_missing_ids_give_none() {
        for line in [
            r#"{"id":null,"method":"x"}"#,
            r#"{"id":1.5,"method":"x"}"#,
            r#"{"id":1e3,"method":"x"}"#,
            r#"{"id":{"a":1},"method":"x"}"#,
            r#"{"id":true,"method":"x"}"#,
            r#"{"id":"\ud800","method":"x"}"#,
            r#"[{"id":1}]"#,
            r#"{"method":"x"}"#,
            r#"{"method":"x","id""#,
        ] {
            assert_eq!(scan(line), None, "{line}");
        }
        let long = format!(r#"{{"id":"{}","method":"x"}}"#, "a".repeat(MAX_ID_LEN));
        assert_eq!(
            scan(&long),
            None,
            "an id over {MAX_ID_LEN} bytes is given up"
        );
        let fits = format!(r#"{{"id":"{}","method":"x"}}"#, "a".repeat(MAX_ID_LEN - 2));
        assert!(scan(&fits).is_some());
    }

    #[test]
    fn an_integer_id_that_ends_the_line_counts() {
        assert_eq!(scan(r#"{"result":"aaaa","id":12"#).as_deref(), Some("12"));
        assert_eq!(scan(r#"{"result":"aaaa","id":-"#), None);
        assert_eq!(scan(r#"{"result":"aaaa","id":"12"#), None);
    }

    #[test]
    fn reset_forgets_the_previous_line() {
        let mut scanner = IdScanner::default();
        scanner.feed(br#"{"id":1}"#);
        assert_eq!(scanner.id(), Some("1"));
        scanner.reset();
        scanner.feed(br#"{"method":"x","#);
        assert_eq!(scanner.id(), None);
    }
}
