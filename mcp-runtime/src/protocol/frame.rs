//! Frames: one compact JSON-RPC message and a newline, serialized straight
//! from the typed messages of [`super::outgoing`] into the output buffer.
//!
//! A message may hold one large cached piece ([`Spliced`], e.g. a page of
//! tool definitions) that is shared, not copied: the frame is then the bytes
//! before it, the piece, and the bytes after it, sent in one vectored write.

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, Serializer};
use serde_json::value::RawValue;
use std::cell::Cell;
use std::io;
use std::sync::{Arc, OnceLock};

/// An outgoing frame.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A whole frame, newline included, and what it carries.
    Owned(Vec<u8>, FrameKind),
    /// `head` + `body` + `tail` make the frame (the tail has the newline);
    /// always a result (a cached list page).
    Shared {
        /// The bytes before the page.
        head: Vec<u8>,
        /// The cached page, shared by every frame that lists it.
        body: Arc<str>,
        /// The bytes after it, newline included.
        tail: Vec<u8>,
    },
}

impl Frame {
    /// How many bytes the frame puts on the wire (newline included).
    pub(crate) fn byte_len(&self) -> usize {
        match self {
            Frame::Owned(bytes, _) => bytes.len(),
            Frame::Shared { head, body, tail } => head.len() + body.len() + tail.len(),
        }
    }

    /// The frame's bytes in one buffer (for tests and the test context).
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        match self {
            Frame::Owned(bytes, _) => bytes,
            Frame::Shared { head, body, tail } => {
                [head.as_slice(), body.as_bytes(), tail.as_slice()].concat()
            }
        }
    }
}

/// What a frame carries, as a transport that routes frames needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameKind {
    /// A notification or a request of ours: more may follow.
    Message,
    /// A successful response.
    Result,
    /// An error response with this code.
    Error(super::ErrorCode),
}

impl Frame {
    /// Whether this frame is a response, and its error code if it is an
    /// error: decided where the frame is made (the message's type knows),
    /// so routing a frame never reads it back.
    // Read by the HTTP transport (JSON or SSE, the status) and the tests;
    // stdio writes every frame alike and never asks.
    #[cfg_attr(not(any(test, feature = "http")), allow(dead_code))]
    pub(crate) fn kind(&self) -> FrameKind {
        match self {
            Frame::Owned(_, kind) => *kind,
            Frame::Shared { .. } => FrameKind::Result,
        }
    }
}

/// Serializes `message`, which carries `kind`, as one frame. Typed messages
/// always serialize (their maps have string keys, their numbers are finite
/// or `null`), and writing into a `Vec` cannot fail.
pub(crate) fn encode<T: Serialize>(message: &T, capacity: usize, kind: FrameKind) -> Frame {
    let mut out = Vec::with_capacity(capacity);
    // See the doc comment: this cannot fail.
    serde_json::to_writer(&mut out, message).unwrap_or_default();
    out.push(b'\n');
    Frame::Owned(out, kind)
}

/// Where a shared piece goes in a message: serializes as a placeholder that
/// [`encode_shared`] cuts the frame at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spliced;

/// The placeholder, made once (not parsed again for every frame); found
/// again by the address of its text, never by content.
fn splice_mark() -> &'static RawValue {
    static MARK: OnceLock<Box<RawValue>> = OnceLock::new();
    MARK.get_or_init(|| {
        // `[]` is JSON: this cannot fail.
        RawValue::from_string("[]".to_owned()).unwrap_or_default()
    })
}

impl Serialize for Spliced {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        splice_mark().serialize(serializer)
    }
}

/// Serializes `message`, whose one [`Spliced`] field stands for `body`
/// (JSON text), as a shared frame: `body` is not copied.
pub(crate) fn encode_shared<T: Serialize>(message: &T, body: Arc<str>) -> Frame {
    let marks = Cell::new(0);
    let mut parts = Parts {
        head: Vec::with_capacity(96),
        tail: Vec::with_capacity(160),
        marks: &marks,
    };
    let formatter = AtMarks { marks: &marks };
    let mut serializer = Serializer::with_formatter(&mut parts, formatter);
    // Cannot fail, as in `encode`.
    message.serialize(&mut serializer).unwrap_or_default();
    parts.tail.push(b'\n');
    Frame::Shared {
        head: parts.head,
        body,
        tail: parts.tail,
    }
}

/// The output of [`encode_shared`]: bytes go to `head` until the mark was
/// met, then to `tail`.
struct Parts<'a> {
    head: Vec<u8>,
    tail: Vec<u8>,
    marks: &'a Cell<usize>,
}

impl io::Write for Parts<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.marks.get() > 0 {
            self.tail.extend_from_slice(buf);
        } else {
            self.head.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A message serialized once with a hole at each [`Spliced`] field and at
/// each raw field that is [`hole`] (a response's `id`): the frames of
/// requests whose answers differ only there (a prompt's, whose description
/// and envelope are the same every time) are its pieces with the holes
/// filled, not serialized again.
#[derive(Debug)]
pub(crate) struct Template {
    /// The bytes around the holes, one more than there are holes; the last
    /// ends with the newline.
    pieces: Vec<Vec<u8>>,
}

impl Template {
    /// `message` with its holes left open.
    pub(crate) fn new<T: Serialize>(message: &T) -> Template {
        let holes = Cell::new(0);
        let mut pieces = Pieces {
            pieces: vec![Vec::new()],
            holes: &holes,
        };
        let formatter = AtMarks { marks: &holes };
        let mut serializer = Serializer::with_formatter(&mut pieces, formatter);
        // Cannot fail, as in `encode`.
        message.serialize(&mut serializer).unwrap_or_default();
        let mut pieces = pieces.pieces;
        // A hole at the very end has no bytes after it yet.
        pieces.resize_with(holes.get() + 1, Vec::new);
        if let Some(last) = pieces.last_mut() {
            last.push(b'\n');
        }
        Template { pieces }
    }

    /// The frame of `kind` with `fills` in the holes, in order (a hole
    /// without a fill is left empty).
    pub(crate) fn fill(&self, fills: &[&[u8]], kind: FrameKind) -> Frame {
        let len = fills.iter().map(|fill| fill.len()).sum::<usize>();
        self.fill_then(fills, len, |_| {}, kind)
    }

    /// [`Template::fill`], with the hole after the last of `fills` written
    /// by `write` (about `len` bytes in all, `fills` included): a large
    /// body goes straight into the frame, copied nowhere else.
    pub(crate) fn fill_then(
        &self,
        fills: &[&[u8]],
        len: usize,
        write: impl FnOnce(&mut Vec<u8>),
        kind: FrameKind,
    ) -> Frame {
        let mut out = Vec::with_capacity(len + self.pieces.iter().map(Vec::len).sum::<usize>());
        let mut write = Some(write);
        for (at, piece) in self.pieces.iter().enumerate() {
            if let Some(hole) = at.checked_sub(1) {
                match fills.get(hole) {
                    Some(fill) => out.extend_from_slice(fill),
                    None => {
                        if let Some(write) = write.take() {
                            write(&mut out);
                        }
                    }
                }
            }
            out.extend_from_slice(piece);
        }
        Frame::Owned(out, kind)
    }
}

/// A hole of a [`Template`] where a raw value goes (a response's `id`).
pub(crate) fn hole() -> &'static RawValue {
    splice_mark()
}

/// The output of [`Template::new`]: bytes go to the piece after the holes
/// met so far.
struct Pieces<'a> {
    pieces: Vec<Vec<u8>>,
    holes: &'a Cell<usize>,
}

impl io::Write for Pieces<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let at = self.holes.get();
        if self.pieces.len() <= at {
            self.pieces.resize_with(at + 1, Vec::new);
        }
        self.pieces[at].extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Compact JSON, except that each splice mark is dropped and counted: the
/// writer beside it ([`Parts`], [`Pieces`]) moves on to its next part.
struct AtMarks<'a> {
    marks: &'a Cell<usize>,
}

impl Formatter for AtMarks<'_> {
    fn write_raw_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if std::ptr::eq(fragment.as_ptr(), splice_mark().get().as_ptr()) {
            self.marks.set(self.marks.get() + 1);
            return Ok(());
        }
        CompactFormatter.write_raw_fragment(writer, fragment)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Holder<'a> {
        a: u8,
        piece: Spliced,
        b: &'a str,
    }

    #[test]
    fn a_shared_frame_cuts_around_its_piece() {
        let frame = encode_shared(
            &Holder {
                a: 1,
                piece: Spliced,
                b: "[]",
            },
            Arc::from("[1,2]"),
        );
        let Frame::Shared { head, body, tail } = frame else {
            panic!("not shared");
        };
        assert_eq!(head, b"{\"a\":1,\"piece\":");
        assert_eq!(&*body, "[1,2]");
        assert_eq!(tail, b",\"b\":\"[]\"}\n");
    }

    #[test]
    fn a_template_is_filled_at_each_hole_in_order() {
        #[derive(Serialize)]
        struct Two<'a> {
            id: &'a RawValue,
            piece: Spliced,
            b: &'a str,
        }
        let template = Template::new(&Two {
            id: hole(),
            piece: Spliced,
            b: "q\"",
        });
        let frame = template.fill(&[b"\"x7\"", b"[1]"], FrameKind::Result);
        assert_eq!(frame.kind(), FrameKind::Result);
        assert_eq!(
            frame.into_bytes(),
            b"{\"id\":\"x7\",\"piece\":[1],\"b\":\"q\\\"\"}\n"
        );
        // Each fill is its own: the template is not changed by one.
        let again = template.fill(&[b"8", b"{}"], FrameKind::Result);
        assert_eq!(
            again.into_bytes(),
            b"{\"id\":8,\"piece\":{},\"b\":\"q\\\"\"}\n"
        );
    }

    #[test]
    fn a_templates_last_hole_is_written_in_place() {
        #[derive(Serialize)]
        struct Answer<'a> {
            id: &'a RawValue,
            piece: Spliced,
            b: &'a str,
        }
        let template = Template::new(&Answer {
            id: hole(),
            piece: Spliced,
            b: "z",
        });
        let frame = template.fill_then(
            &[b"\"k\""],
            10,
            |out| out.extend_from_slice(b"[true]"),
            FrameKind::Result,
        );
        assert_eq!(frame.kind(), FrameKind::Result);
        assert_eq!(
            frame.into_bytes(),
            b"{\"id\":\"k\",\"piece\":[true],\"b\":\"z\"}\n"
        );
    }

    #[test]
    fn an_owned_frame_is_one_line() {
        let frame = encode(
            &Holder {
                a: 2,
                piece: Spliced,
                b: "x\ny",
            },
            0,
            FrameKind::Result,
        );
        assert_eq!(frame.kind(), FrameKind::Result);
        assert_eq!(
            frame.into_bytes(),
            b"{\"a\":2,\"piece\":[],\"b\":\"x\\ny\"}\n"
        );
    }
}
