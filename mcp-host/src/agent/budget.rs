//! What of the tools' results goes to the model: at most
//! [`ResultBudget::per_result`] bytes of text of one result, at most
//! [`ResultBudget::per_turn`] bytes of the results of one response
//! together, images of at most [`ResultBudget::per_image`] bytes each and
//! [`ResultBudget::images_per_turn`] bytes together. What is cut is said
//! in a note at the end of the result, so the model knows the result is
//! not whole and by how much:
//!
//! `[… 14,680,064 bytes of this result were cut: the host sends at most
//! 100,000 bytes of one result]`
//!
//! The bound is on what the model is sent, not on what the library
//! returns: [`Catalog::call`](crate::catalog::Catalog::call) still gives
//! the whole result. A result goes into the history and is resent with
//! every later request of the conversation, so the bound is paid once per
//! request, not once.
//!
//! Each result is cut to its own bound as soon as it arrives, so a
//! response's many large results are never all held at once; the turn's
//! bound is then shared among them: a result under its equal share keeps
//! all of it, and what it leaves is shared among the larger ones.

use crate::call_result;
use mcpfn_client::text::grouped;
use mcpfn_protocol::model::{CallToolResult, ContentBlock, ResourceContents, TextContent};

/// [`ResultBudget::per_result`] when nothing else is said: about 25,000
/// tokens at ~4 bytes a token, the bound Claude Code puts on one MCP
/// tool's output (`MAX_MCP_OUTPUT_TOKENS`).
pub const DEFAULT_MAX_RESULT_BYTES: usize = 100_000;
/// [`ResultBudget::per_turn`] when nothing else is said: four whole
/// results, about 100,000 tokens, half of a 200,000-token context.
pub const DEFAULT_MAX_TURN_BYTES: usize = 4 * DEFAULT_MAX_RESULT_BYTES;
/// [`ResultBudget::per_image`] when nothing else is said: the Anthropic
/// API's bound on one image (5 MB of base64); it refuses the whole request
/// for a larger one.
pub const DEFAULT_MAX_IMAGE_BYTES: usize = 5 << 20;
/// [`ResultBudget::images_per_turn`] when nothing else is said: one image
/// at the API's bound, or a few screenshots (a response's images stay in
/// the history and are resent with every later request, as text is).
pub const DEFAULT_MAX_TURN_IMAGE_BYTES: usize = DEFAULT_MAX_IMAGE_BYTES;

/// The bounds on what of the tools' results goes to the model (see the
/// module docs). Text is counted in UTF-8 bytes (text blocks, embedded text
/// resources, resource links, `structuredContent` sent as text); images
/// and other binary data in bytes of base64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResultBudget {
    /// Text of one result.
    pub per_result: usize,
    /// Text of the results of one response, together.
    pub per_turn: usize,
    /// One image or embedded binary resource; a larger one is a note.
    pub per_image: usize,
    /// Images and binary resources of one response's results, together;
    /// those past it are notes.
    pub images_per_turn: usize,
}

impl Default for ResultBudget {
    fn default() -> ResultBudget {
        ResultBudget {
            per_result: DEFAULT_MAX_RESULT_BYTES,
            per_turn: DEFAULT_MAX_TURN_BYTES,
            per_image: DEFAULT_MAX_IMAGE_BYTES,
            images_per_turn: DEFAULT_MAX_TURN_IMAGE_BYTES,
        }
    }
}

impl ResultBudget {
    /// The default budget with `bytes` of text per result and four times
    /// that per response (the `mcp-host` program's `--max-result-bytes`).
    ///
    /// ```
    /// use mcpfn_host::agent::budget::ResultBudget;
    ///
    /// let budget = ResultBudget::per_result(10_000);
    /// assert_eq!((budget.per_result, budget.per_turn), (10_000, 40_000));
    /// ```
    pub fn per_result(bytes: usize) -> ResultBudget {
        ResultBudget {
            per_result: bytes,
            per_turn: bytes.saturating_mul(4),
            ..ResultBudget::default()
        }
    }
}

/// What a budget cuts, for the notes that say so: a tool's result, or a
/// message the host writes into a turn (a prompt's, an attachment's), whose
/// runs are bounded as results are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Subject {
    /// One tool result; the results of one response share the turn's bound.
    Result,
    /// One message of a host-written turn; the turn's messages share it.
    Message,
}

impl Subject {
    /// The noun of one: "result", "message".
    fn one(self) -> &'static str {
        match self {
            Subject::Result => "result",
            Subject::Message => "message",
        }
    }

    /// What shares the turn's bound.
    fn together(self) -> &'static str {
        match self {
            Subject::Result => "the results of one response",
            Subject::Message => "the messages of one turn",
        }
    }

    /// Who gave binary data that is not shown.
    fn giver(self) -> &'static str {
        match self {
            Subject::Result => "The tool returned",
            Subject::Message => "The message held",
        }
    }
}

/// A result cut to its own bound, waiting for its share of the turn's.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    result: CallToolResult,
    /// What it is, for the notes.
    subject: Subject,
    /// The bytes of text the whole result had.
    whole: usize,
    /// The bytes of text kept.
    kept: usize,
}

impl Kept {
    /// Whether the result is an error.
    pub(crate) fn is_error(&self) -> bool {
        self.result.is_error
    }
}

/// The bytes of text of `block` as the model would get them; `None` for an
/// image or binary data.
fn text_len(block: &ContentBlock) -> Option<usize> {
    match block {
        ContentBlock::Text(t) => Some(t.text.len()),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::Text { text, .. } => Some(text.len()),
            ResourceContents::Blob { .. } => None,
        },
        ContentBlock::ResourceLink(link) => Some(call_result::link_text(link).len()),
        ContentBlock::Audio(_) | ContentBlock::Image(_) => None,
    }
}

fn text_block(text: String) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text,
        annotations: None,
        meta: None,
    })
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut_string(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        // The cut is made to free the memory, not only to send less.
        text.shrink_to_fit();
    }
}

/// Keeps at most `max` bytes of text of `content`, in order: the block
/// that passes it is cut, those after it dropped. Returns the bytes kept.
fn keep_text(content: &mut Vec<ContentBlock>, max: usize) -> usize {
    let mut used = 0;
    // Once a block is cut, the text after it goes too: the model reads a
    // prefix, not a prefix with pieces of later blocks.
    let mut full = false;
    content.retain_mut(|block| {
        let Some(len) = text_len(block) else {
            return true;
        };
        if full {
            return false;
        }
        let room = max - used;
        if len <= room {
            used += len;
            return true;
        }
        full = true;
        if room == 0 {
            return false;
        }
        match block {
            ContentBlock::Text(t) => cut_string(&mut t.text, room),
            ContentBlock::Resource(embedded) => {
                if let ResourceContents::Text { text, .. } = &mut embedded.resource {
                    cut_string(text, room);
                }
            }
            ContentBlock::ResourceLink(link) => {
                let mut text = call_result::link_text(link);
                cut_string(&mut text, room);
                *block = text_block(text);
            }
            ContentBlock::Audio(_) | ContentBlock::Image(_) => {}
        }
        used += text_len(block).unwrap_or(0);
        true
    });
    used
}

/// The note that replaces binary data not sent.
fn media_note(block: &ContentBlock, subject: Subject, why: &str) -> Option<String> {
    let (what, mime, len) = match block {
        ContentBlock::Image(image) => ("an image", image.mime_type.as_str(), image.data.len()),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::Blob {
                mime_type, blob, ..
            } => (
                "a binary resource",
                mime_type.as_deref().unwrap_or("no media type"),
                blob.len(),
            ),
            ResourceContents::Text { .. } => return None,
        },
        _ => return None,
    };
    Some(format!(
        "[{} {what} ({mime}, {} bytes of base64) that is not shown: {why}.]",
        subject.giver(),
        grouped(len)
    ))
}

/// The bytes of base64 of an image or binary resource.
fn media_len(block: &ContentBlock) -> Option<usize> {
    match block {
        ContentBlock::Image(image) => Some(image.data.len()),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::Blob { blob, .. } => Some(blob.len()),
            ResourceContents::Text { .. } => None,
        },
        _ => None,
    }
}

impl ResultBudget {
    /// Cuts one result to [`per_result`](Self::per_result) and
    /// [`per_image`](Self::per_image), as soon as it arrives.
    pub(crate) fn keep(&self, result: CallToolResult) -> Kept {
        self.keep_as(result, Subject::Result)
    }

    /// Cuts one `subject` (its blocks as a result's content) as
    /// [`keep`](Self::keep) cuts a result.
    pub(crate) fn keep_as(&self, mut result: CallToolResult, subject: Subject) -> Kept {
        if result.content.is_empty()
            && let Some(structured) = result.structured_content.take()
        {
            // What the model would get anyway (the conversions send a
            // result of only `structuredContent` as its JSON text), as a
            // block that can be cut.
            let text = serde_json::to_string(&structured).unwrap_or_default();
            result.content.push(text_block(text));
        }
        for block in &mut result.content {
            match block {
                ContentBlock::Audio(audio) => *block = text_block(call_result::audio_note(audio)),
                _ if media_len(block).is_some_and(|len| len > self.per_image) => {
                    let why = format!(
                        "the host sends images and binary data of at most {} bytes of base64",
                        grouped(self.per_image)
                    );
                    if let Some(note) = media_note(block, subject, &why) {
                        *block = text_block(note);
                    }
                }
                _ => {}
            }
        }
        let whole = result.content.iter().filter_map(text_len).sum();
        let kept = keep_text(&mut result.content, self.per_result);
        Kept {
            result,
            subject,
            whole,
            kept,
        }
    }

    /// One response's results, each cut to its share of
    /// [`per_turn`](Self::per_turn) and the images to
    /// [`images_per_turn`](Self::images_per_turn), with a note on each
    /// result that lost something.
    pub(crate) fn share(&self, results: Vec<Kept>) -> Vec<CallToolResult> {
        let caps = shares(
            &results.iter().map(|k| k.kept).collect::<Vec<_>>(),
            self.per_turn,
        );
        let mut images_left = self.images_per_turn;
        results
            .into_iter()
            .zip(caps)
            .map(|(mut kept, cap)| {
                let kept_bytes = keep_text(&mut kept.result.content, cap);
                let subject = kept.subject;
                for block in &mut kept.result.content {
                    let Some(len) = media_len(block) else {
                        continue;
                    };
                    if len <= images_left {
                        images_left -= len;
                        continue;
                    }
                    let why = match subject {
                        Subject::Result => format!(
                            "the results of this response already had the {} bytes of images and binary data the host sends for one response",
                            grouped(self.images_per_turn)
                        ),
                        Subject::Message => format!(
                            "the messages of this turn already had the {} bytes of images and binary data the host sends for one turn",
                            grouped(self.images_per_turn)
                        ),
                    };
                    if let Some(note) = media_note(block, subject, &why) {
                        *block = text_block(note);
                    }
                }
                let cut = kept.whole - kept_bytes;
                if cut > 0 {
                    let bound = if cap < kept.kept {
                        format!(
                            "the host sends at most {} bytes of {}, {} of this one",
                            grouped(self.per_turn),
                            subject.together(),
                            grouped(cap)
                        )
                    } else {
                        format!(
                            "the host sends at most {} bytes of one {}",
                            grouped(self.per_result),
                            subject.one()
                        )
                    };
                    kept.result.content.push(text_block(format!(
                        "[… {} bytes of this {} were cut: {bound}]",
                        grouped(cut),
                        subject.one()
                    )));
                }
                kept.result
            })
            .collect()
    }
}

/// Each size's share of `total`: sizes that fit an equal share keep all of
/// themselves, and what they leave is shared equally among the others.
fn shares(sizes: &[usize], total: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| sizes[i]);
    let mut caps = vec![0; sizes.len()];
    let mut left = total;
    for (done, &i) in order.iter().enumerate() {
        let share = left / (sizes.len() - done);
        caps[i] = sizes[i].min(share);
        left -= caps[i];
    }
    caps
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpfn_protocol::model::{AudioContent, ImageContent};

    fn text(text: &str) -> ContentBlock {
        text_block(text.to_owned())
    }

    fn texts(result: &CallToolResult) -> Vec<&str> {
        result
            .content
            .iter()
            .map(|b| match b {
                ContentBlock::Text(t) => t.text.as_str(),
                _ => "<other>",
            })
            .collect()
    }

    fn budget(per_result: usize, per_turn: usize) -> ResultBudget {
        ResultBudget {
            per_result,
            per_turn,
            per_image: 8,
            images_per_turn: 12,
        }
    }

    #[test]
    fn shares_give_small_results_all_and_split_the_rest() {
        assert_eq!(shares(&[10, 100, 100], 90), vec![10, 40, 40]);
        assert_eq!(shares(&[5, 5], 100), vec![5, 5]);
        assert_eq!(shares(&[50, 50, 50], 10), vec![3, 3, 4]);
        assert_eq!(shares(&[], 10), Vec::<usize>::new());
    }

    #[test]
    fn a_result_is_cut_at_a_character_and_says_how_much() {
        let b = budget(10, 100);
        let result = CallToolResult {
            content: vec![text("北京今天晴"), text("second")],
            ..Default::default()
        };
        let out = b.share(vec![b.keep(result)]);
        assert_eq!(out.len(), 1);
        assert_eq!(
            texts(&out[0]),
            [
                "北京今",
                "[… 12 bytes of this result were cut: the host sends at most 10 bytes of one result]"
            ]
        );
        let small = b.share(vec![b.keep(CallToolResult::text("fine"))]);
        assert_eq!(small[0], CallToolResult::text("fine"));
    }

    #[test]
    fn the_turn_is_shared_and_the_note_names_the_share() {
        let b = budget(100, 30);
        let big = || CallToolResult::text("x".repeat(200));
        let out = b.share(vec![
            b.keep(big()),
            b.keep(CallToolResult::text("tiny")),
            b.keep(big()),
        ]);
        assert_eq!(texts(&out[1]), ["tiny"]);
        assert_eq!(texts(&out[0])[0].len(), 13);
        assert_eq!(
            texts(&out[2])[1],
            "[… 187 bytes of this result were cut: the host sends at most 30 bytes of the results of one response, 13 of this one]"
        );
    }

    #[test]
    fn images_past_their_bounds_and_audio_become_notes_and_structured_content_is_cut() {
        let b = budget(1000, 1000);
        let image = |data: &str| {
            ContentBlock::Image(ImageContent {
                data: data.to_owned(),
                mime_type: "image/png".into(),
                annotations: None,
                meta: None,
            })
        };
        let result = CallToolResult {
            content: vec![
                image("AAAAAAAAAAAA"),
                image("AAAAAAAA"),
                ContentBlock::Audio(AudioContent {
                    data: "AAAA".into(),
                    mime_type: "audio/wav".into(),
                    annotations: None,
                    meta: None,
                }),
            ],
            ..Default::default()
        };
        let second = CallToolResult {
            content: vec![image("BBBBBBBB")],
            ..Default::default()
        };
        let out = b.share(vec![b.keep(result), b.keep(second)]);
        let notes = texts(&out[0]);
        assert!(notes[0].starts_with("[The tool returned an image (image/png, 12 bytes of base64) that is not shown: the host sends images and binary data of at most 8 bytes"), "{notes:?}");
        assert_eq!(notes[1], "<other>");
        assert!(
            notes[2].starts_with("[The tool returned audio (audio/wav"),
            "{notes:?}"
        );
        assert_eq!(notes.len(), 3, "nothing cut: {notes:?}");
        assert!(texts(&out[1])[0].contains("already had the 12 bytes of images"));

        let b = budget(10, 100);
        let structured = CallToolResult {
            structured_content: Some(serde_json::json!({"rows": "y".repeat(50)})),
            ..Default::default()
        };
        let out = b.share(vec![b.keep(structured)]);
        assert_eq!(
            texts(&out[0]),
            [
                "{\"rows\":\"y",
                "[… 51 bytes of this result were cut: the host sends at most 10 bytes of one result]"
            ]
        );
        assert!(out[0].structured_content.is_none());
    }

    #[test]
    fn embedded_text_and_links_count_as_text_and_are_cut_too() {
        use mcpfn_protocol::model::{EmbeddedResource, ResourceLinkContent};
        let b = budget(40, 100);
        let result = CallToolResult {
            content: vec![
                ContentBlock::Resource(EmbeddedResource {
                    resource: ResourceContents::Text {
                        uri: "file:///a.txt".into(),
                        mime_type: None,
                        text: "a".repeat(30),
                        meta: None,
                    },
                    annotations: None,
                    meta: None,
                }),
                ContentBlock::ResourceLink(ResourceLinkContent {
                    uri: "file:///b.txt".into(),
                    name: "b".into(),
                    title: None,
                    description: Some("d".repeat(100)),
                    mime_type: None,
                    size: None,
                    annotations: None,
                    meta: None,
                }),
            ],
            ..Default::default()
        };
        let out = b.share(vec![b.keep(result)]);
        let ContentBlock::Resource(embedded) = &out[0].content[0] else {
            panic!("{:?}", out[0]);
        };
        assert!(
            matches!(&embedded.resource, ResourceContents::Text { text, .. } if text.len() == 30)
        );
        // The link became its text, cut to the 10 bytes left.
        assert_eq!(texts(&out[0])[1], "Resource l");
        assert_eq!(
            texts(&out[0])[2],
            "[… 123 bytes of this result were cut: the host sends at most 40 bytes of one result]"
        );
    }
}
