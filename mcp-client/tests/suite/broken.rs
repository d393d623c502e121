//! Hostile and broken servers: garbage, wrong ids, silence, early exit,
//! oversized lines, a closed stdout. Each gives a clear error, never a
//! panic or a hang.

use crate::common;

use common::{Recorder, call, run, script, stdio};
use mcpfn_client::{
    ClientError, DispatcherConfig, NoHandler, Reconnector, StdioConfig, StdioFactory,
    StdioTransport,
};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

const SECOND: Duration = Duration::from_secs(10);

#[test]
fn garbage_and_answers_to_unknown_ids_are_skipped() {
    run(async {
        let client = script(concat!(
            "read l; echo 'this is not json'; printf '\\377\\376\\n'; echo '[1,2]'; echo;",
            r#"echo '{"jsonrpc":"2.0","id":99,"result":{}}';"#,
            r#"echo '{"jsonrpc":"2.0","id":"1","result":{}}';"#,
            r#"echo '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}'; sleep 5"#,
        ));
        let result = call(&client, "tools/list", json!({}), SECOND)
            .await
            .unwrap();
        assert_eq!(result, json!({"ok": true}));
        assert!(!client.is_closed());
    });
}

#[test]
fn a_silent_server_times_out_and_is_told_of_the_cancellation() {
    run(async {
        let recorder = Arc::new(Recorder::default());
        // Echoes the second line it reads back to us as a notification.
        let client = stdio(
            StdioConfig::new("silent", "sh").args([
                "-c",
                r#"read l; read c; echo "{\"jsonrpc\":\"2.0\",\"method\":\"seen\",\"params\":$c}"; sleep 5"#,
            ]),
            recorder.clone(),
        );
        let started = Instant::now();
        let err = call(
            &client,
            "tools/call",
            json!({"name": "x"}),
            Duration::from_millis(300),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(err, ClientError::Timeout { ref method, .. } if method == "tools/call"),
            "{err}"
        );
        assert!(started.elapsed() < Duration::from_secs(3));
        let seen = recorder.wait_for("seen").await;
        assert_eq!(seen["method"], "notifications/cancelled", "{seen}");
        assert_eq!(seen["params"]["requestId"], 1, "{seen}");
        assert_eq!(seen["params"]["reason"], "timeout", "{seen}");
    });
}

#[test]
fn an_early_exit_fails_every_pending_and_later_call_with_its_status_and_stderr() {
    run(async {
        let client = script("read a; read b; echo 'fatal: no config file' >&2; exit 3");
        let (first, second) = tokio::join!(
            call(&client, "tools/call", json!({"name": "a"}), SECOND),
            call(&client, "tools/call", json!({"name": "b"}), SECOND),
        );
        for err in [first.unwrap_err(), second.unwrap_err()] {
            match &err {
                ClientError::Exited {
                    server,
                    status,
                    stderr,
                } => {
                    assert_eq!(server, "broken");
                    assert_eq!(status, "exit status: 3");
                    assert_eq!(stderr, "fatal: no config file");
                }
                other => panic!("{other:?}"),
            }
            assert_eq!(
                err.to_string(),
                "server `broken` exited (exit status: 3); its last stderr output: fatal: no config file"
            );
            assert!(err.is_connection_lost());
        }
        assert!(client.is_closed());
        // Failed at once, not at the call's hour-long timeout.
        let later = tokio::time::timeout(
            SECOND,
            call(&client, "tools/list", json!({}), Duration::from_secs(3600)),
        )
        .await
        .expect("a call on a closed client fails at once")
        .unwrap_err();
        assert!(matches!(later, ClientError::Exited { .. }), "{later}");
        let note = client
            .notify("notifications/initialized", None, &[])
            .await
            .unwrap_err();
        assert!(matches!(note, ClientError::Exited { .. }), "{note}");
    });
}

/// Background processes a test started, by the files their pids are in,
/// killed when the test ends however it ends (a hang included).
#[cfg(target_os = "linux")]
struct Leftovers(std::path::PathBuf);

#[cfg(target_os = "linux")]
impl Leftovers {
    /// The pid in `file` (under the folder).
    fn pid(&self, file: &str) -> String {
        let path = self.0.join(file);
        let pid = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        pid.trim().to_owned()
    }
}

#[cfg(target_os = "linux")]
impl Drop for Leftovers {
    fn drop(&mut self) {
        for entry in std::fs::read_dir(&self.0).into_iter().flatten().flatten() {
            if let Ok(pid) = std::fs::read_to_string(entry.path()) {
                let _ = std::process::Command::new("kill")
                    .args(["-9", pid.trim()])
                    .stderr(std::process::Stdio::null())
                    .status();
            }
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
#[cfg(target_os = "linux")]
fn an_exit_is_noticed_while_a_child_it_left_holds_its_stdout_and_the_child_is_ended() {
    run(async {
        let dir = std::env::temp_dir().join(format!("mcp-host-orphan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let leftovers = Leftovers(dir.clone());
        // Two background `sleep`s inherit its stdout and stderr, so the pipes
        // stay open after the shell exits: one in the server's process group,
        // which the client ends with it, and one in a session of its own,
        // which no signal to the group reaches: only the exit noticed as
        // such can end the call.
        let client = script(&format!(
            "sleep 1000 & echo $! > {}; setsid sleep 1000 & echo $! > {}; read a; exit 3",
            dir.join("grouped.pid").display(),
            dir.join("apart.pid").display()
        ));
        // An hour's timeout: only the noticed exit can end the call.
        let error = call(
            &client,
            "tools/call",
            json!({"name": "a"}),
            Duration::from_secs(3600),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&error, ClientError::Exited { server, status, .. } if server == "broken" && status == "exit status: 3"),
            "{error:?}"
        );
        // The one in the group was killed with it: gone once init has
        // reaped it. The bound is a failsafe: a killed `sleep` dies when it
        // is next scheduled.
        let stat = format!("/proc/{}/stat", leftovers.pid("grouped.pid"));
        let alive = || {
            std::fs::read_to_string(&stat).is_ok_and(|s| {
                !s.rsplit_once(')')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
            })
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while alive() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!alive(), "the server's child outlived it");
        // The one apart still runs (the test's guard ends it): the call
        // ended while the pipe was open.
        let apart = format!("/proc/{}/stat", leftovers.pid("apart.pid"));
        assert!(std::path::Path::new(&apart).exists(), "{apart} is gone");
    });
}

#[test]
fn an_oversized_line_fails_its_call_at_once_and_the_next_one_is_read() {
    run(async {
        let config = StdioConfig::new("huge", "sh")
            .args([
                "-c",
                concat!(
                    r#"read l; printf '{"jsonrpc":"2.0","result":{"x":"'; head -c 3000000 /dev/zero | tr '\0' a; printf '"},"id":1}\n';"#,
                    r#"read m; echo '{"jsonrpc":"2.0","id":2,"result":{"small":true}}'; sleep 5"#,
                ),
            ])
            .max_message_bytes(1 << 20);
        let client = stdio(config, Arc::new(NoHandler));
        let started = Instant::now();
        let err = call(&client, "tools/call", json!({}), SECOND)
            .await
            .unwrap_err();
        assert_eq!(
            err,
            ClientError::TooLarge {
                server: "huge".into(),
                limit: 1 << 20,
                size: Some(3000042),
            }
        );
        assert_eq!(
            err.to_string(),
            "server `huge` sent a message of 3000042 bytes, larger than the limit of 1048576 bytes; it was discarded"
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "failed by the scan, not a timeout"
        );
        let small = call(&client, "tools/call", json!({}), SECOND)
            .await
            .unwrap();
        assert_eq!(small, json!({"small": true}));
    });
}

#[test]
fn a_server_that_closes_stdout_but_runs_on_is_stopped() {
    run(async {
        let client = script("exec 1>&-; sleep 30");
        let err = call(&client, "tools/list", json!({}), SECOND)
            .await
            .unwrap_err();
        match err {
            ClientError::Exited { status, .. } => {
                assert_eq!(status, "it closed its stdout; it was killed")
            }
            // The write may find the pipe closed first.
            ClientError::Disconnected { .. } => {}
            other => panic!("{other:?}"),
        }
    });
}

#[test]
fn a_command_that_does_not_exist_is_a_spawn_error() {
    run(async {
        let err = StdioTransport::spawn(StdioConfig::new("ghost", "/nonexistent/mcp-server"))
            .unwrap_err();
        assert!(matches!(err, ClientError::Spawn { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("server `ghost` could not be started (`/nonexistent/mcp-server`): "),
            "{err}"
        );
    });
}

#[test]
fn server_requests_are_answered_and_pings_by_the_dispatcher() {
    run(async {
        let recorder = Arc::new(Recorder::default());
        let client = stdio(
            StdioConfig::new("asker", "sh").args([
                "-c",
                concat!(
                    r#"echo '{"jsonrpc":"2.0","id":"s1","method":"ping"}'; read a;"#,
                    r#"echo '{"jsonrpc":"2.0","id":7,"method":"roots/list","params":{}}'; read b;"#,
                    r#"echo "{\"jsonrpc\":\"2.0\",\"method\":\"seen\",\"params\":[$a,$b]}"; sleep 5"#,
                ),
            ]),
            recorder.clone(),
        );
        let seen = recorder.wait_for("seen").await;
        assert_eq!(seen[0], json!({"jsonrpc": "2.0", "id": "s1", "result": {}}));
        assert_eq!(
            seen[1],
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found"}})
        );
        drop(client);
    });
}

#[test]
fn a_lost_connection_is_made_again_once() {
    run(async {
        let config = StdioConfig::new("flaky", "sh").args([
            "-c",
            r#"read l; echo '{"jsonrpc":"2.0","id":1,"result":{"n":1}}'; exit 1"#,
        ]);
        let connections = Reconnector::new(
            Arc::new(StdioFactory(config)),
            Arc::new(NoHandler),
            DispatcherConfig::new("flaky"),
        )
        .max_restarts(1);
        let first = connections.connect().await.unwrap();
        assert_eq!(
            call(&first, "x", json!({}), SECOND).await.unwrap(),
            json!({"n": 1})
        );
        let err = call(&first, "x", json!({}), SECOND).await.unwrap_err();
        assert!(matches!(err, ClientError::Exited { .. }), "{err}");
        // Two callers noticing at once make one new connection.
        let (a, b) = tokio::join!(connections.restart(&first), connections.restart(&first));
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(
            call(&a, "x", json!({}), SECOND).await.unwrap(),
            json!({"n": 1})
        );
        let _ = call(&a, "x", json!({}), SECOND).await.unwrap_err();
        assert_eq!(connections.restarts().await, 1);
        let refused = connections.restart(&a).await.unwrap_err();
        assert!(matches!(refused, ClientError::Exited { .. }), "{refused}");
    });
}

/// Answers requests after 500 ms; holds every notification until its gate
/// opens: a handler as far behind as a test wants.
struct Sluggish {
    seen: std::sync::atomic::AtomicUsize,
    gate: tokio::sync::watch::Sender<bool>,
    /// The data of the last notification handled.
    last: std::sync::Mutex<String>,
}

impl Sluggish {
    fn new() -> Sluggish {
        Sluggish {
            seen: Default::default(),
            gate: tokio::sync::watch::Sender::new(true),
            last: Default::default(),
        }
    }

    /// A handler that holds the first notification until [`Sluggish::open`].
    fn shut() -> Sluggish {
        let handler = Sluggish::new();
        handler.gate.send_replace(false);
        handler
    }

    fn open(&self) {
        self.gate.send_replace(true);
    }

    fn seen(&self) -> usize {
        self.seen.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Waits until a notification with `data` has been handled, and with it
    /// every one queued before it.
    async fn wait_for_data(&self, data: &str) {
        let deadline = Instant::now() + SECOND;
        while !self.last.lock().unwrap().contains(data) {
            assert!(Instant::now() < deadline, "{data} never handled");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    async fn wait_for_seen(&self, at_least: usize) {
        let deadline = Instant::now() + SECOND;
        while self.seen() < at_least {
            assert!(
                Instant::now() < deadline,
                "{} of {at_least} handled",
                self.seen()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl mcpfn_client::Handler for Sluggish {
    fn request(
        &self,
        _: mcpfn_client::ServerRequest,
    ) -> mcpfn_client::BoxFuture<'_, Result<Box<serde_json::value::RawValue>, mcpfn_client::RpcError>>
    {
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            Ok(common::raw(json!({"late": true})))
        })
    }

    fn notification(&self, n: mcpfn_client::ServerNotification) -> mcpfn_client::BoxFuture<'_, ()> {
        Box::pin(async move {
            let mut gate = self.gate.subscribe();
            let _ = gate.wait_for(|open| *open).await;
            *self.last.lock().unwrap() = n.params.map(|p| p.get().to_owned()).unwrap_or_default();
            self.seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        })
    }
}

/// A server that floods `times` copies of `notification`, answers request
/// 1, then on the next line it reads sends a `marker` log notification and
/// answers request 2.
fn flood(notification: &str, times: usize) -> StdioConfig {
    let marker = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"marker"}}"#;
    StdioConfig::new("flood", "sh").args([
        "-c".to_owned(),
        format!(
            "read l; i=0; while [ $i -lt {times} ]; do echo '{notification}'; i=$((i+1)); done; \
             echo '{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"done\":true}}}}'; \
             read l; echo '{marker}'; echo '{{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{}}}}'; sleep 5"
        ),
    ])
}

/// Floods a handler that holds the first notification with `times` copies
/// of `notification` under `limits`; returns how many it handled once let
/// go (the marker sent after the flood not counted).
async fn handled_of_a_flood(notification: &str, times: usize, limits: DispatcherConfig) -> usize {
    let handler = Arc::new(Sluggish::shut());
    let (transport, inbox) = StdioTransport::spawn(flood(notification, times)).unwrap();
    let client = mcpfn_client::Dispatcher::new(Box::new(transport), inbox, handler.clone(), limits);
    // The answer comes while the handler holds the first notification: the
    // flood did not delay it.
    let done = call(&client, "tools/call", json!({}), SECOND)
        .await
        .unwrap();
    assert_eq!(done, json!({"done": true}));
    handler.open();
    // With the queue drained to its last one there is room for the marker.
    handler.wait_for_seen(2).await;
    call(&client, "ping", json!({}), SECOND).await.unwrap();
    handler.wait_for_data("marker").await;
    handler.seen() - 1
}

#[test]
fn a_flood_of_notifications_is_bounded_and_does_not_delay_answers() {
    run(async {
        let mut limits = DispatcherConfig::new("flood");
        limits.max_buffered_notifications = 8;
        let note = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
        let handled = handled_of_a_flood(note, 2000, limits).await;
        // The one the handler held, and the 8 the queue held (7 if the
        // flood filled the queue before the handler took its first).
        assert!(
            (8..=9).contains(&handled),
            "{handled} of 2000 notifications handled, the queue holds 8"
        );
    });
}

#[test]
fn buffered_notifications_are_bounded_in_bytes_too() {
    run(async {
        let note = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{}"}}}}"#,
            "x".repeat(100)
        );
        // What the queue counts of one: its method and its params.
        let params = format!(r#"{{"level":"info","data":"{}"}}"#, "x".repeat(100));
        let size = "notifications/message".len() + params.len();
        let mut limits = DispatcherConfig::new("flood");
        limits.max_buffered_notifications = 10_000;
        limits.max_buffered_notification_bytes = 1_000;
        let fit = 1_000 / size;
        let handled = handled_of_a_flood(&note, 300, limits).await;
        assert!(
            (fit..=fit + 1).contains(&handled),
            "{handled} of 300 notifications of {size} bytes handled; {fit} fit in 1,000 bytes"
        );
    });
}

/// A dispatcher over `command args…` called `name`, with `limits` changed.
fn limited(
    name: &str,
    command: &str,
    args: &[&str],
    handler: Arc<dyn mcpfn_client::Handler>,
    change: impl FnOnce(&mut DispatcherConfig),
) -> mcpfn_client::Dispatcher {
    let (transport, inbox) =
        StdioTransport::spawn(StdioConfig::new(name, command).args(args.iter().copied())).unwrap();
    let mut limits = DispatcherConfig::new(name);
    change(&mut limits);
    mcpfn_client::Dispatcher::new(Box::new(transport), inbox, handler, limits)
}

/// Answers each request after 50 ms with `{"n": id}`.
const ECHO_SLOWLY: &str = r#"
import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if "id" in m and "method" in m:
        time.sleep(0.05)
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"n": m["id"]}}), flush=True)
"#;

#[test]
fn requests_past_the_pending_bound_wait_for_a_slot_within_their_timeout() {
    run(async {
        let client = Arc::new(limited(
            "slow",
            "python3",
            &["-c", ECHO_SLOWLY],
            Arc::new(NoHandler),
            |limits| limits.max_pending = 2,
        ));
        // Ten at once, five times the bound: every one is answered.
        let mut calls = tokio::task::JoinSet::new();
        for _ in 0..10 {
            let client = Arc::clone(&client);
            calls.spawn(async move { call(&client, "x", json!({}), SECOND).await });
        }
        let answers = calls.join_all().await;
        for answer in &answers {
            assert!(answer.is_ok(), "{answers:?}");
        }

        let client = limited(
            "silent",
            "sh",
            &["-c", "sleep 30"],
            Arc::new(NoHandler),
            |limits| limits.max_pending = 2,
        );
        let slow = || call(&client, "x", json!({}), Duration::from_secs(2));
        let (a, b, c) = tokio::join!(slow(), slow(), async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let started = Instant::now();
            let third = call(&client, "x", json!({}), Duration::from_millis(300)).await;
            (third, started.elapsed())
        });
        assert!(matches!(a, Err(ClientError::Timeout { .. })));
        assert!(matches!(b, Err(ClientError::Timeout { .. })));
        let error = c.0.unwrap_err();
        assert_eq!(
            error,
            ClientError::TooManyPending {
                server: "silent".into(),
                limit: 2
            }
        );
        assert_eq!(
            error.to_string(),
            "too many calls in flight to server `silent` (2); try fewer at once"
        );
        assert!(
            c.1 >= Duration::from_millis(250) && c.1 < Duration::from_secs(1),
            "it waited for a slot for its own timeout: {:?}",
            c.1
        );
    });
}

/// A 3 MiB answer of tiny objects (about 95 bytes of memory per byte once
/// parsed) for request 1, then a small one for request 2.
const TREE_BOMB: &str = r#"
import json, sys
sys.stdin.readline()
tiny = [{"a": 1}] * (3 * 1024 * 1024 // 8)
print(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": tiny}}, separators=(",", ":")), flush=True)
sys.stdin.readline()
print(json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"ok": True}}), flush=True)
sys.stdin.read()
"#;

#[test]
fn an_answer_too_large_to_hold_fails_its_request_at_once_naming_the_server() {
    run(async {
        let client = limited(
            "bomb",
            "python3",
            &["-c", TREE_BOMB],
            Arc::new(NoHandler),
            |_| {},
        );
        // An hour's timeout: the error is the answer's, not the clock's.
        let error = call(&client, "tools/call", json!({}), Duration::from_secs(3600))
            .await
            .unwrap_err();
        assert!(
            matches!(error, ClientError::AnswerTooLarge { ref server, .. } if server == "bomb"),
            "{error:?}"
        );
        let text = error.to_string();
        assert!(
            text.starts_with("server `bomb` sent an answer too large to hold: ")
                && text.contains("32 MiB"),
            "{text}"
        );
        // The connection goes on.
        assert_eq!(
            call(&client, "tools/call", json!({}), SECOND)
                .await
                .unwrap(),
            json!({"ok": true})
        );
    });
}

/// 300,000 pings, never reading its stdin.
const PING_FLOOD: &str = r#"
import sys
ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
for _ in range(300):
    sys.stdout.buffer.write(ping * 1000)
sys.stdout.flush()
import time
time.sleep(30)
"#;

#[test]
fn a_server_that_stops_reading_is_ended_and_named_and_the_others_go_on() {
    run(async {
        let flood = limited(
            "flood",
            "python3",
            &["-c", PING_FLOOD],
            Arc::new(NoHandler),
            |limits| limits.unresponsive_after = Duration::from_millis(500),
        );
        let other =
            script(r#"read l; echo '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}'; sleep 5"#);
        let started = Instant::now();
        while !flood.is_closed() && started.elapsed() < Duration::from_secs(15) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let reason = flood
            .closed_reason()
            .expect("the flooding server was ended");
        assert!(
            matches!(reason, ClientError::Unresponsive { ref server, .. } if server == "flood"),
            "{reason:?}"
        );
        let text = reason.to_string();
        assert!(
            text.starts_with("server `flood` stopped reading its stdin (")
                && text.ends_with("; ended"),
            "{text}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        // Later calls fail with the same reason, at once.
        let later = call(&flood, "x", json!({}), SECOND).await.unwrap_err();
        assert_eq!(later, reason);
        assert_eq!(
            call(&other, "x", json!({}), SECOND).await.unwrap(),
            json!({"ok": true})
        );
    });
}

/// Five pings whose ids are 1 MiB strings, then one with a short id; then
/// it reports the first line it reads back as a `seen` notification.
const LONG_IDS: &str = r#"
import json, sys
for _ in range(5):
    print(json.dumps({"jsonrpc": "2.0", "id": "x" * (1 << 20), "method": "ping"}), flush=True)
print(json.dumps({"jsonrpc": "2.0", "id": "short", "method": "ping"}), flush=True)
line = sys.stdin.readline()
print(json.dumps({"jsonrpc": "2.0", "method": "seen", "params": json.loads(line)}), flush=True)
sys.stdin.read()
"#;

#[test]
fn server_requests_with_ids_over_the_bound_are_dropped_unanswered() {
    run(async {
        let recorder = Arc::new(Recorder::default());
        let client = limited(
            "ids",
            "python3",
            &["-c", LONG_IDS],
            recorder.clone(),
            |_| {},
        );
        let seen = recorder.wait_for("seen").await;
        assert_eq!(seen, json!({"jsonrpc": "2.0", "id": "short", "result": {}}));
        assert!(!client.is_closed());
    });
}

#[test]
fn a_server_request_the_server_cancels_is_not_answered() {
    run(async {
        let recorder = Arc::new(Recorder::default());
        // The server asks (id 9), cancels, says `after`, then reports the
        // first line it reads: the probe the test sends once the handler is
        // stopped, or whatever the client (wrongly) sent for request 9.
        let script = concat!(
            r#"echo '{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}';"#,
            r#"echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}';"#,
            r#"echo '{"jsonrpc":"2.0","method":"after"}';"#,
            r#"a=$(head -n 1);"#,
            r#"echo "{\"jsonrpc\":\"2.0\",\"method\":\"seen\",\"params\":[${a:-null}]}"; sleep 5"#,
        );
        let (transport, inbox) =
            StdioTransport::spawn(StdioConfig::new("asker", "sh").args(["-c", script])).unwrap();
        // (handler started, handler's future dropped)
        let (state, mut state_rx) = tokio::sync::watch::channel((false, false));
        let state = Arc::new(state);
        /// Never answers by itself; says when its work starts and is dropped.
        struct Held(Arc<tokio::sync::watch::Sender<(bool, bool)>>, Arc<Recorder>);
        /// Marks the handler's future as dropped.
        struct OnDrop(Arc<tokio::sync::watch::Sender<(bool, bool)>>);
        impl Drop for OnDrop {
            fn drop(&mut self) {
                self.0.send_modify(|state| state.1 = true);
            }
        }
        impl mcpfn_client::Handler for Held {
            fn request(
                &self,
                _: mcpfn_client::ServerRequest,
            ) -> mcpfn_client::BoxFuture<
                '_,
                Result<Box<serde_json::value::RawValue>, mcpfn_client::RpcError>,
            > {
                self.0.send_modify(|state| state.0 = true);
                let guard = OnDrop(Arc::clone(&self.0));
                Box::pin(async move {
                    std::future::pending::<()>().await;
                    drop(guard);
                    Ok(common::raw(json!({"late": true})))
                })
            }
            fn notification(
                &self,
                n: mcpfn_client::ServerNotification,
            ) -> mcpfn_client::BoxFuture<'_, ()> {
                self.1.notification(n)
            }
        }
        let client = mcpfn_client::Dispatcher::new(
            Box::new(transport),
            inbox,
            Arc::new(Held(Arc::clone(&state), recorder.clone())),
            DispatcherConfig::new("asker"),
        );
        // `after` is handed on only once the cancellation was read; the
        // cancelled work is then never started, or stopped: a state, not a
        // delay.
        recorder.wait_for("after").await;
        tokio::time::timeout(
            SECOND,
            state_rx.wait_for(|(started, dropped)| !started || *dropped),
        )
        .await
        .expect("the cancelled request's handler is still running")
        .unwrap();
        client.notify("probe", None, &[]).await.unwrap();
        let seen = recorder.wait_for("seen").await;
        assert_eq!(
            seen,
            json!([{"jsonrpc": "2.0", "method": "probe"}]),
            "the cancelled request was answered: {seen}"
        );
        drop(client);
    });
}

#[test]
fn close_asks_with_eof_then_sigterm_before_it_kills() {
    run(async {
        use mcpfn_client::{Incoming, Transport};
        // Ignores the EOF on its stdin; leaves on SIGTERM, saying so.
        let script = "trap 'echo got TERM >&2; exit 0' TERM; while true; do sleep 0.1; done";
        let mut config = StdioConfig::new("stubborn", "sh").args(["-c", script]);
        // The grace is spent once on the ignored EOF; after SIGTERM it is
        // room for a loaded machine to run the trap. A kill shows in the
        // status below, so no clock judges the close.
        config.close_grace = Duration::from_secs(3);
        let (transport, mut inbox) = StdioTransport::spawn(config).unwrap();
        transport.close().await;
        let closed = loop {
            match inbox.recv().await {
                Some(Incoming::Closed(reason)) => break reason,
                Some(_) => continue,
                None => panic!("no close reported"),
            }
        };
        match closed {
            ClientError::Exited { status, stderr, .. } => {
                assert_eq!(status, "exit status: 0");
                // The whole group got SIGTERM: the shell may first report
                // its `sleep` terminated.
                assert!(stderr.ends_with("got TERM"), "{stderr}");
            }
            other => panic!("{other:?}"),
        }
        // One that ignores SIGTERM too is killed.
        let mut config = StdioConfig::new("deaf", "sh")
            .args(["-c", "trap '' TERM; while true; do sleep 0.1; done"]);
        config.close_grace = Duration::from_millis(200);
        let (transport, mut inbox) = StdioTransport::spawn(config).unwrap();
        transport.close().await;
        let closed = loop {
            match inbox.recv().await {
                Some(Incoming::Closed(reason)) => break reason,
                Some(_) => continue,
                None => panic!("no close reported"),
            }
        };
        assert!(
            matches!(closed, ClientError::Exited { ref status, .. } if status.contains("SIGKILL")),
            "{closed:?}"
        );
    });
}

/// An `elicitation/create` whose params are 3 MiB of tiny objects; then it
/// reports the first line it reads back as a `seen` notification.
const BIG_REQUEST: &str = r#"
import json, sys
tiny = [{"a": 1}] * (3 * 1024 * 1024 // 8)
print(json.dumps({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create",
                  "params": {"message": "?", "requestedSchema": {"type": "object"}, "x": tiny}},
                 separators=(",", ":")), flush=True)
line = sys.stdin.readline()
print(json.dumps({"jsonrpc": "2.0", "method": "seen", "params": json.loads(line)}), flush=True)
sys.stdin.read()
"#;

#[test]
fn a_server_request_too_large_to_hold_is_refused_without_reaching_the_handler() {
    run(async {
        let recorder = Arc::new(Recorder::default());
        let client = limited(
            "asker",
            "python3",
            &["-c", BIG_REQUEST],
            recorder.clone(),
            |_| {},
        );
        let seen = recorder.wait_for("seen").await;
        assert_eq!(seen["id"], "e1", "{seen}");
        assert_eq!(seen["error"]["code"], -32600, "{seen}");
        assert!(
            seen["error"]["message"]
                .as_str()
                .unwrap()
                .contains("too large for this client to hold"),
            "{seen}"
        );
        assert!(recorder.requests.lock().unwrap().is_empty());
        assert!(!client.is_closed());
    });
}

#[test]
fn cancellations_owed_to_a_server_that_stops_reading_are_bounded_too() {
    run(async {
        let client = Arc::new(limited(
            "deaf",
            "sh",
            &["-c", "sleep 30"],
            Arc::new(NoHandler),
            |limits| {
                limits.max_queued_replies = 4;
                limits.unresponsive_after = Duration::from_millis(500);
            },
        ));
        // 1 KiB requests: the pipe to the server fills after about 64 of
        // them; each times out and is owed a cancellation.
        let pad = "p".repeat(1000);
        let mut calls = tokio::task::JoinSet::new();
        for _ in 0..200 {
            let client = Arc::clone(&client);
            let params = json!({ "pad": pad });
            calls
                .spawn(async move { call(&client, "x", params, Duration::from_millis(200)).await });
        }
        calls.join_all().await;
        let started = Instant::now();
        while !client.is_closed() && started.elapsed() < Duration::from_secs(10) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let reason = client.closed_reason().expect("the server was ended");
        assert!(
            reason
                .to_string()
                .starts_with("server `deaf` stopped reading its stdin"),
            "{reason}"
        );
    });
}

#[test]
fn an_answer_nested_too_deep_fails_its_request_at_once() {
    run(async {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let script = format!(
            r#"read l; echo '{{"jsonrpc":"2.0","id":1,"result":{{"x":{deep}}}}}'; sleep 5"#
        );
        let client = limited("deep", "sh", &["-c", &script], Arc::new(NoHandler), |_| {});
        let started = Instant::now();
        let error = call(&client, "tools/call", json!({}), SECOND)
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "server `deep` sent an answer too large to hold: its JSON nests deeper than 128 levels; it was dropped"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    });
}
