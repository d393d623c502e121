//! The Tasks extension (`io.modelcontextprotocol/tasks`), server side, on
//! the `conformance` example's task fixtures, beyond what the official
//! suite checks: over stdio (2026-07-28 requests declaring the extension,
//! and a legacy `initialize` session), over Streamable HTTP, and with JWT
//! authorization (a task is its principal's alone). The 2026-07-28 schema
//! has no tasks types: every message is validated as a JSON-RPC message of
//! that schema, a task result as a `Result`, what a task carries
//! (`CallToolResult`, `InputRequests`, `Error`) as itself, and the exact
//! fields of `CreateTaskResult` and `DetailedTask` by hand, as the
//! extension's specification lists them.

use crate::common;

use common::auth::{bearer, claims, es256, start_example as start_with_auth};
use common::http::{MODERN, Server, meta, modern_to, post_to};
use common::{Peer, assert_valid};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const EXT: &str = "io.modelcontextprotocol/tasks";
const LEGACY: &str = "2025-11-25";

/// How long a test waits for a task to reach a status (the worker reads its
/// record every 200 ms).
const SETTLE: Duration = Duration::from_secs(10);

/// Client capabilities declaring the extension (and what the fixtures ask).
fn with_tasks() -> Value {
    json!({"elicitation": {}, "sampling": {}, "extensions": {EXT: {}}})
}

/// The same client without the extension.
fn without_tasks() -> Value {
    json!({"elicitation": {}, "sampling": {}})
}

/// A fresh request id: unique across a test binary, so a response can never
/// be mistaken for another's.
fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A 2026-07-28 request of `method` whose `_meta` declares `capabilities`.
fn message(method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    json!({"jsonrpc": "2.0", "id": next_id(), "method": method, "params": params})
}

/// Somewhere requests go and their responses come from.
trait Wire {
    /// Sends `message` and returns its response (notifications before it
    /// skipped), validated as a JSON-RPC message.
    fn exchange(&mut self, message: &Value) -> Value;
}

impl Wire for Peer {
    fn exchange(&mut self, message: &Value) -> Value {
        self.send(message);
        loop {
            let line = self.recv();
            if line.get("method").is_none() {
                assert_eq!(line["id"], message["id"], "a response to another id");
                return line;
            }
            assert!(
                line.get("id").is_none(),
                "a server request on a tasks request: {line}"
            );
        }
    }
}

/// A Streamable HTTP endpoint, as one principal (or none).
struct Http<'a> {
    addr: &'a str,
    authorization: Option<String>,
    /// The HTTP status of the last response.
    status: u16,
}

impl<'a> Http<'a> {
    fn new(server: &'a Server) -> Http<'a> {
        Http {
            addr: &server.addr,
            authorization: None,
            status: 0,
        }
    }

    /// The endpoint as the bearer of a token for `sub`.
    fn as_subject(server: &'a Server, sub: &str) -> Http<'a> {
        Http {
            addr: &server.addr,
            authorization: Some(bearer(&es256(&claims(sub, "")))),
            status: 0,
        }
    }
}

impl Wire for Http<'_> {
    fn exchange(&mut self, message: &Value) -> Value {
        let extra: Vec<(&str, &str)> = self
            .authorization
            .as_deref()
            .map(|a| ("Authorization", a))
            .into_iter()
            .collect();
        let response = modern_to(self.addr, message, &extra);
        self.status = response.status;
        if response.header("content-type") == Some("text/event-stream") {
            let events = response.events();
            return events
                .into_iter()
                .find(|event| event.get("method").is_none())
                .unwrap_or_else(|| panic!("no response on the stream: {response:?}"));
        }
        let reply = response.json();
        assert_eq!(reply["id"], message["id"], "{reply}");
        reply
    }
}

/// A `conformance` server over stdio, validated against the 2026-07-28
/// schema.
fn stdio(env: &[(&str, &str)]) -> Peer {
    let mut peer = Peer::spawn("conformance", env);
    peer.version = MODERN.into();
    peer
}

/// A `tools/call` of `tool` with `arguments` by a client with `capabilities`.
fn call(wire: &mut dyn Wire, tool: &str, arguments: Value, capabilities: Value) -> Value {
    wire.exchange(&message(
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
        capabilities,
    ))
}

/// `tasks/get` of `task`, declaring the extension.
fn get(wire: &mut dyn Wire, task: &str) -> Value {
    wire.exchange(&message("tasks/get", json!({"taskId": task}), with_tasks()))
}

/// `tasks/update` of `task` with `responses`, declaring the extension.
fn update(wire: &mut dyn Wire, task: &str, responses: Value) -> Value {
    wire.exchange(&message(
        "tasks/update",
        json!({"taskId": task, "inputResponses": responses}),
        with_tasks(),
    ))
}

/// `tasks/cancel` of `task`, declaring the extension.
fn cancel(wire: &mut dyn Wire, task: &str) -> Value {
    wire.exchange(&message(
        "tasks/cancel",
        json!({"taskId": task}),
        with_tasks(),
    ))
}

/// The fields of a `Task` (the extension's `Task` interface).
const TASK_FIELDS: [&str; 7] = [
    "taskId",
    "status",
    "statusMessage",
    "createdAt",
    "lastUpdatedAt",
    "ttlMs",
    "pollIntervalMs",
];

/// Asserts `result` has no field but `allowed` (and `_meta`, which every
/// 2026-07-28 result may carry) and carries the `Task` fields, well typed.
#[track_caller]
fn assert_task_fields(result: &Value, allowed: &[&str]) {
    assert_valid(MODERN, "Result", result);
    for key in result.as_object().unwrap().keys() {
        assert!(
            key == "_meta"
                || key == "resultType"
                || TASK_FIELDS.contains(&key.as_str())
                || allowed.contains(&key.as_str()),
            "unexpected field `{key}`: {result}"
        );
    }
    assert!(result.get("requestState").is_none(), "{result}");
    let id = result["taskId"].as_str().expect("a string taskId");
    assert!(!id.is_empty(), "{result}");
    for stamp in ["createdAt", "lastUpdatedAt"] {
        let stamp = result[stamp].as_str().expect("an ISO 8601 timestamp");
        assert!(
            stamp.len() >= 20 && stamp.as_bytes()[10] == b'T' && stamp.ends_with('Z'),
            "{stamp}"
        );
    }
    assert!(
        result["ttlMs"].is_u64() || result["ttlMs"].is_null(),
        "{result}"
    );
    if let Some(poll) = result.get("pollIntervalMs") {
        assert!(poll.is_u64(), "{result}");
    }
    if let Some(message) = result.get("statusMessage") {
        assert!(message.is_string(), "{result}");
    }
}

/// The id of the task a `CreateTaskResult` response announces, its fields
/// checked: `resultType: "task"`, the `Task` fields and nothing else (no
/// `requestState`, no `content`).
#[track_caller]
fn created(response: &Value) -> String {
    let result = &response["result"];
    assert!(result.is_object(), "not a result: {response}");
    assert_eq!(result["resultType"], "task", "{response}");
    assert_task_fields(result, &[]);
    assert_eq!(result["status"], "working", "{result}");
    assert_eq!(result["ttlMs"], 3_600_000, "the default TTL, an hour");
    assert_eq!(result["pollIntervalMs"], 500, "{result}");
    result["taskId"].as_str().unwrap().to_owned()
}

/// The `DetailedTask` of a `tasks/get` response, its fields checked against
/// its status: `inputRequests` only while `input_required`, `result` (a
/// `CallToolResult`) only when `completed`, `error` only when `failed`.
#[track_caller]
fn detailed(response: &Value, task: &str) -> Value {
    let result = &response["result"];
    assert!(result.is_object(), "not a result: {response}");
    assert_eq!(result["resultType"], "complete", "{response}");
    assert_task_fields(result, &["inputRequests", "result", "error"]);
    assert_eq!(result["taskId"], task, "{result}");
    let status = result["status"].as_str().unwrap();
    assert_eq!(
        result.get("inputRequests").is_some(),
        status == "input_required",
        "{result}"
    );
    assert_eq!(
        result.get("result").is_some(),
        status == "completed",
        "{result}"
    );
    assert_eq!(
        result.get("error").is_some(),
        status == "failed",
        "{result}"
    );
    match status {
        "input_required" => {
            let requests = &result["inputRequests"];
            assert_valid(MODERN, "InputRequests", requests);
            assert!(!requests.as_object().unwrap().is_empty(), "{result}");
        }
        "completed" => {
            // The stored `CallToolResult`, as the extension's example shows
            // it: without the `resultType` of a response (which the
            // 2026-07-28 schema requires of a response's result).
            let mut call_result = result["result"].clone();
            assert!(call_result.get("resultType").is_none(), "{result}");
            call_result["resultType"] = "complete".into();
            assert_valid(MODERN, "CallToolResult", &call_result);
        }
        "failed" => assert_valid(MODERN, "Error", &result["error"]),
        "working" | "cancelled" => {}
        other => panic!("not a task status: {other}"),
    }
    result.clone()
}

/// Asserts an empty acknowledgement: `resultType: "complete"` and nothing
/// else but `_meta`.
#[track_caller]
fn assert_ack(response: &Value) {
    let result = &response["result"];
    assert_valid(MODERN, "Result", result);
    assert_eq!(result["resultType"], "complete", "{response}");
    let fields: Vec<&String> = result
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| *k != "_meta")
        .collect();
    assert_eq!(fields, ["resultType"], "{response}");
}

/// The error of an error response with `code`.
#[track_caller]
fn error(response: &Value, code: i64) -> Value {
    assert_valid(MODERN, "JSONRPCErrorResponse", response);
    assert_eq!(response["error"]["code"], code, "{response}");
    response["error"].clone()
}

/// Asserts the `-32021` that names the extension, with exactly its
/// `requiredCapabilities`.
#[track_caller]
fn assert_extension_required(response: &Value) {
    let error = error(response, -32021);
    assert_eq!(
        error["data"],
        json!({"requiredCapabilities": {"extensions": {EXT: {}}}}),
        "{response}"
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("Missing required client capability"),
        "{response}"
    );
}

/// Polls `task` until it is `status` (any status the poll passes must be
/// one that can still lead there); returns that `DetailedTask`.
#[track_caller]
fn wait_for(wire: &mut dyn Wire, task: &str, status: &str) -> Value {
    wait_until(wire, task, |t| t["status"] == status)
}

/// Polls `task` until `done` holds of its `DetailedTask`; a terminal status
/// that does not satisfy it fails the test at once.
#[track_caller]
fn wait_until(wire: &mut dyn Wire, task: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + SETTLE;
    loop {
        let now = detailed(&get(wire, task), task);
        if done(&now) {
            return now;
        }
        let terminal =
            ["completed", "failed", "cancelled"].contains(&now["status"].as_str().unwrap());
        assert!(!terminal, "the task ended otherwise: {now}");
        assert!(Instant::now() < deadline, "still not there: {now}");
        std::thread::sleep(Duration::from_millis(40));
    }
}

/// The sorted keys of a `DetailedTask`'s `inputRequests`.
fn keys(task: &Value) -> Vec<String> {
    task["inputRequests"]
        .as_object()
        .map(|requests| requests.keys().cloned().collect())
        .unwrap_or_default()
}

/// An accepted elicitation answer with `content`.
fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// The text of a `CallToolResult`'s first content block.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

// ---- over stdio ----

#[test]
fn a_task_is_created_works_reporting_progress_and_completes_with_the_tools_result() {
    let mut peer = stdio(&[]);
    let response = call(
        &mut peer,
        "slow_compute",
        json!({"seconds": 2, "label": "sum"}),
        with_tasks(),
    );
    let task = created(&response);
    // Durably created: the very next tasks/get finds it, still working.
    let first = detailed(&get(&mut peer, &task), &task);
    assert_eq!(first["status"], "working", "{first}");
    assert_eq!(first["createdAt"], response["result"]["createdAt"]);
    // Each second's `ctx.progress(…, Some(message))` becomes the
    // statusMessage while the task works.
    let working = wait_until(&mut peer, &task, |t| t["statusMessage"] == "sum: 1 of 2 s");
    assert_eq!(working["status"], "working", "{working}");
    let done = wait_for(&mut peer, &task, "completed");
    assert_eq!(
        done["result"],
        json!({"content": [{"type": "text", "text": "sum: computed for 2 s"}]}),
        "the tool's CallToolResult: {done}"
    );
    // Later polls read the same terminal task.
    let again = detailed(&get(&mut peer, &task), &task);
    assert_eq!(again["result"], done["result"]);
    assert_eq!(again["lastUpdatedAt"], done["lastUpdatedAt"]);
}

#[test]
fn an_is_error_result_completes_the_task_with_it() {
    let mut peer = stdio(&[]);
    let task = created(&call(&mut peer, "failing_job", json!({}), with_tasks()));
    let done = wait_for(&mut peer, &task, "completed");
    assert_eq!(done["result"]["isError"], true, "{done}");
    assert_eq!(
        text(&done["result"]),
        "the job failed: its input was rejected"
    );
}

#[test]
fn a_protocol_error_fails_the_task_with_that_error() {
    let mut peer = stdio(&[]);
    let task = created(&call(
        &mut peer,
        "protocol_error_job",
        json!({}),
        with_tasks(),
    ));
    let failed = wait_for(&mut peer, &task, "failed");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert_eq!(
        failed["error"]["message"],
        "the job's backend answered with an internal error"
    );
    assert!(
        failed["statusMessage"]
            .as_str()
            .unwrap()
            .contains("the job's backend answered with an internal error"),
        "{failed}"
    );
}

#[test]
fn an_elicitation_is_an_input_required_round_answered_by_tasks_update() {
    let mut peer = stdio(&[]);
    let task = created(&call(
        &mut peer,
        "confirm_delete",
        json!({"filename": "notes.txt"}),
        with_tasks(),
    ));
    let asking = wait_for(&mut peer, &task, "input_required");
    assert_eq!(keys(&asking), ["input-1"], "{asking}");
    let question = &asking["inputRequests"]["input-1"];
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_eq!(question["params"]["message"], "Delete notes.txt?");
    assert_eq!(
        question["params"]["requestedSchema"]["required"],
        json!(["confirm"])
    );
    assert_valid(MODERN, "ElicitRequestParams", &question["params"]);
    // Polling again shows the same outstanding question under the same key.
    let again = detailed(&get(&mut peer, &task), &task);
    assert_eq!(again["inputRequests"], asking["inputRequests"]);
    assert_ack(&update(
        &mut peer,
        &task,
        json!({"input-1": accept(json!({"confirm": true}))}),
    ));
    // Answered: the question is gone at once, whether or not the tool
    // finished yet.
    let after = detailed(&get(&mut peer, &task), &task);
    assert_ne!(after["status"], "input_required", "{after}");
    let done = wait_for(&mut peer, &task, "completed");
    assert_eq!(text(&done["result"]), "Deleted notes.txt");
    assert!(done["result"].get("isError").is_none(), "{done}");
    // An answer to a key already answered, on an ended task: ignored.
    assert_ack(&update(
        &mut peer,
        &task,
        json!({"input-1": accept(json!({"confirm": false}))}),
    ));
    let still = detailed(&get(&mut peer, &task), &task);
    assert_eq!(still["result"], done["result"]);
}

#[test]
fn two_questions_at_once_are_answered_one_at_a_time_and_unknown_keys_are_ignored() {
    let mut peer = stdio(&[]);
    let task = created(&call(&mut peer, "multi_input", json!({}), with_tasks()));
    let asking = wait_until(&mut peer, &task, |t| keys(t).len() == 2);
    assert_eq!(asking["status"], "input_required");
    assert_eq!(keys(&asking), ["input-1", "input-2"], "{asking}");
    let key_of = |message: &str| {
        ["input-1", "input-2"]
            .into_iter()
            .find(|key| asking["inputRequests"][key]["params"]["message"] == message)
            .unwrap_or_else(|| panic!("no question {message:?}: {asking}"))
    };
    let (first, second) = (key_of("First answer?"), key_of("Second answer?"));
    // Only keys never issued: an empty ack, nothing changes.
    assert_ack(&update(
        &mut peer,
        &task,
        json!({"input-9": accept(json!({})), "confirm": accept(json!({}))}),
    ));
    let unchanged = detailed(&get(&mut peer, &task), &task);
    assert_eq!(unchanged["inputRequests"], asking["inputRequests"]);
    // A partial answer (with an unknown key beside it): the task stays
    // `input_required` with only the other question.
    assert_ack(&update(
        &mut peer,
        &task,
        json!({first: accept(json!({"name": "Ada"})), "input-7": accept(json!({}))}),
    ));
    let partial = detailed(&get(&mut peer, &task), &task);
    assert_eq!(partial["status"], "input_required", "{partial}");
    assert_eq!(keys(&partial), [second], "{partial}");
    assert_eq!(
        partial["inputRequests"][second],
        asking["inputRequests"][second]
    );
    // The first answer again (already answered): ignored, the second is
    // still outstanding.
    assert_ack(&update(
        &mut peer,
        &task,
        json!({first: accept(json!({"name": "Eve"}))}),
    ));
    let still = detailed(&get(&mut peer, &task), &task);
    assert_eq!(keys(&still), [second], "{still}");
    assert_ack(&update(
        &mut peer,
        &task,
        json!({second: accept(json!({"confirm": true}))}),
    ));
    let done = wait_for(&mut peer, &task, "completed");
    assert_eq!(
        text(&done["result"]),
        r#"Received: action=accept, content={"name":"Ada"} and action=accept, content={"confirm":true}"#
    );
}

#[test]
fn a_second_question_gets_a_new_key_never_the_first_ones() {
    let mut peer = stdio(&[]);
    let task = created(&call(&mut peer, "two_step_job", json!({}), with_tasks()));
    let first = wait_for(&mut peer, &task, "input_required");
    assert_eq!(keys(&first), ["input-1"], "{first}");
    assert_eq!(
        first["inputRequests"]["input-1"]["params"]["message"],
        "What is your name?"
    );
    assert_ack(&update(
        &mut peer,
        &task,
        json!({"input-1": accept(json!({"name": "Ada"}))}),
    ));
    let second = wait_until(&mut peer, &task, |t| {
        t["status"] == "input_required" && keys(t) != ["input-1"]
    });
    assert_eq!(keys(&second), ["input-2"], "{second}");
    assert_eq!(
        second["inputRequests"]["input-2"]["params"]["message"],
        "What is your favorite color?"
    );
    // The first key, answered again, does not answer the second question.
    assert_ack(&update(
        &mut peer,
        &task,
        json!({"input-1": accept(json!({"color": "red"}))}),
    ));
    let unchanged = detailed(&get(&mut peer, &task), &task);
    assert_eq!(keys(&unchanged), ["input-2"], "{unchanged}");
    assert_ack(&update(
        &mut peer,
        &task,
        json!({"input-2": accept(json!({"color": "teal"}))}),
    ));
    let done = wait_for(&mut peer, &task, "completed");
    assert_eq!(text(&done["result"]), "Ada likes teal");
}

#[test]
fn a_cancelled_task_settles_cancelled_and_cancelling_an_ended_task_is_acked() {
    let mut peer = stdio(&[]);
    let task = created(&call(
        &mut peer,
        "slow_compute",
        // Ten minutes, far past the wait's bound: only the cancel can end it.
        json!({"seconds": 600, "label": "long"}),
        with_tasks(),
    ));
    assert_ack(&cancel(&mut peer, &task));
    let cancelled = wait_for(&mut peer, &task, "cancelled");
    assert_eq!(cancelled["statusMessage"], "Cancelled by the client.");
    // A terminal task: cancel is still acked, and the task stays cancelled.
    assert_ack(&cancel(&mut peer, &task));
    assert_ack(&update(
        &mut peer,
        &task,
        json!({"input-1": accept(json!({}))}),
    ));
    let still = detailed(&get(&mut peer, &task), &task);
    assert_eq!(still["status"], "cancelled");
    assert_eq!(still["lastUpdatedAt"], cancelled["lastUpdatedAt"]);

    // A completed task cancelled: acked, still completed with its result.
    let job = created(&call(&mut peer, "failing_job", json!({}), with_tasks()));
    let done = wait_for(&mut peer, &job, "completed");
    assert_ack(&cancel(&mut peer, &job));
    // A marker: a cancel sent after it has taken effect, so the one above
    // has had its chance to.
    let marker = created(&call(
        &mut peer,
        "slow_compute",
        json!({"seconds": 30, "label": "marker"}),
        with_tasks(),
    ));
    assert_ack(&cancel(&mut peer, &marker));
    wait_for(&mut peer, &marker, "cancelled");
    let after = detailed(&get(&mut peer, &job), &job);
    assert_eq!(after["status"], "completed");
    assert_eq!(after["result"], done["result"]);
}

#[test]
fn a_task_waiting_for_an_answer_can_be_cancelled() {
    let mut peer = stdio(&[]);
    let task = created(&call(
        &mut peer,
        "confirm_delete",
        json!({"filename": "keep.txt"}),
        with_tasks(),
    ));
    wait_for(&mut peer, &task, "input_required");
    assert_ack(&cancel(&mut peer, &task));
    let cancelled = wait_for(&mut peer, &task, "cancelled");
    assert!(cancelled.get("inputRequests").is_none(), "{cancelled}");
    // The question went with the task: a late answer changes nothing.
    assert_ack(&update(
        &mut peer,
        &task,
        json!({"input-1": accept(json!({"confirm": true}))}),
    ));
    // A marker: an answer sent after it has taken effect, so the late one
    // has had its chance to.
    let marker = created(&call(
        &mut peer,
        "confirm_delete",
        json!({"filename": "marker.txt"}),
        with_tasks(),
    ));
    wait_for(&mut peer, &marker, "input_required");
    assert_ack(&update(
        &mut peer,
        &marker,
        json!({"input-1": accept(json!({"confirm": true}))}),
    ));
    let marked = wait_for(&mut peer, &marker, "completed");
    assert_eq!(text(&marked["result"]), "Deleted marker.txt");
    assert_eq!(
        detailed(&get(&mut peer, &task), &task)["status"],
        "cancelled"
    );
}

#[test]
fn an_unknown_task_id_is_invalid_params_for_every_method() {
    let mut peer = stdio(&[]);
    let id = "no-such-task-AAAAAAAAAA";
    for response in [
        get(&mut peer, id),
        update(&mut peer, id, json!({"input-1": accept(json!({}))})),
        cancel(&mut peer, id),
    ] {
        let error = error(&response, -32602);
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(&format!("`{id}`")), "{message}");
        assert!(error.get("data").is_none(), "{error}");
    }
    // No taskId at all: also -32602, naming the field.
    let missing = peer.exchange(&message("tasks/get", json!({}), with_tasks()));
    assert!(
        error(&missing, -32602)["message"]
            .as_str()
            .unwrap()
            .contains("taskId"),
        "{missing}"
    );
}

#[test]
fn without_the_extension_tasks_methods_and_required_task_tools_are_refused_with_32021() {
    let mut peer = stdio(&[]);
    // A real task, so the refusal is not a failed lookup.
    let task = created(&call(&mut peer, "failing_job", json!({}), with_tasks()));
    for (method, params) in [
        ("tasks/get", json!({"taskId": task})),
        (
            "tasks/update",
            json!({"taskId": task, "inputResponses": {}}),
        ),
        ("tasks/cancel", json!({"taskId": task})),
        // Refused before the lookup: an unknown id is no different.
        ("tasks/get", json!({"taskId": "unknown"})),
    ] {
        let response = peer.exchange(&message(method, params, without_tasks()));
        assert_extension_required(&response);
    }
    // The cancel without the extension did not cancel it.
    assert_eq!(
        wait_for(&mut peer, &task, "completed")["result"]["isError"],
        true
    );
    // `task = "required"`: refused before it runs (no task is made).
    for tool in ["failing_job", "test_tool_with_task"] {
        let response = call(&mut peer, tool, json!({}), without_tasks());
        assert_extension_required(&response);
        assert!(
            response["error"]["message"]
                .as_str()
                .unwrap()
                .contains(tool),
            "{response}"
        );
    }
}

#[test]
fn without_the_extension_an_optional_task_tool_runs_as_a_plain_call() {
    let mut peer = stdio(&[]);
    let response = call(
        &mut peer,
        "slow_compute",
        json!({"seconds": 1, "label": "plain"}),
        without_tasks(),
    );
    let result = &response["result"];
    assert_valid(MODERN, "CallToolResult", result);
    assert_eq!(result["resultType"], "complete", "{response}");
    assert!(result.get("taskId").is_none(), "{response}");
    assert_eq!(text(result), "plain: computed for 1 s");
    // Its protocol error is the call's own error, not a failed task.
    let response = call(&mut peer, "protocol_error_job", json!({}), without_tasks());
    assert_eq!(
        error(&response, -32603)["message"],
        "the job's backend answered with an internal error"
    );
    // Its question is a 2026-07-28 round on the request.
    let response = call(
        &mut peer,
        "confirm_delete",
        json!({"filename": "a"}),
        without_tasks(),
    );
    assert_eq!(response["result"]["resultType"], "input_required");
    assert_valid(MODERN, "InputRequiredResult", &response["result"]);
    // A tool that never makes tasks answers a client with the extension
    // on the request.
    let response = call(&mut peer, "greet", json!({"name": "Ada"}), with_tasks());
    assert_eq!(response["result"]["resultType"], "complete");
    assert_eq!(text(&response["result"]), "Hello, Ada!");
}

#[test]
fn a_legacy_session_has_no_tasks_and_runs_task_tools_as_plain_calls() {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = LEGACY.into();
    // Even a client that puts the extension in its handshake capabilities:
    // tasks are of the 2026-07-28 era only.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY,
        "capabilities": {"elicitation": {}, "extensions": {EXT: {}}},
        "clientInfo": {"name": "tasks-tests", "version": "1"}}});
    let response = peer.request(init);
    assert_eq!(response["result"]["protocolVersion"], LEGACY);
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let response = peer.request(
            json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"taskId": "x"}}),
        );
        assert_eq!(response["error"]["code"], -32601, "{method}: {response}");
    }
    let response = peer.request(common::call(
        2,
        "slow_compute",
        json!({"seconds": 0, "label": "legacy"}),
        false,
    ));
    assert_valid(LEGACY, "CallToolResult", &response["result"]);
    assert!(response["result"].get("taskId").is_none(), "{response}");
    assert!(response["result"].get("resultType").is_none(), "{response}");
    assert_eq!(text(&response["result"]), "legacy: computed for 0 s");
    let response = peer.request(common::call(3, "protocol_error_job", json!({}), false));
    assert_eq!(response["error"]["code"], -32603, "{response}");
    // Even a tool that runs only as a task: a legacy session has no
    // extensions, so it is a plain call there (its isError result).
    let response = peer.request(common::call(4, "failing_job", json!({}), false));
    assert_valid(LEGACY, "CallToolResult", &response["result"]);
    assert_eq!(response["result"]["isError"], true, "{response}");
    assert_eq!(
        text(&response["result"]),
        "the job failed: its input was rejected"
    );
}

#[test]
fn a_question_before_begin_task_is_a_round_on_the_request_then_the_task_starts() {
    let mut peer = stdio(&[]);
    let first = call(&mut peer, "test_tool_with_task", json!({}), with_tasks());
    let round = &first["result"];
    assert_eq!(
        round["resultType"], "input_required",
        "no task yet: {first}"
    );
    assert_valid(MODERN, "InputRequiredResult", round);
    assert!(round.get("taskId").is_none(), "{first}");
    let state = round["requestState"].as_str().expect("a sealed state");
    assert_eq!(
        round["inputRequests"]["user_name"]["params"]["message"],
        "What is your name?"
    );
    let retry = message(
        "tools/call",
        json!({"name": "test_tool_with_task", "arguments": {},
            "inputResponses": {"user_name": accept(json!({"name": "Grace"}))},
            "requestState": state}),
        with_tasks(),
    );
    let response = peer.exchange(&retry);
    // `created` checks the CreateTaskResult carries no requestState.
    let task = created(&response);
    let done = wait_for(&mut peer, &task, "completed");
    assert!(done.get("requestState").is_none(), "{done}");
    assert_eq!(text(&done["result"]), "Hello, Grace!");
}

#[test]
fn server_discover_advertises_the_extension() {
    let mut peer = stdio(&[]);
    let response = peer.exchange(&message("server/discover", json!({}), without_tasks()));
    assert_valid(MODERN, "DiscoverResultResponse", &response);
    assert_eq!(
        response["result"]["capabilities"]["extensions"][EXT],
        json!({}),
        "{response}"
    );
}

#[test]
fn over_stdio_the_per_client_quota_does_not_apply() {
    // Stdio serves one client, which no per-client quota counts (as for
    // handles): with a quota of one, tasks are still made.
    let mut peer = stdio(&[("MAX_TASKS_PER_CLIENT", "1")]);
    for _ in 0..3 {
        let task = created(&call(
            &mut peer,
            "slow_compute",
            json!({"seconds": 30, "label": "q"}),
            with_tasks(),
        ));
        assert_ack(&cancel(&mut peer, &task));
    }
}

// ---- over Streamable HTTP ----

#[test]
fn over_http_a_task_asks_and_completes_with_mcp_name_naming_it() {
    let server = Server::start_example("conformance", &[]);
    let mut http = Http::new(&server);
    let task = created(&call(
        &mut http,
        "confirm_delete",
        json!({"filename": "web.txt"}),
        with_tasks(),
    ));
    let asking = wait_for(&mut http, &task, "input_required");
    assert_eq!(keys(&asking), ["input-1"]);
    assert_ack(&update(
        &mut http,
        &task,
        json!({"input-1": accept(json!({"confirm": false}))}),
    ));
    let done = wait_for(&mut http, &task, "completed");
    assert_eq!(text(&done["result"]), "Kept web.txt");
    // Without the extension: -32021, with the 400 of that error over HTTP.
    let refused = http.exchange(&message(
        "tasks/get",
        json!({"taskId": task}),
        without_tasks(),
    ));
    assert_extension_required(&refused);
    assert_eq!(http.status, 400);
    let refused = call(&mut http, "failing_job", json!({}), without_tasks());
    assert_extension_required(&refused);
    assert_eq!(http.status, 400);
    // The header must name the task the body names.
    let get = message("tasks/get", json!({"taskId": task}), with_tasks());
    let body = get.to_string();
    for name in [None, Some("another-task")] {
        let mut headers = vec![
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tasks/get"),
        ];
        headers.extend(name.map(|name| ("Mcp-Name", name)));
        let response = post_to(&server.addr, &headers, &body);
        assert_eq!(response.status, 400, "{response:?}");
        assert_eq!(response.json()["error"]["code"], -32020, "{response:?}");
    }
}

#[test]
fn over_http_a_client_past_its_task_quota_gets_an_is_error_result_naming_it() {
    let server = Server::start_example("conformance", &[("MAX_TASKS_PER_CLIENT", "2")]);
    let mut http = Http::new(&server);
    let long = || json!({"seconds": 30, "label": "q"});
    let tasks: Vec<String> = (0..2)
        .map(|_| created(&call(&mut http, "slow_compute", long(), with_tasks())))
        .collect();
    let response = call(&mut http, "slow_compute", long(), with_tasks());
    let result = &response["result"];
    assert_valid(MODERN, "CallToolResult", result);
    assert_eq!(result["resultType"], "complete", "{response}");
    assert_eq!(result["isError"], true, "{response}");
    let refusal = text(result);
    assert!(
        refusal.starts_with("'slow_compute' was not started: this client has as many live tasks as the server allows; retry in"),
        "{refusal}"
    );
    // Tasks count for their TTL, not until they end: cancelling one frees
    // no place.
    assert_ack(&cancel(&mut http, &tasks[0]));
    wait_for(&mut http, &tasks[0], "cancelled");
    let response = call(&mut http, "failing_job", json!({}), with_tasks());
    assert_eq!(response["result"]["isError"], true, "{response}");
    assert!(text(&response["result"]).contains("as many live tasks"));
    // Calls that make no task are not counted.
    let response = call(&mut http, "greet", json!({"name": "Ada"}), with_tasks());
    assert_eq!(text(&response["result"]), "Hello, Ada!");
    let response = call(
        &mut http,
        "slow_compute",
        json!({"seconds": 0, "label": "p"}),
        without_tasks(),
    );
    assert_eq!(text(&response["result"]), "p: computed for 0 s");
}

// ---- with authorization: a task is its principal's ----

#[test]
fn another_principal_sees_a_task_exactly_as_an_unknown_one() {
    let server = start_with_auth("conformance", &[]);
    let mut ada = Http::as_subject(&server, "ada");
    let mut eve = Http::as_subject(&server, "eve");
    let task = created(&call(
        &mut ada,
        "confirm_delete",
        json!({"filename": "secret.txt"}),
        with_tasks(),
    ));
    let asking = wait_for(&mut ada, &task, "input_required");
    let unknown = "AAAAAAAAAAAAAAAAAAAAAA";
    // Eve's answer differs from Ada's: had it reached the task, the file
    // would be kept.
    let answer = json!({"input-1": accept(json!({"confirm": false}))});
    let params = |method: &str, id: &str| match method {
        "tasks/update" => json!({"taskId": id, "inputResponses": answer}),
        _ => json!({"taskId": id}),
    };
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let theirs = eve.exchange(&message(method, params(method, &task), with_tasks()));
        let their_status = eve.status;
        let none = eve.exchange(&message(method, params(method, unknown), with_tasks()));
        assert_eq!(their_status, eve.status, "{method}: the same HTTP status");
        let (theirs, none) = (error(&theirs, -32602), error(&none, -32602));
        let shape = |error: &Value, id: &str| {
            let mut error = error.clone();
            error["message"] = error["message"].as_str().unwrap().replace(id, "ID").into();
            error
        };
        assert_eq!(shape(&theirs, &task), shape(&none, unknown), "{method}");
        assert!(
            theirs["message"].as_str().unwrap().contains(method),
            "{theirs}"
        );
    }
    // Eve's update and cancel changed nothing: Ada's task still asks the
    // same question.
    let still = detailed(&get(&mut ada, &task), &task);
    assert_eq!(still["status"], "input_required", "{still}");
    assert_eq!(still["inputRequests"], asking["inputRequests"]);
    // Ada's own requests work; her answer, sent after Eve's, is the one the
    // task took (Eve's would keep the file; her cancel would have ended it).
    assert_ack(&update(
        &mut ada,
        &task,
        json!({"input-1": accept(json!({"confirm": true}))}),
    ));
    let done = wait_for(&mut ada, &task, "completed");
    assert_eq!(text(&done["result"]), "Deleted secret.txt");
    assert_ack(&cancel(&mut ada, &task));
}

#[test]
fn another_principals_cancel_does_not_cancel_a_working_task() {
    let server = start_with_auth("conformance", &[]);
    let mut ada = Http::as_subject(&server, "ada");
    let mut eve = Http::as_subject(&server, "eve");
    let task = created(&call(
        &mut ada,
        "slow_compute",
        json!({"seconds": 2, "label": "ada"}),
        with_tasks(),
    ));
    error(&cancel(&mut eve, &task), -32602);
    let done = wait_for(&mut ada, &task, "completed");
    assert_eq!(text(&done["result"]), "ada: computed for 2 s");
}

#[test]
fn with_authorization_the_task_quota_is_per_subject() {
    let server = start_with_auth("conformance", &[("MAX_TASKS_PER_CLIENT", "1")]);
    let mut ada = Http::as_subject(&server, "ada");
    let mut eve = Http::as_subject(&server, "eve");
    let long = || json!({"seconds": 30, "label": "q"});
    created(&call(&mut ada, "slow_compute", long(), with_tasks()));
    let refused = call(&mut ada, "slow_compute", long(), with_tasks());
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(text(&refused["result"]).contains("as many live tasks as the server allows"));
    // Eve, from the same address, has a quota of her own.
    created(&call(&mut eve, "slow_compute", long(), with_tasks()));
}

#[test]
fn answers_sent_at_the_same_moment_are_all_taken() {
    // Two `tasks/update`s racing on one record: the one whose
    // compare-and-set loses retries, and its answer must survive the retry.
    // (Over a socket the two rarely meet inside one read-modify-write; the
    // unit test `answers_survive_an_update_that_lost_a_compare_and_set` of
    // mcp-runtime makes the lost compare-and-set certain.)
    let server = Server::start_example("conformance", &[]);
    for _ in 0..4 {
        let task = created(&call(
            &mut Http::new(&server),
            "multi_input",
            json!({}),
            with_tasks(),
        ));
        let asking = wait_until(&mut Http::new(&server), &task, |t| keys(t).len() == 2);
        assert_eq!(keys(&asking), ["input-1", "input-2"]);
        let barrier = std::sync::Barrier::new(2);
        std::thread::scope(|scope| {
            for key in ["input-1", "input-2"] {
                let (server, task, barrier) = (&server, &task, &barrier);
                scope.spawn(move || {
                    let answer = json!({key: accept(json!({"name": key}))});
                    let request = message(
                        "tasks/update",
                        json!({"taskId": task, "inputResponses": answer}),
                        with_tasks(),
                    );
                    barrier.wait();
                    assert_ack(&Http::new(server).exchange(&request));
                });
            }
        });
        // Both were acked: neither question may still be outstanding.
        let after = detailed(&get(&mut Http::new(&server), &task), &task);
        assert!(keys(&after).is_empty(), "an acked answer was lost: {after}");
        let done = wait_for(&mut Http::new(&server), &task, "completed");
        assert!(text(&done["result"]).starts_with("Received:"), "{done}");
    }
}

#[test]
fn a_task_the_store_could_not_hold_takes_no_place_in_the_quota() {
    // Nothing listens on the store's port: every task's record fails to be
    // stored, and each refusal must say so, not that the quota is used up.
    let port = common::services::free_port().to_string();
    let url = format!("redis://127.0.0.1:{port}");
    let server = Server::start_example(
        "conformance",
        &[("MAX_TASKS_PER_CLIENT", "1"), ("REDIS_URL", &url)],
    );
    let mut http = Http::new(&server);
    // With a quota of one, the second refusal shows the first took no place.
    for _ in 0..2 {
        let response = call(&mut http, "failing_job", json!({}), with_tasks());
        let result = &response["result"];
        assert_valid(MODERN, "CallToolResult", result);
        assert_eq!(result["isError"], true, "{response}");
        let refusal = text(result);
        assert!(
            refusal.contains("'failing_job' was not started as a task. Retry the call later."),
            "{refusal}"
        );
        assert!(!refusal.contains("live tasks"), "{refusal}");
    }
}

#[test]
fn a_cancellation_notification_for_the_call_does_not_cancel_its_task() {
    // The extension: `notifications/cancelled` is not how a task is
    // cancelled; once the request was answered with the task, it is over.
    let mut peer = stdio(&[]);
    let request = message(
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 1, "label": "kept"}}),
        with_tasks(),
    );
    let task = created(&peer.exchange(&request));
    peer.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": request["id"], "reason": "not this way"}}),
    );
    let done = wait_for(&mut peer, &task, "completed");
    assert_eq!(text(&done["result"]), "kept: computed for 1 s");
}
