//! The conversion of plain return values into content blocks. (The blocks,
//! their builders and how each revision reads them are in
//! [`mcpfn_protocol::content`].)

pub use mcpfn_protocol::content::{Audience, Content};

/// Return values a tool renders as content blocks rather than structured output.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool] as content",
    label = "return a String, (), Content, Vec<Content>, or a type implementing Serialize + JsonSchema"
)]
pub trait IntoContent {
    /// The blocks.
    fn into_content(self) -> Vec<Content>;
}

impl IntoContent for String {
    fn into_content(self) -> Vec<Content> {
        vec![Content::text(self)]
    }
}

impl IntoContent for &str {
    fn into_content(self) -> Vec<Content> {
        vec![Content::text(self)]
    }
}

impl IntoContent for () {
    fn into_content(self) -> Vec<Content> {
        Vec::new()
    }
}

impl IntoContent for Content {
    fn into_content(self) -> Vec<Content> {
        vec![self]
    }
}

impl IntoContent for Vec<Content> {
    fn into_content(self) -> Vec<Content> {
        self
    }
}
