//! The Tasks extension (`io.modelcontextprotocol/tasks`) from the client's
//! side, over real stdio and Streamable HTTP: a hand-written server
//! (tests/interop/tasks.py) answers `tools/call` with tasks and logs every
//! message it receives, and `McpClient::call_tool` must turn each task into
//! an ordinary result or error; then the runtime's own tasks (the
//! `conformance` example's fixtures) end to end.

use crate::common;

use common::{run, text};
use mcpfn_client::ClientError;
use mcpfn_client::{CallOptions, ClientOptions, ElicitFn, McpClient, McpError, Mode};
use mcpfn_client::{Endpoint, ServerConfig};
use mcpfn_protocol::model::{ElicitAction, ElicitResult, ProgressParams};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const EXTENSION: &str = "io.modelcontextprotocol/tasks";
const CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/tasks.py")
}

/// A fresh log file for one server, removed when the test ends.
struct LogFile(PathBuf);

impl std::ops::Deref for LogFile {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for LogFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn log_file() -> LogFile {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "mcp-host-tasks-{}-{}.jsonl",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_file(&path);
    LogFile(path)
}

/// One message the server received.
#[derive(Clone, Debug)]
struct Logged {
    /// When (seconds, the server's monotonic clock).
    t: f64,
    message: Value,
    headers: BTreeMap<String, String>,
}

impl Logged {
    fn method(&self) -> &str {
        self.message["method"].as_str().unwrap_or("")
    }
}

fn read_log(path: &Path) -> Vec<Logged> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|line| !line.is_empty())
        .map(|line| {
            let entry: Value = serde_json::from_str(line).unwrap();
            Logged {
                t: entry["t"].as_f64().unwrap(),
                message: entry["message"].clone(),
                headers: serde_json::from_value(entry["headers"].clone()).unwrap(),
            }
        })
        .collect()
}

fn of<'a>(log: &'a [Logged], method: &str) -> Vec<&'a Logged> {
    log.iter().filter(|l| l.method() == method).collect()
}

/// Waits until the server logged `count` messages of `method`.
async fn wait_for(path: &Path, method: &str, count: usize) -> Vec<Logged> {
    for _ in 0..200 {
        let log = read_log(path);
        if of(&log, method).len() >= count {
            return log;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "the server never received {count} {method}: {:#?}",
        read_log(path)
    );
}

fn stdio(log: &Path, legacy: bool) -> ServerConfig {
    let mut env = BTreeMap::from([("TASKS_LOG".to_owned(), log.to_string_lossy().into_owned())]);
    if legacy {
        env.insert("TASKS_LEGACY".to_owned(), "1".to_owned());
    }
    ServerConfig {
        name: "tasks".to_owned(),
        transport: Endpoint::Stdio {
            command: "python3".into(),
            args: vec![script().to_string_lossy().into_owned()],
            env,
            cwd: None,
            inherit_env: false,
        },
        trusted: true,
    }
}

/// Answers "Your name?" with Luca and "Your colour?" with teal, recording
/// every question.
fn answers(asked: Arc<Mutex<Vec<String>>>) -> ElicitFn {
    Arc::new(move |params| {
        asked.lock().unwrap().push(params.message.clone());
        let content = match params.message.as_str() {
            "Your name?" => json!({"name": "Luca"}),
            _ => json!({"color": "teal"}),
        };
        Box::pin(async move {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: content.as_object().cloned(),
            })
        })
    })
}

async fn connect(config: ServerConfig, asked: Arc<Mutex<Vec<String>>>) -> McpClient {
    let options = ClientOptions {
        elicitation: Some(answers(asked)),
        ..ClientOptions::mode(Mode::Modern)
    };
    McpClient::connect_with(config, options)
        .await
        .expect("connects")
}

fn declares_tasks(message: &Value) -> bool {
    message["params"]["_meta"][CAPABILITIES]["extensions"]
        .get(EXTENSION)
        .is_some_and(|v| v == &json!({}))
}

/// A progress callback collecting the messages it gets.
fn progress() -> (CallOptions, Arc<Mutex<Vec<ProgressParams>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = CallOptions {
        timeout: None,
        progress: Some(Arc::new(move |p: ProgressParams| {
            sink.lock().unwrap().push(p)
        })),
    };
    (options, seen)
}

/// Checks a whole `flow` exchange: the result, the progress, and every
/// request the client sent. Returns the task's id.
fn check_flow(
    result: &mcpfn_protocol::model::CallToolResult,
    log: &[Logged],
    asked: &[String],
    progress: &[ProgressParams],
) -> String {
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(result), "Hello, Luca (teal)");
    assert_eq!(
        result.structured_content,
        Some(json!({"greeting": "Hello, Luca (teal)"}))
    );
    // Each question asked once, though `name` was shown in two polls.
    assert_eq!(asked, ["Your name?", "Your colour?"]);
    let call = of(log, "tools/call");
    assert_eq!(call.len(), 1);
    assert!(declares_tasks(&call[0].message), "{:?}", call[0].message);
    let gets = of(log, "tasks/get");
    let updates = of(log, "tasks/update");
    assert_eq!((gets.len(), updates.len()), (5, 2), "{log:#?}");
    let task_id = gets[0].message["params"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(task_id.starts_with("task-flow-"));
    for request in gets.iter().chain(&updates) {
        assert_eq!(request.message["params"]["taskId"], task_id.as_str());
        // The envelope on every request, declaring the extension.
        assert!(declares_tasks(&request.message), "{:?}", request.message);
    }
    let keys = |u: &Logged| -> Vec<String> {
        u.message["params"]["inputResponses"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(keys(updates[0]), ["name"]);
    assert_eq!(keys(updates[1]), ["color"]);
    assert_eq!(
        updates[0].message["params"]["inputResponses"]["name"],
        json!({"action": "accept", "content": {"name": "Luca"}})
    );
    // The cadence is the server's pollIntervalMs of the answer before:
    // 100 ms (the created task), 100, then 200 ms.
    let mut times = vec![call[0].t];
    times.extend(gets.iter().map(|g| g.t));
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    for (gap, interval) in gaps.iter().zip([0.1, 0.1, 0.2, 0.2, 0.2]) {
        assert!(*gap >= interval - 0.005, "gaps {gaps:?}");
    }
    assert!(of(log, "notifications/cancelled").is_empty());
    assert!(of(log, "tasks/cancel").is_empty());
    let messages: Vec<&str> = progress
        .iter()
        .map(|p| p.message.as_deref().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "accepted",
            "starting",
            "halfway",
            "waiting for a name",
            "waiting for a colour"
        ]
    );
    let counts: Vec<f64> = progress.iter().map(|p| p.progress).collect();
    assert_eq!(counts, [1.0, 2.0, 3.0, 4.0, 5.0]);
    task_id
}

#[test]
fn a_task_is_driven_to_its_result_over_stdio() {
    run(async {
        let log = log_file();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let client = connect(stdio(&log, false), Arc::clone(&asked)).await;
        let (options, seen) = progress();
        let result = client
            .call_tool("flow", None, options)
            .await
            .expect("the task completes");
        let log = read_log(&log);
        check_flow(&result, &log, &asked.lock().unwrap(), &seen.lock().unwrap());
        // stdio has no headers to route by.
        assert!(log.iter().all(|l| l.headers.is_empty()));
    });
}

#[test]
fn a_completed_tasks_result_is_checked_against_the_output_schema() {
    run(async {
        let log = log_file();
        let client = connect(stdio(&log, false), Arc::default()).await;
        let result = client
            .call_tool("bad-output", None, CallOptions::default())
            .await
            .unwrap();
        assert!(result.is_error);
        assert!(text(&result).contains("output schema"), "{result:?}");
    });
}

#[test]
fn a_failed_task_is_its_json_rpc_error() {
    run(async {
        let log = log_file();
        let client = connect(stdio(&log, false), Arc::default()).await;
        let error = client
            .call_tool("fail", None, CallOptions::default())
            .await
            .unwrap_err();
        let McpError::Client(ClientError::Rpc(rpc)) = &error else {
            panic!("{error:?}");
        };
        assert_eq!(rpc.code, -32603);
        assert_eq!(rpc.message, "API rate limit exceeded");
        assert_eq!(rpc.data, Some(json!({"retryAfter": 30})));
        // A task that ended is not cancelled.
        let log = read_log(&log);
        assert!(of(&log, "tasks/cancel").is_empty());
        assert!(of(&log, "notifications/cancelled").is_empty());
    });
}

#[test]
fn a_cancelled_or_forgotten_task_ends_the_call_naming_it() {
    run(async {
        let log = log_file();
        let client = connect(stdio(&log, false), Arc::default()).await;
        let error = client
            .call_tool("cancelled", None, CallOptions::default())
            .await
            .unwrap_err();
        let McpError::TaskEnded {
            task_id, reason, ..
        } = &error
        else {
            panic!("{error:?}");
        };
        assert!(task_id.starts_with("task-cancelled-"));
        assert_eq!(
            reason,
            "was cancelled by the server: an operator stopped it"
        );

        let error = client
            .call_tool("expire", None, CallOptions::default())
            .await
            .unwrap_err();
        let McpError::TaskEnded {
            task_id, reason, ..
        } = &error
        else {
            panic!("{error:?}");
        };
        assert!(task_id.starts_with("task-expire-"));
        assert!(
            reason.contains("unknown to the server") && reason.contains("-32602"),
            "{reason}"
        );
        assert!(error.to_string().contains(task_id.as_str()));
        let log = read_log(&log);
        assert_eq!(of(&log, "tasks/get").len(), 2);
        assert!(of(&log, "tasks/cancel").is_empty());
    });
}

#[test]
fn a_timeout_cancels_the_task() {
    run(async {
        let log_path = log_file();
        let client = connect(stdio(&log_path, false), Arc::default()).await;
        let started = Instant::now();
        // `stuck` answers each tasks/get after a second: the timeout
        // passes with one in flight, which must not be cancelled by
        // notification.
        let error = client
            .call_tool(
                "stuck",
                None,
                CallOptions::timeout(Duration::from_millis(400)),
            )
            .await
            .unwrap_err();
        let took = started.elapsed();
        assert!(
            matches!(&error, McpError::Client(ClientError::Timeout { method, after })
                if method == "tools/call" && *after == Duration::from_millis(400)),
            "{error:?}"
        );
        assert!(took < Duration::from_secs(3), "{took:?}");
        // The cancel was sent (and answered) before the error came back.
        let log = wait_for(&log_path, "tasks/cancel", 1).await;
        let cancels = of(&log, "tasks/cancel");
        assert_eq!(cancels.len(), 1, "{log:#?}");
        let task_id = of(&log, "tasks/get")[0].message["params"]["taskId"].clone();
        assert_eq!(cancels[0].message["params"]["taskId"], task_id);
        assert!(declares_tasks(&cancels[0].message));
        // A dropped request's notification would be sent from a task of
        // its own: give it time to arrive.
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(of(&read_log(&log_path), "notifications/cancelled").is_empty());
    });
}

#[test]
fn a_dropped_call_cancels_the_task() {
    run(async {
        let log = log_file();
        let client = connect(stdio(&log, false), Arc::default()).await;
        let call = {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call_tool("stuck", None, CallOptions::default())
                    .await
            })
        };
        // Dropped while its tasks/get waits for the answer.
        wait_for(&log, "tasks/get", 1).await;
        call.abort();
        let log_now = wait_for(&log, "tasks/cancel", 1).await;
        let task_id = of(&log_now, "tasks/get")[0].message["params"]["taskId"].clone();
        assert_eq!(
            of(&log_now, "tasks/cancel")[0].message["params"]["taskId"],
            task_id
        );
        // No more polls after the cancel; no notifications/cancelled.
        let polls = of(&log_now, "tasks/get").len();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let later = read_log(&log);
        assert_eq!(of(&later, "tasks/get").len(), polls);
        assert!(of(&later, "notifications/cancelled").is_empty());
        // The connection is fine for the next call.
        let (options, _) = progress();
        assert!(client.call_tool("fail", None, options).await.is_err());
    });
}

#[test]
fn without_pollintervalms_the_client_polls_every_500_ms() {
    run(async {
        let log = log_file();
        let client = connect(stdio(&log, false), Arc::default()).await;
        let result = client
            .call_tool("default-interval", None, CallOptions::default())
            .await
            .unwrap();
        assert_eq!(text(&result), "finally");
        let log = read_log(&log);
        let mut times = vec![of(&log, "tools/call")[0].t];
        times.extend(of(&log, "tasks/get").iter().map(|g| g.t));
        assert_eq!(times.len(), 3);
        for gap in times.windows(2).map(|w| w[1] - w[0]) {
            assert!((0.495..1.5).contains(&gap), "{times:?}");
        }
    });
}

#[test]
fn the_extension_is_declared_only_when_asked_and_only_on_2026_07_28() {
    run(async {
        // Switched off: the server must answer directly.
        let log = log_file();
        let options = ClientOptions {
            tasks: false,
            ..ClientOptions::mode(Mode::Modern)
        };
        let client = McpClient::connect_with(stdio(&log, false), options)
            .await
            .unwrap();
        let result = client
            .call_tool("flow", None, CallOptions::default())
            .await
            .unwrap();
        assert_eq!(text(&result), "direct: flow");
        let logged = read_log(&log);
        assert!(logged.iter().all(|l| !declares_tasks(&l.message)));
        assert!(of(&logged, "tasks/get").is_empty());

        // A legacy session: not in `initialize`, no envelope at all.
        let log = log_file();
        let client = McpClient::connect_with(stdio(&log, true), ClientOptions::default())
            .await
            .unwrap();
        let result = client
            .call_tool("flow", None, CallOptions::default())
            .await
            .unwrap();
        assert_eq!(text(&result), "direct: flow");
        let logged = read_log(&log);
        let initialize = of(&logged, "initialize");
        assert_eq!(initialize.len(), 1);
        assert!(
            initialize[0].message["params"]["capabilities"]
                .get("extensions")
                .is_none(),
            "{:?}",
            initialize[0].message
        );
        assert!(
            of(&logged, "tools/call")[0].message["params"]
                .get("_meta")
                .is_none()
        );
    });
}

/// `tasks.py --http`, killed when dropped.
struct HttpTasks {
    child: Child,
    url: String,
}

impl HttpTasks {
    fn start(log: &Path) -> HttpTasks {
        let mut child = Command::new("python3")
            .arg(script())
            .arg("--http")
            .env("TASKS_LOG", log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().strip_prefix("PORT ").expect("it says its port");
        HttpTasks {
            url: format!("http://127.0.0.1:{port}/mcp"),
            child,
        }
    }

    fn config(&self) -> ServerConfig {
        ServerConfig {
            name: "tasks".to_owned(),
            transport: Endpoint::Http {
                url: self.url.clone(),
                headers: BTreeMap::new(),
                declared_sse: false,
            },
            trusted: true,
        }
    }
}

impl Drop for HttpTasks {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn over_http_every_tasks_request_is_routed_by_its_task_id() {
    run(async {
        let log = log_file();
        let server = HttpTasks::start(&log);
        let asked = Arc::new(Mutex::new(Vec::new()));
        let client = connect(server.config(), Arc::clone(&asked)).await;
        let (options, seen) = progress();
        let result = client.call_tool("flow", None, options).await.unwrap();
        let logged = read_log(&log);
        let task_id = check_flow(
            &result,
            &logged,
            &asked.lock().unwrap(),
            &seen.lock().unwrap(),
        );
        let call = of(&logged, "tools/call")[0];
        assert_eq!(
            call.headers.get("mcp-name").map(String::as_str),
            Some("flow")
        );
        for method in ["tasks/get", "tasks/update"] {
            for request in of(&logged, method) {
                assert_eq!(request.headers.get("mcp-method"), Some(&method.to_owned()));
                assert_eq!(request.headers.get("mcp-name"), Some(&task_id));
            }
        }

        // A timeout's tasks/cancel is routed the same way.
        let error = client
            .call_tool(
                "slow",
                None,
                CallOptions::timeout(Duration::from_millis(300)),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(error, McpError::Client(ClientError::Timeout { .. })),
            "{error:?}"
        );
        let logged = read_log(&log);
        let cancel = of(&logged, "tasks/cancel");
        assert_eq!(cancel.len(), 1);
        let slow_id = cancel[0].message["params"]["taskId"].as_str().unwrap();
        assert!(slow_id.starts_with("task-slow-"));
        assert_eq!(
            cancel[0].headers.get("mcp-method").map(String::as_str),
            Some("tasks/cancel")
        );
        assert_eq!(
            cancel[0].headers.get("mcp-name").map(String::as_str),
            Some(slow_id)
        );
        assert!(of(&logged, "notifications/cancelled").is_empty());
    });
}

#[test]
fn an_input_request_the_client_cannot_answer_cancels_the_task() {
    run(async {
        let log = log_file();
        // No elicitation handler: `name` cannot be answered.
        let client = McpClient::connect_with(stdio(&log, false), ClientOptions::mode(Mode::Modern))
            .await
            .unwrap();
        let error = client
            .call_tool("flow", None, CallOptions::default())
            .await
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("input request `name` could not be answered"),
            "{error}"
        );
        let logged = wait_for(&log, "tasks/cancel", 1).await;
        assert!(of(&logged, "tasks/update").is_empty());
        assert_eq!(
            of(&logged, "tasks/cancel")[0].message["params"]["taskId"],
            of(&logged, "tasks/get")[0].message["params"]["taskId"]
        );
    });
}

/// Answers the `conformance` example's task fixtures: "Delete …?" with
/// `confirm: true`, every other question with `name: Luca`; records them.
fn conformance_answers(asked: Arc<Mutex<Vec<String>>>) -> ElicitFn {
    Arc::new(move |params| {
        asked.lock().unwrap().push(params.message.clone());
        let content = if params.message.starts_with("Delete") {
            json!({"confirm": true})
        } else {
            json!({"name": "Luca"})
        };
        Box::pin(async move {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: content.as_object().cloned(),
            })
        })
    })
}

/// The runtime's own tasks (the `conformance` example's fixtures), over
/// stdio and over HTTP, where the server checks `Mcp-Name` against the
/// task's id.
#[test]
fn the_runtimes_tasks_are_driven_over_stdio_and_http() {
    run(async {
        let http = common::HttpServer::start_example("conformance");
        let configs = [
            ServerConfig {
                name: "conformance".to_owned(),
                transport: Endpoint::Stdio {
                    command: common::example("conformance")
                        .to_string_lossy()
                        .into_owned(),
                    args: Vec::new(),
                    env: BTreeMap::new(),
                    cwd: None,
                    inherit_env: false,
                },
                trusted: true,
            },
            ServerConfig {
                name: "conformance".to_owned(),
                transport: Endpoint::Http {
                    url: http.url(),
                    headers: BTreeMap::new(),
                    declared_sse: false,
                },
                trusted: true,
            },
        ];
        for config in configs {
            let asked = Arc::new(Mutex::new(Vec::new()));
            let options = ClientOptions {
                elicitation: Some(conformance_answers(Arc::clone(&asked))),
                ..ClientOptions::mode(Mode::Modern)
            };
            let client = McpClient::connect_with(config, options).await.unwrap();
            let call = |name: &'static str, arguments: Value| {
                let client = client.clone();
                async move {
                    client
                        .call_tool(name, arguments.as_object().cloned(), CallOptions::default())
                        .await
                }
            };
            let deleted = call("confirm_delete", json!({"filename": "a.txt"}))
                .await
                .unwrap();
            assert_eq!(text(&deleted), "Deleted a.txt");
            let both = call("multi_input", json!({})).await.unwrap();
            assert_eq!(
                text(&both),
                r#"Received: action=accept, content={"name":"Luca"} and action=accept, content={"name":"Luca"}"#
            );
            // An input_required round on the request, then a task.
            let greeted = call("test_tool_with_task", json!({})).await.unwrap();
            assert_eq!(text(&greeted), "Hello, Luca!");
            let mut questions = asked.lock().unwrap().clone();
            questions.sort();
            assert_eq!(
                questions,
                [
                    "Delete a.txt?",
                    "First answer?",
                    "Second answer?",
                    "What is your name?"
                ]
            );
            // A tool error completes the task; a JSON-RPC error fails it.
            let failed = call("failing_job", json!({})).await.unwrap();
            assert!(failed.is_error && text(&failed).contains("the job failed"));
            let error = call("protocol_error_job", json!({})).await.unwrap_err();
            assert!(
                matches!(&error, McpError::Client(ClientError::Rpc(e)) if e.code == -32603),
                "{error:?}"
            );
            // The task's progress is its statusMessage.
            let (options, seen) = progress();
            let computed = client
                .call_tool(
                    "slow_compute",
                    common::args(json!({"seconds": 2, "label": "x"})),
                    options,
                )
                .await
                .unwrap();
            assert_eq!(text(&computed), "x: computed for 2 s");
            let messages: Vec<String> = seen
                .lock()
                .unwrap()
                .iter()
                .filter_map(|p| p.message.clone())
                .collect();
            assert!(messages.iter().any(|m| m == "x: 1 of 2 s"), "{messages:?}");
            // A timeout cancels the task; the connection goes on.
            let error = client
                .call_tool(
                    "slow_compute",
                    common::args(json!({"seconds": 30, "label": "y"})),
                    CallOptions::timeout(Duration::from_millis(1200)),
                )
                .await
                .unwrap_err();
            assert!(
                matches!(error, McpError::Client(ClientError::Timeout { .. })),
                "{error:?}"
            );
            assert_eq!(
                text(&call("greet", json!({"name": "Ada"})).await.unwrap()),
                "Hello, Ada!"
            );
        }
        // The HTTP server took the timed-out call's tasks/cancel (whose
        // Mcp-Name it checks against the task's id) and ended the task.
        http.wait_for_log(r#"status="cancelled""#).await;
    });
}
