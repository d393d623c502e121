//! The line editor as a person meets it: the program on a real
//! pseudo-terminal (util-linux `script`) that is its stdin and stdout, the
//! keys typed one step at a time, Tab among them; what the terminal shows
//! and what the scripted model API was sent are checked.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Reply, claude_events, claude_message, text_block, unmarked,
};
use common::terminal::Session;
use serde_json::json;

/// An answer streamed, as the program at a terminal asks for them.
fn end(text: &str) -> Reply {
    Reply::sse(claude_events(&claude_message(
        json!([text_block(text)]),
        "end_turn",
        1,
        1,
    )))
}

#[test]
fn tab_completes_a_command_and_a_server_and_the_line_is_sent() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![end("noted")]);
    let mut session = Session::start(&config, &["--approve", "all", "--quiet"], &fake);
    session.wait_for("> ");
    session.type_keys(b"/to\t");
    session.wait_for("/tools");
    session.type_keys(b"\r");
    session.wait_for("everything: ");
    session.wait_for("> ");
    // `@ev` Tab: the server's name and its colon; then plain text.
    session.type_keys(b"say hi to @ev\t");
    session.wait_for("say hi to @everything:");
    session.type_keys(b"x\r");
    session.wait_for("noted");
    session.wait_for("> ");
    session.type_keys(b"\x04");
    let run = session.finish();
    assert_eq!(run.stderr, "", "{}", run.shown);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{}", run.shown);
    assert_eq!(
        unmarked(&requests[0].body["messages"])[0]["content"],
        json!([{"type": "text", "text": "say hi to @everything:x"}])
    );
}
