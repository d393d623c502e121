//! A bound on what a JSON tree built from a peer's bytes costs, checked on
//! the bytes before the tree is built.
//!
//! A `serde_json::Value` costs far more than the text it came from: `{}` is
//! two bytes on the wire and a 32-byte slot plus a map allocation in memory,
//! so a message of tiny objects grows about a hundredfold when it is parsed.
//! A bound on the bytes read (a line or body limit) does not bound that.
//! [`JsonBudget::check`] walks the text once, without allocating, and
//! estimates the memory the tree would take; a caller refuses the message
//! before parsing it when the estimate is over its budget.
//!
//! The walk is not a validator: it assumes well-formed JSON and, on
//! malformed text, still terminates with some estimate (the parser that runs
//! next reports the syntax error).

use std::fmt;

/// The slot every value takes (a `serde_json::Value` is 32 bytes).
const VALUE_SLOT: usize = 32;
/// What a non-empty object adds: its map's first node (a B-tree leaf holds
/// eleven keys and values, about 600 bytes, allocated with the first key).
const OBJECT_NODE: usize = 600;
/// What each object member adds besides its value's slot: the key's
/// `String` header in the map's node share, plus the key's bytes.
const MEMBER: usize = 32;

/// The limits one message's tree must stay within.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonBudget {
    /// The deepest nesting of arrays and objects accepted.
    pub max_depth: usize,
    /// The most memory the parsed tree may take, as estimated (bytes).
    pub max_tree_bytes: usize,
}

/// What a checked text would build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JsonShape {
    /// Values of every kind, containers included.
    pub values: usize,
    /// The deepest nesting seen.
    pub depth: usize,
    /// The estimated memory of the parsed tree, in bytes.
    pub tree_bytes: usize,
}

/// Why a text was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverBudget {
    /// It nests deeper than [`JsonBudget::max_depth`].
    TooDeep {
        /// The limit.
        max_depth: usize,
    },
    /// Its tree would take more than [`JsonBudget::max_tree_bytes`].
    TooLarge {
        /// The limit.
        max_tree_bytes: usize,
        /// How many bytes of text were read when the estimate passed it.
        after_text_bytes: usize,
    },
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OverBudget::TooDeep { max_depth } => {
                write!(f, "its JSON nests deeper than {max_depth} levels")
            }
            OverBudget::TooLarge {
                max_tree_bytes,
                after_text_bytes,
            } => write!(
                f,
                "its JSON would take more than {} MiB of memory once parsed (passed after {} bytes of text)",
                max_tree_bytes >> 20,
                after_text_bytes
            ),
        }
    }
}

impl std::error::Error for OverBudget {}

impl JsonBudget {
    /// A budget of `max_tree_bytes` of parsed tree and 128 levels, serde_json's own
    /// recursion limit.
    pub const fn new(max_tree_bytes: usize) -> JsonBudget {
        JsonBudget {
            max_depth: 128,
            max_tree_bytes,
        }
    }

    /// Walks `text` and estimates its tree; refuses it at the first byte
    /// where a limit is passed.
    ///
    /// ```
    /// use mcpfn_protocol::json_budget::{JsonBudget, OverBudget};
    ///
    /// let budget = JsonBudget::new(4096);
    /// assert!(budget.check(br#"{"a": [1, 2, "three"]}"#).is_ok());
    /// let tiny_objects = format!("[{}{{\"a\":1}}]", "{\"a\":1},".repeat(10));
    /// assert!(matches!(
    ///     budget.check(tiny_objects.as_bytes()),
    ///     Err(OverBudget::TooLarge { .. })
    /// ));
    /// ```
    pub fn check(&self, text: &[u8]) -> Result<JsonShape, OverBudget> {
        let mut shape = JsonShape::default();
        // The open containers, innermost last: bounded by max_depth.
        let mut open = Vec::<Container>::new();
        // Whether the next string is an object member's name (after `{` or
        // after `,` in an object).
        let mut expect_key = false;
        let mut i = 0;
        while i < text.len() {
            let byte = text[i];
            let cost = match byte {
                b'{' | b'[' => {
                    if open.len() == self.max_depth {
                        return Err(OverBudget::TooDeep {
                            max_depth: self.max_depth,
                        });
                    }
                    let object = byte == b'{';
                    open.push(if object {
                        Container::Object { has_member: false }
                    } else {
                        Container::Array
                    });
                    expect_key = object;
                    shape.depth = shape.depth.max(open.len());
                    shape.values += 1;
                    VALUE_SLOT
                }
                b'}' | b']' => {
                    open.pop();
                    expect_key = false;
                    0
                }
                b',' => {
                    expect_key = matches!(open.last(), Some(Container::Object { .. }));
                    0
                }
                b'"' => {
                    let start = i;
                    i = string_end(text, i + 1);
                    let len = i - start;
                    if std::mem::take(&mut expect_key) {
                        // The map's node is allocated with its first key.
                        let first = match open.last_mut() {
                            Some(Container::Object { has_member }) => {
                                !std::mem::replace(has_member, true)
                            }
                            _ => false,
                        };
                        MEMBER + len + if first { OBJECT_NODE } else { 0 }
                    } else {
                        shape.values += 1;
                        VALUE_SLOT + len
                    }
                }
                b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                    shape.values += 1;
                    while i + 1 < text.len() && !is_delimiter(text[i + 1]) {
                        i += 1;
                    }
                    VALUE_SLOT
                }
                _ => 0,
            };
            shape.tree_bytes = shape.tree_bytes.saturating_add(cost);
            if shape.tree_bytes > self.max_tree_bytes {
                return Err(OverBudget::TooLarge {
                    max_tree_bytes: self.max_tree_bytes,
                    after_text_bytes: i + 1,
                });
            }
            i += 1;
        }
        Ok(shape)
    }
}

/// An open array or object, as the walk sees it.
#[derive(Clone, Copy, Debug)]
enum Container {
    Array,
    Object { has_member: bool },
}

/// The index of the `"` that closes the string whose text starts at `from`
/// (or the end of `text` when it is not closed).
fn string_end(text: &[u8], mut from: usize) -> usize {
    while from < text.len() {
        match text[from] {
            b'\\' => from += 2,
            b'"' => return from,
            _ => from += 1,
        }
    }
    text.len()
}

fn is_delimiter(byte: u8) -> bool {
    matches!(
        byte,
        b',' | b']' | b'}' | b':' | b' ' | b'\n' | b'\r' | b'\t'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> JsonShape {
        JsonBudget::new(usize::MAX).check(text.as_bytes()).unwrap()
    }

    #[test]
    fn counts_values_depth_and_keys() {
        let s = shape(r#"{"a": [1, true, null, "x\"y"], "b": {"c": -2.5e3}}"#);
        assert_eq!(s.values, 8);
        assert_eq!(s.depth, 2);
        // Two maps' nodes, three keys, eight slots, the strings' bytes
        // (each counted with one quote).
        assert_eq!(
            s.tree_bytes,
            2 * OBJECT_NODE + 3 * MEMBER + 3 * 2 + 8 * VALUE_SLOT + 5
        );
    }

    #[test]
    fn strings_in_arrays_after_commas_are_values_not_keys() {
        let s = shape(r#"{"k": ["a", "b", "c"]}"#);
        assert_eq!(s.values, 5);
        assert_eq!(
            s.tree_bytes,
            OBJECT_NODE + MEMBER + 2 + 5 * VALUE_SLOT + 3 * 2
        );
    }

    #[test]
    fn tiny_objects_cost_far_more_than_their_text() {
        let text = format!("[{}{{\"a\":1}}]", "{\"a\":1},".repeat(10_000));
        let s = shape(&text);
        assert!(
            s.tree_bytes > 60 * text.len(),
            "{s:?} for {} bytes",
            text.len()
        );
        let refused = JsonBudget::new(1 << 20).check(text.as_bytes()).unwrap_err();
        assert!(
            matches!(refused, OverBudget::TooLarge { after_text_bytes, .. } if after_text_bytes < text.len())
        );
    }

    #[test]
    fn depth_is_bounded() {
        let budget = JsonBudget {
            max_depth: 3,
            max_tree_bytes: usize::MAX,
        };
        assert!(budget.check(b"[[[1]]]").is_ok());
        assert_eq!(
            budget.check(b"[[[[1]]]]"),
            Err(OverBudget::TooDeep { max_depth: 3 })
        );
    }

    #[test]
    fn malformed_text_ends() {
        for text in ["\"abc", "{\"a\\", "[[[", "}}}]]", "tru", "{\"a\" 1 \"b\"}"] {
            // On a thread of its own, so a walk that never ends fails the
            // test instead of hanging it.
            let (done, walked) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = done.send(JsonBudget::new(usize::MAX).check(text.as_bytes()));
            });
            let shape = walked
                .recv_timeout(std::time::Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("the walk of {text:?} did not end"))
                .unwrap_or_else(|e| panic!("{text:?}: {e}"));
            // Some estimate, bounded by the text: at most a value per byte.
            assert!(
                shape.values <= text.len() && shape.depth <= text.len(),
                "{text:?}: {shape:?}"
            );
        }
    }
}
