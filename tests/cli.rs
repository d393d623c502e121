//! Command-line handling is explicit: `mcpfn_runtime::cli::run` reads argv
//! (`--dump-tools`), `Server::serve_stdio` never does.
//!
//! The test runs its own binary a second time as the server (the
//! `MCP_CLI_CHILD` variable says which entry point, the arguments are the
//! server's), so it needs no harness: `main` is either the test or the server.

use mcpfn_runtime::{Server, tool, tools};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Say hello.
#[tool]
async fn hello(name: String) -> String {
    format!("Hello, {name}!")
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"0"}}}"#;

/// Runs this binary as a server started through `entry` with `args`, sends
/// `input` and closes stdin.
fn run_child(entry: &str, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .args(args)
        .env("MCP_CLI_CHILD", entry)
        .env("MCP_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test binary runs");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // A child that does not serve may exit before reading: a closed pipe here
    // is its answer, checked by the caller.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("the child ends")
}

fn stdout_lines(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .expect("UTF-8 stdout")
        .lines()
        .map(|line| serde_json::from_str(line).expect("stdout holds JSON lines"))
        .collect()
}

/// `--dump-tools` on the command line of a program that calls `serve_stdio`
/// itself is the program's business: the server serves.
fn serve_stdio_ignores_the_dump_flag() {
    let output = run_child("serve_stdio", &["--dump-tools"], &format!("{INITIALIZE}\n"));
    assert!(output.status.success(), "{output:?}");
    let lines = stdout_lines(&output);
    assert_eq!(lines.len(), 1, "one response, no dump: {lines:?}");
    assert_eq!(lines[0]["id"], 1);
    assert_eq!(lines[0]["result"]["serverInfo"]["name"], "cli");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("bytes"), "no size report: {stderr}");
}

/// `cli::run` with the flag prints the dump and serves nothing.
fn cli_run_dumps_on_the_flag() {
    let output = run_child("cli", &["--dump-tools", "anthropic"], "");
    assert!(output.status.success(), "{output:?}");
    let dump: Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    assert_eq!(dump[0]["name"], "hello");
    assert!(dump[0]["input_schema"].is_object(), "{dump}");
}

/// `cli::run` without the flag serves, whatever else is on the command line.
fn cli_run_serves_without_the_flag() {
    let output = run_child(
        "cli",
        &["--verbose", "dump-tools"],
        &format!("{INITIALIZE}\n"),
    );
    assert!(output.status.success(), "{output:?}");
    let lines = stdout_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["result"]["serverInfo"]["name"], "cli");
}

/// An unknown format: `error: …` on stderr, status 2, nothing on stdout.
fn cli_run_refuses_an_unknown_format() {
    let output = run_child("cli", &["--dump-tools=yaml"], "");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: unknown dump format `yaml`"),
        "{stderr}"
    );
}

fn main() {
    if let Ok(entry) = std::env::var("MCP_CLI_CHILD") {
        let server = Server::new("cli", "1").tools(tools![hello]);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let result = match entry.as_str() {
            "serve_stdio" => runtime.block_on(server.serve_stdio()),
            "cli" => runtime.block_on(mcpfn_runtime::cli::run(server)),
            other => panic!("unknown entry point {other}"),
        };
        result.expect("the server ends cleanly");
        return;
    }
    for (name, test) in [
        (
            "serve_stdio_ignores_the_dump_flag",
            serve_stdio_ignores_the_dump_flag as fn(),
        ),
        ("cli_run_dumps_on_the_flag", cli_run_dumps_on_the_flag),
        (
            "cli_run_serves_without_the_flag",
            cli_run_serves_without_the_flag,
        ),
        (
            "cli_run_refuses_an_unknown_format",
            cli_run_refuses_an_unknown_format,
        ),
    ] {
        test();
        println!("{name} ... ok");
    }
}
