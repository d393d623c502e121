//! Interrupted lines, through the real `mcp-host` program (SIGINT sent
//! with `kill`), the `everything` example over stdio and a scripted model
//! API: the first SIGINT during a line cancels the calls under way (the
//! server sees `notifications/cancelled`: its `slow` says so on stderr,
//! which the host logs) or the model request under way, the history the
//! next line sends is valid (a finished call keeps its result, the
//! cancelled one gets a result saying so; a line whose request was cut is
//! dropped), and the next SIGINT (in the same line or between lines)
//! ends the program with 130 after closing the servers.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Reply, claude_message, host_binary, text_block, tool_use,
};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const CLAUDE_KEY: &str = "sk-ant-test-key";

/// How long any one step may take before the test fails.
const STEP: Duration = Duration::from_secs(30);

/// The program running, its stdin open, its stdout lines and its stderr
/// read as they come.
struct Running {
    child: Child,
    stdin: ChildStdin,
    stdout: std::sync::mpsc::Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Running {
    fn start(config: &McpConfig, fake: &FakeModel) -> Running {
        let mut child = Command::new(host_binary())
            .args(["--config", config.arg(), "--approve", "all", "--json"])
            .args(["--close-grace", "1", "--no-cache"])
            .env("ANTHROPIC_BASE_URL", &fake.base_url)
            .env("ANTHROPIC_API_KEY", CLAUDE_KEY)
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (lines, stdout) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let log = Arc::clone(&stderr);
        let mut err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = err.read(&mut chunk) {
                log.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&chunk[..n]));
            }
        });
        Running {
            child,
            stdin,
            stdout,
            stderr,
        }
    }

    fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn say(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Waits until stderr holds `text` `times` times.
    fn wait_log(&self, text: &str, times: usize) {
        let deadline = Instant::now() + STEP;
        while self.log().matches(text).count() < times {
            assert!(
                Instant::now() < deadline,
                "no {text:?} (x{times}) on stderr:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The next `--json` line.
    fn answer(&self) -> Value {
        let line = self
            .stdout
            .recv_timeout(STEP)
            .unwrap_or_else(|e| panic!("no answer ({e}); stderr:\n{}", self.log()));
        serde_json::from_str(&line).unwrap()
    }

    fn sigint(&self) {
        let sent = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }

    fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + STEP;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the host did not exit; stderr:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn waits_for_requests(fake: &FakeModel, count: usize) {
    let deadline = Instant::now() + STEP;
    while fake.requests().len() < count {
        assert!(Instant::now() < deadline, "{count} requests not received");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn end(text: &str) -> Reply {
    Reply::ok(claude_message(json!([text_block(text)]), "end_turn", 1, 1))
}

/// A reply sent only after the test is over: the line waits on it.
fn never(text: &str) -> Reply {
    end(text).after(Duration::from_secs(120))
}

#[test]
fn sigint_interrupts_the_line_keeps_a_valid_history_and_a_second_one_exits() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([
                text_block("Both at once."),
                tool_use("toolu_echo", "echo", json!({"text": "quick"})),
                tool_use("toolu_slow", "slow", json!({"ms": 60000, "steps": 600})),
            ]),
            "tool_use",
            1,
            1,
        )),
        end("second answer"),
        never("third answer, never seen"),
        end("fourth answer"),
        never("fifth answer, never seen"),
    ]);
    let mut host = Running::start(&config, &fake);

    // Interrupted while `slow` runs: the server is told, and says so.
    host.say("line one");
    // Interrupted once `echo` has its result and `slow` is under way (its
    // "cancelled" line below shows the server had it).
    host.wait_log("calling tool=slow", 1);
    host.wait_log("call done tool=echo", 1);
    host.sigint();
    host.wait_log("slow: cancelled by the client after", 1);
    let first = host.answer();
    assert_eq!(first["stop_reason"], "interrupted", "{first}");
    assert_eq!(
        first["tool_calls"],
        json!([
            {"name": "echo", "server": "everything", "is_error": false},
            {"name": "slow", "server": "everything", "is_error": true},
        ])
    );
    assert!(
        host.log()
            .contains("mcp-host: interrupted (SIGINT): `line one`: its 2 tool calls are kept in the history; Ctrl-C again while a line runs ends the program\n"),
        "{}",
        host.log()
    );

    // The next line: the round stays, each call with its result.
    host.say("line two");
    assert_eq!(host.answer()["text"], "second answer");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let messages = &requests[1].body["messages"];
    assert_eq!(messages.as_array().unwrap().len(), 3, "{messages}");
    assert_eq!(messages[0], json!({"role": "user", "content": "line one"}));
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [
            text_block("Both at once."),
            tool_use("toolu_echo", "echo", json!({"text": "quick"})),
            tool_use("toolu_slow", "slow", json!({"ms": 60000, "steps": 600})),
        ]})
    );
    // One user message: both results in the calls' order, then the line.
    let content = messages[2]["content"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(content.len(), 3, "{content:?}");
    assert_eq!(content[0]["tool_use_id"], "toolu_echo");
    assert_ne!(content[0]["is_error"], true);
    assert!(content[0]["content"].to_string().contains("quick"));
    assert_eq!(content[1]["tool_use_id"], "toolu_slow");
    assert_eq!(content[1]["is_error"], true);
    assert!(
        content[1]["content"]
            .to_string()
            .contains("The user interrupted this call before it returned a result"),
        "{}",
        content[1]
    );
    assert_eq!(content[2], text_block("line two"));

    // Interrupted while the model request is under way: the line is
    // dropped, and the next request goes on from the second answer.
    host.say("line three");
    waits_for_requests(&fake, 3);
    host.sigint();
    let third = host.answer();
    assert_eq!(third["stop_reason"], "interrupted", "{third}");
    assert_eq!(third["tool_calls"], json!([]));
    host.wait_log(
        "mcp-host: interrupted (SIGINT): `line three`: the line is dropped from the conversation",
        1,
    );
    host.say("line four");
    assert_eq!(host.answer()["text"], "fourth answer");
    let requests = fake.requests();
    let mut expected = messages.as_array().unwrap().clone();
    expected.push(json!({"role": "assistant", "content": [text_block("second answer")]}));
    expected.push(json!({"role": "user", "content": "line four"}));
    assert_eq!(requests[3].body["messages"], Value::Array(expected));

    // Once the line is interrupted, the next SIGINT ends the program,
    // the servers closed first.
    host.say("line five");
    waits_for_requests(&fake, 5);
    host.sigint();
    host.wait_log("mcp-host: interrupted (SIGINT)", 3);
    assert_eq!(host.answer()["stop_reason"], "interrupted");
    assert!(host.child.try_wait().unwrap().is_none(), "{}", host.log());
    host.sigint();
    let status = host.wait_exit();
    assert_eq!(status.code(), Some(130), "{status:?}\n{}", host.log());
    assert!(
        host.log()
            .contains("mcp-host: SIGINT: closing the servers (again to kill them at once)"),
        "{}",
        host.log()
    );
}
