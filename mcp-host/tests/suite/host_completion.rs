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
    // `@ev` Tab: the server's name and its colon; then one of its URIs.
    session.type_keys(b"say hi to @ev\t");
    session.wait_for("say hi to @everything:");
    session.type_keys(b"everything://ab\t");
    session.wait_for("say hi to @everything:everything://about ");
    session.type_keys(b"\r");
    session.wait_for("noted");
    session.wait_for("> ");
    session.type_keys(b"\x04");
    let run = session.finish();
    assert_eq!(run.stderr, "", "{}", run.shown);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{}", run.shown);
    assert_eq!(
        unmarked(&requests[0].body["messages"])[0]["content"][0],
        json!({"type": "text", "text": "say hi to @everything:everything://about "})
    );
}

#[test]
fn tab_completes_a_prompt_its_arguments_and_their_values_from_the_server() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![end("Bonjour")]);
    let mut session = Session::start(&config, &["--approve", "all", "--quiet"], &fake);
    session.wait_for("> ");
    session.type_keys(b"/prompt tr\t");
    session.wait_for("/prompt translate ");
    // The argument names, then a value from `completion/complete`.
    session.type_keys(b"te\t");
    session.wait_for("/prompt translate text=");
    session.type_keys(b"\"Good morning\" language=Fr\t");
    session.wait_for("language=French ");
    session.type_keys(b"\r");
    session.wait_for("Bonjour");
    session.wait_for("> ");
    session.type_keys(b"\x04");
    let run = session.finish();
    assert_eq!(run.stderr, "", "{}", run.shown);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{}", run.shown);
    assert_eq!(
        unmarked(&requests[0].body["messages"]),
        json!([{"role": "user", "content": [
            {"type": "text", "text": "Translate the text below into French. Answer with the translation only."},
            {"type": "text", "text": "Good morning"}
        ]}])
    );
}

/// mcp-host/tests/everything-ts with its `node_modules` installed from the
/// lock file (the official TypeScript everything server), as the OIDC
/// tests install theirs: skipped when the stamp of the last install
/// matches the lock, a file lock against two installs at once. Node.js
/// >= 20 with npm on `PATH`; the test fails without them.
fn everything_ts() -> &'static std::path::Path {
    use std::path::{Path, PathBuf};
    static READY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    READY.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = root.join("tests/everything-ts");
        let lock = std::fs::read(dir.join("package-lock.json"))
            .expect("tests/everything-ts/package-lock.json");
        let stamp = dir.join("node_modules").join(".everything-ts-installed");
        let installed = || std::fs::read(&stamp).is_ok_and(|have| have == lock);
        if !installed() {
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| root.join("../target"), PathBuf::from);
            std::fs::create_dir_all(&target).expect("the target directory");
            let guard = std::fs::File::create(target.join("everything-ts-install.lock"))
                .expect("the install lock");
            guard.lock().expect("the install lock is taken");
            if !installed() {
                let output = std::process::Command::new("npm")
                    .args(["ci", "--no-audit", "--no-fund"])
                    .current_dir(&dir)
                    .stdin(std::process::Stdio::null())
                    .output()
                    .expect("npm runs (install Node.js >= 20 with npm)");
                assert!(
                    output.status.success(),
                    "npm ci in mcp-host/tests/everything-ts failed:\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
                std::fs::write(&stamp, &lock).expect("the npm install stamp");
            }
        }
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist")
    })
}

/// The TypeScript server lists a tool that runs only as a task, which the
/// client leaves out with a warning: errors only on stderr.
const TS_ARGS: &[&str] = &["--approve", "all", "--log-level", "error"];

/// An `mcp.json` with the TypeScript everything server as `ts`.
fn ts_config() -> McpConfig {
    let index = everything_ts().join("index.js");
    McpConfig::new(&json!({"mcpServers": {"ts": {
        "command": "node",
        "args": [index.to_str().unwrap(), "stdio"]
    }}}))
}

#[test]
fn the_typescript_everything_server_completes_a_prompt_whose_values_depend_on_another() {
    let config = ts_config();
    let fake = FakeModel::start(vec![end("Done.")]);
    let mut session = Session::start(&config, TS_ARGS, &fake);
    session.wait_for("> ");
    session.type_keys(b"/prompt comp\t");
    session.wait_for("/prompt completable-prompt ");
    session.type_keys(b"department=Eng\t");
    session.wait_for("department=Engineering ");
    // `name`'s values follow the department given (the context).
    session.type_keys(b"name=\t");
    session.wait_for("name=");
    session.type_keys(b"\t");
    session.wait_for("Alice");
    session.wait_for("Bob");
    session.wait_for("Charlie");
    session.type_keys(b"A\t");
    session.wait_for("name=Alice ");
    session.type_keys(b"\r");
    session.wait_for("Done.");
    session.wait_for("> ");
    session.type_keys(b"\x04");
    let run = session.finish();
    assert_eq!(run.stderr, "", "{}", run.shown);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{}", run.shown);
    assert_eq!(
        unmarked(&requests[0].body["messages"]),
        json!([{"role": "user", "content": [
            {"type": "text", "text": "Please promote Alice to the head of the Engineering team."}
        ]}])
    );
}

#[test]
fn the_typescript_everything_servers_resource_is_completed_and_attached() {
    let config = ts_config();
    let fake = FakeModel::start(vec![end("Read it.")]);
    let mut session = Session::start(&config, TS_ARGS, &fake);
    session.wait_for("> ");
    session.type_keys(b"summarize @ts:demo://resource/static/document/feat\t");
    session.wait_for("@ts:demo://resource/static/document/features.md ");
    session.type_keys(b"briefly\r");
    session.wait_for("Read it.");
    session.wait_for("> ");
    session.type_keys(b"\x04");
    let run = session.finish();
    assert_eq!(run.stderr, "", "{}", run.shown);
    let features = std::fs::read_to_string(everything_ts().join("docs/features.md")).unwrap();
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{}", run.shown);
    assert_eq!(
        unmarked(&requests[0].body["messages"]),
        json!([{"role": "user", "content": [
            {"type": "text", "text": "summarize @ts:demo://resource/static/document/features.md briefly"},
            {"type": "text", "text": "[Attached: the resource <demo://resource/static/document/features.md> of server `ts`.]"},
            {"type": "text", "text": format!("Resource <demo://resource/static/document/features.md>:\n{features}")}
        ]}])
    );
}

#[test]
fn a_server_that_never_answers_a_completion_does_not_stop_the_typing() {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/hostile_surface.py");
    let config = McpConfig::new(&json!({"mcpServers": {"hostile": {
        "command": "python3",
        "args": [script.to_str().unwrap()]
    }}}));
    let fake = FakeModel::start(vec![]);
    let mut session = Session::start(&config, &["--approve", "all", "--quiet"], &fake);
    session.wait_for("> ");
    // The argument's name comes from the prompt's listing; its value from
    // `completion/complete`, which this server never answers.
    session.type_keys(b"/prompt flood \t");
    session.wait_for("/prompt flood x=");
    let asked = std::time::Instant::now();
    session.type_keys(b"a\tbc");
    // No candidates: the bell, then the keys after Tab.
    session.wait_for("a\x07bc");
    let waited = asked.elapsed();
    assert!(
        waited < std::time::Duration::from_secs(5),
        "typing waited {waited:?} for a server"
    );
    // Ctrl-U clears the line, Ctrl-D on the empty line ends the input.
    session.type_keys(b"\x15\x04");
    let run = session.finish();
    assert_eq!(run.stderr, "", "{}", run.shown);
    assert!(fake.requests().is_empty());
}
