//! Replicas behind a stock load balancer: three `everything --http`
//! processes with one `MCP_SEAL_KEY` and their own `MCP_REPLICA` (`r1`,
//! `r2`, `r3`), behind an nginx that runs the shipped `deploy/nginx.conf`
//! (only ports and the log path substituted), all on loopback ports and
//! stopped by PID. Which replica answered each request is read from nginx's
//! access log (`upstream=`).
//!
//! The 2026-07-28 era needs no affinity: calls and elicitation rounds land
//! round-robin. Neither do tasks (Tasks extension): a task's record is in
//! the shared Redis, so one replica runs the tool and any replica answers
//! `tasks/get`, `tasks/update` and `tasks/cancel` (addressed directly here,
//! and round-robin through nginx); a killed worker's tasks fail when their
//! lease lapses. Legacy sessions reach the replica named by the tag in their
//! `Mcp-Session-Id`, driven by the official TypeScript client
//! (`tests/interop/replicas_client.mjs`).

use crate::common;

use common::assert_valid;
use common::http::{MODERN, Response, Server, call, meta, modern_to, post_to, raw_to};
use common::services::{Nginx, Redis};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// The key every replica seals `requestState` with.
const SEAL_KEY: &str = "replicas-behind-nginx-share-this-seal-key";

/// The replicas' tags, as `deploy/nginx.conf` maps them.
const TAGS: [&str; 3] = ["r1", "r2", "r3"];

/// The shipped nginx configuration with these replica addresses (in place
/// of `127.0.0.1:8081..8083`), the harness's port and its log directory.
/// Each spelling replaced must be found as often as the file is meant to
/// have it, so the file tested cannot drift from the file shipped.
fn shipped_config(replicas: &[String]) -> String {
    let mut config = include_str!("../../deploy/nginx.conf").to_owned();
    let mut replace = |from: &str, to: &str, times: usize| {
        assert_eq!(
            config.matches(from).count(),
            times,
            "deploy/nginx.conf should have `{from}` {times} times"
        );
        config = config.replace(from, to);
    };
    for (i, addr) in replicas.iter().enumerate() {
        // In the round-robin upstream and its tag's upstream, and as a
        // backup in the two other tags' upstreams.
        replace(
            &format!("server 127.0.0.1:{};", 8081 + i),
            &format!("server {addr};"),
            2,
        );
        replace(
            &format!("server 127.0.0.1:{} backup;", 8081 + i),
            &format!("server {addr} backup;"),
            2,
        );
    }
    replace("listen 8080;", "listen 127.0.0.1:{PORT};", 1);
    replace("/var/log/nginx/mcp_access.log", "logs/access.log", 1);
    config
}

/// A line of the `mcp` access log.
#[derive(Debug, Clone)]
struct Logged {
    status: u16,
    /// The address(es) nginx sent the request to, comma-separated.
    upstream: String,
    /// The session's replica tag, or `-`.
    session: String,
    name: String,
}

/// Three replicas behind nginx.
struct Cluster {
    /// Stopped first (fields drop in order).
    nginx: Nginx,
    /// `None` once stopped.
    replicas: Vec<Option<Server>>,
    addrs: Vec<String>,
}

impl Cluster {
    /// Starts the replicas (with `env` besides the seal key and tag), then
    /// nginx in front of them.
    fn start(env: &[(&str, &str)]) -> Cluster {
        Cluster::start_example("everything", env)
    }

    /// [`Cluster::start`] with replicas of `example`.
    fn start_example(example: &str, env: &[(&str, &str)]) -> Cluster {
        let replicas: Vec<Server> = TAGS
            .iter()
            .map(|tag| {
                let mut all = vec![("MCP_SEAL_KEY", SEAL_KEY), ("MCP_REPLICA", *tag)];
                all.extend_from_slice(env);
                Server::start_example(example, &all)
            })
            .collect();
        let addrs: Vec<String> = replicas.iter().map(|r| r.addr.clone()).collect();
        let nginx = Nginx::start(&shipped_config(&addrs));
        Cluster {
            nginx,
            replicas: replicas.into_iter().map(Some).collect(),
            addrs,
        }
    }

    /// nginx's `127.0.0.1:PORT`.
    fn addr(&self) -> String {
        self.nginx.addr()
    }

    /// Stops replica `i` (SIGKILL by PID, as a crash would).
    fn stop(&mut self, i: usize) {
        drop(self.replicas[i].take());
    }

    /// The index of the replica at `upstream` (a single address).
    fn replica_at(&self, upstream: &str) -> usize {
        self.addrs
            .iter()
            .position(|a| a == upstream)
            .unwrap_or_else(|| panic!("{upstream} is none of the replicas {:?}", self.addrs))
    }

    /// The access log so far.
    fn log(&self) -> Vec<Logged> {
        self.nginx
            .log("access.log")
            .lines()
            .map(|line| {
                // `… "POST /mcp HTTP/1.1" 200 123 upstream=A, B upstream_status=502, 404 …`:
                // a value runs to the next ` key=` (addresses are comma-separated).
                let (_, after) = line.rsplit_once('"').expect("a quoted request");
                let status = after.split_whitespace().next().unwrap().parse().unwrap();
                let keys = [
                    "upstream",
                    "upstream_status",
                    "session",
                    "method",
                    "name",
                    "time",
                ];
                let field = |key: &str| {
                    let start = after
                        .find(&format!(" {key}="))
                        .unwrap_or_else(|| panic!("no {key}= in {line}"))
                        + key.len()
                        + 2;
                    let end = keys
                        .iter()
                        .filter_map(|k| after[start..].find(&format!(" {k}=")))
                        .min()
                        .map_or(after.len(), |end| start + end);
                    after[start..end].to_owned()
                };
                Logged {
                    status,
                    upstream: field("upstream"),
                    session: field("session"),
                    name: field("name"),
                }
            })
            .collect()
    }

    /// The log lines of calls to `tool`, with the replica that answered.
    fn calls_of(&self, tool: &str) -> Vec<usize> {
        self.log()
            .iter()
            .filter(|l| l.name == tool)
            .map(|l| self.replica_at(&l.upstream))
            .collect()
    }
}

/// A `book_table` call from a client that can answer questions.
fn book(id: u64, party: u32) -> Value {
    let mut book = call(id, "book_table", json!({"party": party}));
    book["params"]["_meta"] = meta(json!({"elicitation": {}}));
    book
}

/// The result of a 2026-07-28 response, validated as `kind`.
fn result(response: &Response, kind: &str) -> Value {
    assert_eq!(response.status, 200, "{response:?}");
    let message = response.json();
    assert_valid(MODERN, kind, &message["result"]);
    message["result"].clone()
}

// ---- the 2026-07-28 era: round-robin ----

#[test]
fn three_hundred_adds_spread_over_all_three_replicas() {
    let cluster = Cluster::start(&[]);
    let addr = cluster.addr();
    std::thread::scope(|scope| {
        for thread in 0..6_u64 {
            let addr = &addr;
            scope.spawn(move || {
                for i in 0..50_u64 {
                    let id = thread * 100 + i;
                    let response =
                        modern_to(addr, &call(id, "add", json!({"a": i, "b": thread})), &[]);
                    let sum =
                        result(&response, "CallToolResult")["structuredContent"]["sum"].clone();
                    assert_eq!(sum, json!((i + thread) as f64), "{response:?}");
                }
            });
        }
    });
    let mut per_replica = [0_usize; 3];
    for replica in cluster.calls_of("add") {
        per_replica[replica] += 1;
    }
    eprintln!("add calls per replica: {per_replica:?}");
    assert_eq!(per_replica.iter().sum::<usize>(), 300);
    // Round-robin: a fair share each (exactly 100 when nothing else runs).
    assert!(per_replica.iter().all(|&n| n >= 80), "{per_replica:?}");
}

#[test]
fn elicitation_rounds_complete_across_replicas() {
    // Replicas share the seal key and the store of issued states (which is
    // what lets a round issued on one be answered, once, on another).
    let redis = Redis::start();
    let url = redis.url();
    let cluster = Cluster::start(&[("REDIS_URL", url.as_str())]);
    let addr = cluster.addr();
    let mut requests_per_booking = Vec::new();
    for i in 0..20_u64 {
        // Every other party needs a deposit too: two rounds, the second
        // sealing the first answer in its requestState.
        let party = if i % 2 == 0 { 2 } else { 10 };
        let first = book(i * 10, party);
        let mut answer = result(&modern_to(&addr, &first, &[]), "InputRequiredResult");
        let mut requests = 1;
        let done = loop {
            let asked: Vec<&String> = answer["inputRequests"]
                .as_object()
                .unwrap()
                .keys()
                .collect();
            let responses = match asked.as_slice() {
                [key] if *key == "guest" => {
                    json!({"guest": {"action": "accept", "content": {"name": format!("guest {i}")}}})
                }
                [key] if *key == "deposit" => {
                    json!({"deposit": {"action": "accept", "content": {"pay": true}}})
                }
                other => panic!("unexpected questions {other:?}"),
            };
            let mut retry = first.clone();
            retry["id"] = (i * 10 + requests).into();
            retry["params"]["inputResponses"] = responses;
            retry["params"]["requestState"] = answer["requestState"].clone();
            let response = modern_to(&addr, &retry, &[]);
            requests += 1;
            let message = response.json();
            if message["result"]["resultType"] == "input_required" {
                answer = result(&response, "InputRequiredResult");
            } else {
                break result(&response, "CallToolResult");
            }
        };
        assert_eq!(
            done["structuredContent"],
            json!({"booked": true, "name": format!("guest {i}"), "party": party}),
            "booking {i}"
        );
        requests_per_booking.push(requests as usize);
    }
    // Requests were sent one at a time, so the log lists each booking's
    // requests together, in order.
    let replicas = cluster.calls_of("book_table");
    assert_eq!(replicas.len(), requests_per_booking.iter().sum::<usize>());
    let (mut rounds, mut crossed, mut at) = (0, 0, 0);
    for n in requests_per_booking {
        let booking = &replicas[at..at + n];
        at += n;
        for pair in booking.windows(2) {
            rounds += 1;
            crossed += usize::from(pair[0] != pair[1]);
        }
    }
    eprintln!("elicitation rounds: {rounds}, answered on another replica than asked: {crossed}");
    assert_eq!(rounds, 30);
    assert!(crossed > 0, "no round crossed replicas");
}

#[test]
fn locate_routes_and_validates_its_headers_through_nginx() {
    let cluster = Cluster::start(&[]);
    let (proxy, direct) = (cluster.addr(), cluster.addrs[0].clone());
    let eu = call(1, "locate", json!({"region": "eu", "shard": 42}));
    let matching = [("Mcp-Param-Region", "eu"), ("Mcp-Param-Shard", "42")];
    for _ in 0..3 {
        let located = result(&modern_to(&proxy, &eu, &matching), "CallToolResult");
        assert_eq!(
            located["structuredContent"],
            json!({"region": "eu", "shard": 42})
        );
    }
    // The headers reach the replica unchanged: a mismatch, a missing one and
    // a bad sentinel get the same 400 through nginx as directly.
    for headers in [
        &[("Mcp-Param-Region", "us"), ("Mcp-Param-Shard", "42")][..],
        &[("Mcp-Param-Shard", "42")][..],
        &[
            ("Mcp-Param-Region", "=?base64?!!?="),
            ("Mcp-Param-Shard", "42"),
        ][..],
    ] {
        let through = modern_to(&proxy, &eu, headers);
        let straight = modern_to(&direct, &eu, headers);
        let error = through.expect_error(400, -32020);
        assert_eq!(error, straight.expect_error(400, -32020), "{headers:?}");
    }
    let replicas = cluster.calls_of("locate");
    assert_eq!(replicas.len(), 6);
    let mut seen = replicas.clone();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 3, "locate went round-robin: {replicas:?}");
}

/// Progress reaches the client as it happens. Two things see to it, either
/// enough: `proxy_buffering off` in the config and the replicas'
/// `X-Accel-Buffering: no` on every event stream.
#[test]
fn event_streams_pass_through_nginx_as_they_come() {
    let cluster = Cluster::start(&[]);
    let addr = cluster.addr();
    let mut slow = call(1, "slow", json!({"ms": 3000, "steps": 3}));
    slow["params"]["_meta"]["progressToken"] = "p".into();
    let body = slow.to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let headers = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "slow"),
    ];
    let started = Instant::now();
    stream
        .write_all(&common::http::request_bytes(&addr, "POST", &headers, &body))
        .unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    while !line.contains("notifications/progress") {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
    }
    let first = started.elapsed();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut reader, &mut rest).unwrap();
    let all = started.elapsed();
    assert!(rest.contains("\"steps\":3"), "{rest}");
    // The first step's progress (at 1 s) arrived long before the result (3 s).
    eprintln!("through nginx: first progress after {first:?}, result after {all:?}");
    assert!(
        all - first > Duration::from_millis(1500),
        "{first:?} {all:?}"
    );
}

// ---- resource subscriptions: changes fan out through Redis ----

/// A `test_trigger_resource_update` call of the `conformance` example.
fn touch(id: u64, uri: &str) -> Value {
    call(id, "test_trigger_resource_update", json!({"uri": uri}))
}

#[test]
fn a_resource_update_told_on_one_replica_reaches_the_subscribers_of_all() {
    let mut redis = Redis::start();
    let url = redis.url();
    let cluster = Cluster::start_example("conformance", &[("REDIS_URL", &url)]);
    let addr = cluster.addr();
    let uri = "test://watched-resource";
    // A 2026-07-28 listen stream on each replica, addressed directly.
    let mut streams: Vec<_> = cluster
        .addrs
        .iter()
        .enumerate()
        .map(|(i, replica)| {
            crate::subscriptions::http::open_listen(
                replica,
                i as u64 + 1,
                json!({"resourceSubscriptions": [uri]}),
            )
        })
        .collect();
    // A legacy session through nginx (its tag keeps it on one replica),
    // subscribed on a POST, listening on its GET stream.
    let session = crate::subscriptions::http::open_session(&addr);
    let subscribed = crate::subscriptions::http::legacy_post(
        &addr,
        &session,
        &common::request(2, "resources/subscribe", json!({"uri": uri}), false),
    );
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    let mut push = crate::subscriptions::http::open_push(&addr, &session);
    // Told on each replica in turn (addressed directly, so which one told
    // it is known), then once through nginx: each subscriber, wherever it
    // is, hears all four.
    for (i, replica) in cluster.addrs.iter().enumerate() {
        let told = modern_to(replica, &touch(10 + i as u64, uri), &[]);
        assert_eq!(told.status, 200, "{told:?}");
    }
    let told = modern_to(&addr, &touch(13, uri), &[]);
    assert_eq!(told.status, 200, "{told:?}");
    for (i, stream) in streams.iter_mut().enumerate() {
        for _ in 0..4 {
            assert_eq!(
                stream.next(),
                json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                    "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": i + 1},
                        "uri": uri}})
            );
        }
    }
    for _ in 0..4 {
        assert_eq!(
            push.next(),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                "params": {"uri": uri}})
        );
    }

    // Redis restarts: each replica listens again by itself, and an update
    // told on replica 0 reaches replica 2's stream again. (Updates told
    // before both listen again are lost, so tell until one arrives.)
    redis.stop();
    redis.start_again();
    let deadline = Instant::now() + Duration::from_secs(20);
    let (tx, arrived) = mpsc::channel();
    let mut last = streams.pop().unwrap();
    std::thread::spawn(move || tx.send(last.next()));
    let mut id = 100;
    let after = loop {
        let told = modern_to(&cluster.addrs[0], &touch(id, uri), &[]);
        assert_eq!(told.status, 200, "{told:?}");
        if let Ok(message) = arrived.recv_timeout(Duration::from_millis(200)) {
            break message;
        }
        assert!(Instant::now() < deadline, "no update after Redis came back");
        id += 1;
    };
    assert_eq!(
        after,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 3}, "uri": uri}})
    );
}

/// Needs the shared store (`REDIS_URL`): without it each replica keeps its
/// own set of spent states and the replay below is accepted.
#[test]
fn a_replayed_request_state_is_refused_on_another_replica() {
    let redis = Redis::start();
    let url = redis.url();
    let cluster = Cluster::start(&[("REDIS_URL", &url)]);
    let first = book(1, 2);
    let question = result(
        &modern_to(&cluster.addr(), &first, &[]),
        "InputRequiredResult",
    );
    let mut retry = first.clone();
    retry["id"] = 2.into();
    retry["params"]["inputResponses"] =
        json!({"guest": {"action": "accept", "content": {"name": "Ada"}}});
    retry["params"]["requestState"] = question["requestState"].clone();
    let done = result(&modern_to(&cluster.addr(), &retry, &[]), "CallToolResult");
    assert_eq!(done["structuredContent"]["booked"], true, "{done}");
    let answered = *cluster.calls_of("book_table").last().unwrap();
    // The same answer again, on each of the other replicas: refused.
    for other in (0..3).filter(|&i| i != answered) {
        let replay = modern_to(&cluster.addrs[other], &retry, &[]);
        let message = replay.json();
        assert_eq!(
            message["error"]["code"], -32602,
            "replica {other}: {message}"
        );
        assert!(
            message["error"]["message"]
                .as_str()
                .unwrap()
                .contains("already used"),
            "{message}"
        );
    }
}

// ---- the Tasks extension: a task on one replica, served by all ----

/// The `_meta` of a request from a client that declares the Tasks
/// extension (and can answer questions).
fn tasks_meta() -> Value {
    meta(json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}))
}

/// A `build_report` call of `sections` sections, `step_ms` each, from a
/// client that declares the extension.
fn report_call(sections: u32, step_ms: u64) -> Value {
    let mut report = call(
        1,
        "build_report",
        json!({"sections": sections, "step_ms": step_ms}),
    );
    report["params"]["_meta"] = tasks_meta();
    report
}

/// A `tasks/*` request naming `task`, with `params` besides `taskId`
/// (`modern_to` sends `Mcp-Name: <taskId>` with it).
fn task_request(method: &str, task: &str, params: Value) -> Value {
    let mut request = json!({"jsonrpc": "2.0", "id": 2, "method": method,
        "params": {"taskId": task, "_meta": tasks_meta()}});
    for (key, value) in params.as_object().unwrap() {
        request["params"][key] = value.clone();
    }
    request
}

/// Starts a `build_report` task at `addr`; its id.
fn create_report(addr: &str, sections: u32, step_ms: u64) -> String {
    let response = modern_to(addr, &report_call(sections, step_ms), &[]);
    assert_eq!(response.status, 200, "{response:?}");
    let created = response.json()["result"].clone();
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working", "{created}");
    assert_eq!(created["ttlMs"], 3_600_000, "{created}");
    created["taskId"].as_str().unwrap().to_owned()
}

/// `tasks/get` of `task` at `addr`: the task, its id checked.
fn get_task(addr: &str, task: &str) -> Value {
    let response = modern_to(addr, &task_request("tasks/get", task, json!({})), &[]);
    assert_eq!(response.status, 200, "{response:?}");
    let got = response.json()["result"].clone();
    assert_eq!(got["resultType"], "complete", "{got}");
    assert_eq!(got["taskId"], task, "{got}");
    got
}

/// `tasks/update` or `tasks/cancel` of `task` at `addr`: the empty
/// `complete` result the extension answers both with.
fn change_task(addr: &str, method: &str, task: &str, params: Value) {
    let response = modern_to(addr, &task_request(method, task, params), &[]);
    assert_eq!(response.status, 200, "{response:?}");
    let message = response.json();
    let mut result = message["result"].clone();
    // Besides the server's `_meta` (its serverInfo), nothing.
    result.as_object_mut().unwrap().remove("_meta");
    assert_eq!(result, json!({"resultType": "complete"}), "{message}");
}

/// How long [`polls_until`] waits for a task before it fails the test.
const POLL_FAILSAFE: Duration = Duration::from_secs(60);

/// One `tasks/get` answer, and when it was asked by the wall clock (the
/// clock the replicas' records use: the same machine's).
struct Poll {
    asked: SystemTime,
    task: Value,
}

/// Polls `task` with `tasks/get`, on `addrs` in turn, every 100 ms until
/// `done` says so: every poll, in order, the last one `done`'s. The tasks
/// waited for end (or get where `done` waits) on their own within seconds:
/// [`POLL_FAILSAFE`] only stops a test whose task never does. A verdict on
/// timing compares the polls' times with the records' instead.
fn polls_until(addrs: &[&str], task: &str, done: impl Fn(&Value) -> bool) -> Vec<Poll> {
    let deadline = Instant::now() + POLL_FAILSAFE;
    let mut polls = Vec::new();
    for turn in 0.. {
        let asked = SystemTime::now();
        let got = get_task(addrs[turn % addrs.len()], task);
        let finished = done(&got);
        polls.push(Poll { asked, task: got });
        if finished {
            return polls;
        }
        assert!(
            Instant::now() < deadline,
            "task not done within {POLL_FAILSAFE:?}: {}\nseen {:?}",
            polls[polls.len() - 1].task,
            messages(&polls)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    unreachable!()
}

/// The status messages of `polls`, each once, in order.
fn messages(polls: &[Poll]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for poll in polls {
        if let Some(message) = poll.task["statusMessage"].as_str()
            && seen.last().map(String::as_str) != Some(message)
        {
            seen.push(message.to_owned());
        }
    }
    seen
}

/// [`polls_until`]'s last answer (the task `done` accepted) and the status
/// messages seen on the way.
fn poll_until(addrs: &[&str], task: &str, done: impl Fn(&Value) -> bool) -> (Value, Vec<String>) {
    let mut polls = polls_until(addrs, task, done);
    let seen = messages(&polls);
    (polls.pop().expect("one poll at least").task, seen)
}

/// An RFC 3339 time of a task record (`lastUpdatedAt`, the lapse in a
/// status message).
fn record_time(text: &str) -> SystemTime {
    humantime::parse_rfc3339(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

/// Whether `task`'s status message counts `what` `n` or further (`section
/// 2 of 20`, `section 3 of 20`): a poll can miss a step on a busy machine,
/// so no step is waited for exactly.
fn reached(task: &Value, what: &str, n: u32) -> bool {
    task["statusMessage"]
        .as_str()
        .and_then(|m| m.strip_prefix(what)?.strip_prefix(' ')?.split_once(" of "))
        .and_then(|(step, _)| step.parse::<u32>().ok())
        .is_some_and(|step| step >= n)
}

fn is_terminal(task: &Value) -> bool {
    ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap())
}

/// The one outstanding input request of a task that asks whether to add
/// the appendix, checked: its key.
fn appendix_question(task: &Value) -> String {
    assert_eq!(task["status"], "input_required", "{task}");
    let requests = &task["inputRequests"];
    assert_valid(MODERN, "InputRequests", requests);
    let keys: Vec<&String> = requests.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 1, "{task}");
    let request = &requests[keys[0].as_str()];
    assert_eq!(request["method"], "elicitation/create", "{task}");
    assert!(
        request["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Include the appendix?"),
        "{task}"
    );
    keys[0].clone()
}

/// The answer to [`appendix_question`]'s `key`: `include`.
fn appendix_answer(key: &str, include: bool) -> Value {
    let responses = json!({key: {"action": "accept", "content": {"include": include}}});
    assert_valid(MODERN, "InputResponses", &responses);
    json!({"inputResponses": responses})
}

/// Which replicas logged `what` for `task` (`task created`, `task ended`).
fn logged_by(cluster: &Cluster, what: &str, task: &str) -> Vec<usize> {
    cluster
        .replicas
        .iter()
        .enumerate()
        .filter(|(_, replica)| {
            replica.as_ref().is_some_and(|r| {
                r.log()
                    .lines()
                    .any(|line| line.contains(what) && line.contains(task))
            })
        })
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn a_task_made_on_one_replica_is_polled_answered_and_finished_on_the_others() {
    let redis = Redis::start();
    let url = redis.url();
    let cluster = Cluster::start(&[("REDIS_URL", &url)]);
    let [r1, r2, r3] = [0, 1, 2].map(|i| cluster.addrs[i].as_str());
    let started = Instant::now();
    let task = create_report(r1, 6, 300);
    // Polled on r2 until it asks (after section 3 of 6).
    let (asking, seen) = poll_until(&[r2], &task, |t| t["status"] == "input_required");
    let key = appendix_question(&asking);
    assert_eq!(key, "input-1");
    assert_eq!(asking["statusMessage"], "section 3 of 6", "{asking}");
    assert!(
        seen.iter()
            .all(|m| ["section 1 of 6", "section 2 of 6", "section 3 of 6"].contains(&m.as_str())),
        "{seen:?}"
    );
    // Answered on r3.
    change_task(r3, "tasks/update", &task, appendix_answer(&key, true));
    // Polled on all three in turn until it is done.
    let (done, seen) = poll_until(&[r1, r2, r3], &task, is_terminal);
    let took = started.elapsed();
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done.get("inputRequests"), None, "{done}");
    let result = &done["result"];
    // The CallToolResult inlined as the extension's example shows it: its
    // `resultType` is the task's (`complete`), not repeated inside.
    assert_eq!(result.get("resultType"), None, "{done}");
    let mut whole = result.clone();
    whole["resultType"] = "complete".into();
    assert_valid(MODERN, "CallToolResult", &whole);
    assert_ne!(result["isError"], true, "{done}");
    let text = "Report in 6 sections\n1. Section 1\n2. Section 2\n3. Section 3\n4. Section 4\n5. Section 5\n6. Section 6\nAppendix\n";
    assert_eq!(
        result["structuredContent"],
        json!({"sections": 6, "appendix": true, "text": text}),
        "{done}"
    );
    // The progress after the answer reached the record too, the last of it
    // kept as the completed task's status message.
    assert_eq!(done["statusMessage"], "section 6 of 6", "{done}");
    assert!(
        seen.iter()
            .any(|m| m == "section 4 of 6" || m == "section 5 of 6"),
        "{seen:?}"
    );
    // The answer is taken once: sent again (to r2), it is ignored.
    change_task(r2, "tasks/update", &task, appendix_answer(&key, false));
    assert_eq!(get_task(r1, &task)["result"], *result);
    // The tool ran on r1 alone.
    assert_eq!(logged_by(&cluster, "task created", &task), [0]);
    assert_eq!(logged_by(&cluster, "task ended", &task), [0]);
    eprintln!("tasks: made on r1, polled on r2, answered on r3, completed in {took:?}");
}

#[test]
fn a_task_cancelled_on_another_replica_than_its_worker_ends_cancelled() {
    let redis = Redis::start();
    let url = redis.url();
    let cluster = Cluster::start(&[("REDIS_URL", &url)]);
    let [r1, r2, r3] = [0, 1, 2].map(|i| cluster.addrs[i].as_str());
    // 20 sections of 500 ms: the question would come after 5 s.
    let task = create_report(r1, 20, 500);
    poll_until(&[r2], &task, |t| reached(t, "section", 2));
    let asked = Instant::now();
    change_task(r2, "tasks/cancel", &task, json!({}));
    // Left alone, the task waits on its question (after 5 s) and never ends:
    // only the cancel can end it, however slow the machine. The bound is a
    // failsafe, not a verdict.
    let (done, _) = poll_until(&[r3], &task, is_terminal);
    let took = asked.elapsed();
    assert_eq!(done["status"], "cancelled", "{done}");
    assert_eq!(done["statusMessage"], "Cancelled by the client.", "{done}");
    assert_eq!(done.get("result"), None, "{done}");
    // The worker, r1, stopped the tool and recorded the end itself (it
    // polls its record every 200 ms).
    assert_eq!(logged_by(&cluster, "task ended", &task), [0]);
    let ended = cluster.replicas[0].as_ref().unwrap().log();
    assert!(
        ended
            .lines()
            .any(|l| l.contains("task ended") && l.contains(&task) && l.contains("cancelled")),
        "{ended}"
    );
    // Later sections never come: the worker records the end only once the
    // tool has stopped (above), and a section written late finds the task
    // ended. A second cancel changes nothing either.
    change_task(r1, "tasks/cancel", &task, json!({}));
    let after = get_task(r2, &task);
    assert_eq!(after["status"], "cancelled", "{after}");
    assert_eq!(after["lastUpdatedAt"], done["lastUpdatedAt"], "{after}");
    eprintln!("tasks: cancelled on r2 while running on r1; cancelled (seen on r3) after {took:?}");
}

#[test]
fn a_task_whose_replica_is_killed_fails_once_its_lease_lapses() {
    let redis = Redis::start();
    let url = redis.url();
    let mut cluster = Cluster::start(&[("REDIS_URL", &url)]);
    let (r2, r3) = (cluster.addrs[1].clone(), cluster.addrs[2].clone());
    let task = create_report(&cluster.addrs[0], 20, 500);
    poll_until(&[&r2], &task, |t| reached(t, "section", 2));
    // SIGKILL: r1 renews nothing and settles nothing any more.
    cluster.stop(0);
    let killed = SystemTime::now();
    // Left alone, the lease lapses at most 10 s after the kill, whatever the
    // machine's speed: the bound is a failsafe.
    let polls = polls_until(&[&r2], &task, is_terminal);
    let failed = &polls[polls.len() - 1].task;
    assert_eq!(failed["status"], "failed", "{failed}");
    let message = failed["statusMessage"].as_str().unwrap();
    assert!(
        message.contains("lease lapsed") && message.contains("stopped before it finished"),
        "{failed}"
    );
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert_eq!(failed.get("result"), None, "{failed}");
    // Judged on the records' times, not on how long the polls took: the
    // lease lapsed (as the message says) at most 10 s after the kill (it was
    // renewed before), the task failed after that and not before, and at
    // the first poll asked after it (every later one found it failed).
    let lapsed_at = message
        .split_once("lapsed at ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(at, _)| record_time(at))
        .unwrap_or_else(|| panic!("no lapse time in {message:?}"));
    let settled = record_time(failed["lastUpdatedAt"].as_str().unwrap());
    assert!(
        lapsed_at <= killed + Duration::from_secs(10),
        "the lease lapsed {:?} after the kill",
        lapsed_at.duration_since(killed)
    );
    assert!(
        settled > lapsed_at,
        "failed before the lease lapsed: {failed}"
    );
    // A record's times are whole milliseconds.
    let after_lapse = lapsed_at + Duration::from_millis(1);
    for poll in polls.iter().filter(|p| p.asked >= after_lapse) {
        assert_eq!(
            poll.task["status"], "failed",
            "asked after the lapse: {}",
            poll.task
        );
    }
    // A poll does not wait on the lost worker: one asked after the kill was
    // answered while the lease still held (the machine's speed counts only
    // against the 6.7 to 10 s the lease had left).
    assert!(
        polls
            .iter()
            .any(|p| p.asked >= killed && p.task["status"] != "failed"),
        "no poll after the kill answered before the lapse"
    );
    eprintln!(
        "tasks: r1 killed mid-task; lease lapsed {:?} and failed {:?} after the kill, {} polls on r2",
        lapsed_at.duration_since(killed).unwrap_or_default(),
        settled.duration_since(killed).unwrap_or_default(),
        polls.len()
    );
    // Every replica reads the same end, and late answers or cancels leave it.
    change_task(&r3, "tasks/update", &task, appendix_answer("input-1", true));
    change_task(&r3, "tasks/cancel", &task, json!({}));
    let after = get_task(&r3, &task);
    assert_eq!(after["status"], "failed", "{after}");
    assert_eq!(after["statusMessage"], message, "{after}");
    assert_eq!(after["lastUpdatedAt"], failed["lastUpdatedAt"], "{after}");
    // The tool was not run again anywhere: no live replica started or
    // ended the task as its worker.
    for what in ["task created", "task ended"] {
        assert_eq!(logged_by(&cluster, what, &task), Vec::<usize>::new());
    }
}

#[test]
fn a_resumable_task_whose_replica_is_killed_is_started_again_on_another() {
    let redis = Redis::start();
    let url = redis.url();
    let mut cluster = Cluster::start(&[("REDIS_URL", &url)]);
    let r2 = cluster.addrs[1].clone();
    let mut crawl = call(1, "crawl", json!({"pages": 30, "step_ms": 300}));
    crawl["params"]["_meta"] = tasks_meta();
    let created = modern_to(&cluster.addrs[0], &crawl, &[]).json()["result"].clone();
    assert_eq!(created["resultType"], "task", "{created}");
    let task = created["taskId"].as_str().unwrap().to_owned();
    poll_until(&[&r2], &task, |t| reached(t, "page", 2));
    cluster.stop(0);
    // The lease lapses (at most 10 s): the next poll on r2 takes the task
    // over and runs the crawl again from its first page, on r2.
    let (resumed, _) = poll_until(&[&r2], &task, |t| {
        t["statusMessage"]
            .as_str()
            .is_some_and(|m| m.contains("started again"))
    });
    assert_eq!(resumed["status"], "working", "{resumed}");
    assert!(
        resumed["statusMessage"]
            .as_str()
            .unwrap()
            .contains("attempt 2 of 4"),
        "{resumed}"
    );
    let (done, _) = poll_until(&[&r2], &task, is_terminal);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "Crawled 30 pages",
        "{done}"
    );
    assert_eq!(logged_by(&cluster, "task taken over", &task), [1]);
}

#[test]
fn a_task_runs_to_its_end_through_nginx_round_robin() {
    let redis = Redis::start();
    let url = redis.url();
    let cluster = Cluster::start(&[("REDIS_URL", &url)]);
    let addr = cluster.addr();
    let task = create_report(&addr, 4, 200);
    let (asking, _) = poll_until(&[&addr], &task, |t| t["status"] == "input_required");
    let key = appendix_question(&asking);
    change_task(&addr, "tasks/update", &task, appendix_answer(&key, false));
    let (done, _) = poll_until(&[&addr], &task, is_terminal);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["appendix"], false,
        "{done}"
    );
    assert_eq!(done["result"]["structuredContent"]["sections"], 4, "{done}");
    // `Mcp-Name` of tasks/* is the task id; the requests naming it went
    // round-robin, and each replica served them from the shared store.
    let served = cluster.calls_of(&task);
    let mut seen = served.clone();
    seen.sort_unstable();
    seen.dedup();
    eprintln!(
        "tasks through nginx: {} tasks/* requests, served by replicas {seen:?}",
        served.len()
    );
    assert_eq!(seen, [0, 1, 2], "{served:?}");
    // Without the extension the same tool is a plain call: its question is
    // a 2026-07-28 round, answered on whichever replica the retry reaches.
    let mut plain = call(3, "build_report", json!({"sections": 2, "step_ms": 10}));
    plain["params"]["_meta"] = meta(json!({"elicitation": {}}));
    let round = result(&modern_to(&addr, &plain, &[]), "InputRequiredResult");
    let keys: Vec<&String> = round["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["appendix"], "{round}");
    let mut retry = plain.clone();
    retry["params"]["inputResponses"] =
        json!({"appendix": {"action": "accept", "content": {"include": true}}});
    retry["params"]["requestState"] = round["requestState"].clone();
    let done = result(&modern_to(&addr, &retry, &[]), "CallToolResult");
    assert_eq!(
        done["structuredContent"],
        json!({"sections": 2, "appendix": true,
            "text": "Report in 2 sections\n1. Section 1\n2. Section 2\nAppendix\n"}),
        "{done}"
    );
}

// ---- legacy sessions: routed by the replica tag ----

#[test]
fn legacy_sessions_stay_on_their_replica_and_start_over_when_it_is_gone() {
    let mut cluster = Cluster::start(&[]);
    let dir = common::node::interop_dir();
    let mut client = Command::new("node")
        .arg(dir.join("replicas_client.mjs"))
        .arg(format!("http://{}/mcp", cluster.addr()))
        .arg("6")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs (install Node.js >= 20)");
    let mut stdin = client.stdin.take().unwrap();
    let stdout = BufReader::new(client.stdout.take().unwrap());
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let next = |phase: u64| -> Vec<Value> {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the client did not finish phase {phase}"));
        let report: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(report["phase"], phase, "{report}");
        report["sessions"].as_array().unwrap().clone()
    };
    let tag = |id: &str| {
        id.split_once('.')
            .expect("a tagged session id")
            .0
            .to_owned()
    };

    // Six sessions, each list + call + elicitation.
    let sessions = next(1);
    assert_eq!(sessions.len(), 6);
    let mut tags: Vec<String> = Vec::new();
    for session in &sessions {
        assert_eq!(session["completed"], true, "{session}");
        let id = session["id"].as_str().unwrap();
        let (prefix, random) = id.split_once('.').unwrap();
        assert!(TAGS.contains(&prefix), "{id}");
        assert!(
            random.len() == 32 && random.bytes().all(|b| b.is_ascii_hexdigit()),
            "{id}"
        );
        tags.push(prefix.to_owned());
    }
    let mut distinct = tags.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "initialize went round-robin: {tags:?}");
    // Every request naming a session reached the replica of its tag.
    let before = cluster.log();
    let in_sessions: Vec<&Logged> = before.iter().filter(|l| l.session != "-").collect();
    for line in &in_sessions {
        let tagged = TAGS.iter().position(|t| *t == line.session).unwrap();
        assert_eq!(cluster.replica_at(&line.upstream), tagged, "{line:?}");
    }
    eprintln!(
        "legacy: {} sessions ({tags:?}), {} requests in sessions, each on its replica",
        sessions.len(),
        in_sessions.len()
    );

    // The replica of the first session goes away.
    let gone = TAGS.iter().position(|t| *t == tags[0]).unwrap();
    cluster.stop(gone);
    std::thread::sleep(Duration::from_millis(200));
    writeln!(stdin, "go").unwrap();
    let after = next(2);
    let mut restarted = 0;
    for (session, old) in after.iter().zip(&tags) {
        assert_eq!(session["completed"], true, "{session}");
        let new = tag(session["after"].as_str().unwrap());
        if *old == TAGS[gone] {
            // 404 through nginx, then a new session on a live replica.
            assert_eq!(session["status"], 404, "{session}");
            assert_ne!(new, TAGS[gone], "{session}");
            restarted += 1;
        } else {
            assert_eq!(session["status"], 200, "{session}");
            assert_eq!(session["before"], session["after"], "{session}");
        }
    }
    assert_eq!(restarted, tags.iter().filter(|t| **t == TAGS[gone]).count());
    let status = wait_for_exit(&mut client);
    assert!(status.success(), "the client failed: {status}");
    // nginx noticed the replica was down and passed the request on to a
    // backup, which answered 404.
    let dead = &cluster.addrs[gone];
    let passed_on: Vec<Logged> = cluster.log()[before.len()..]
        .iter()
        .filter(|l| l.upstream.starts_with(dead.as_str()) && l.upstream.contains(", "))
        .cloned()
        .collect();
    assert!(
        passed_on.iter().any(|l| l.status == 404),
        "{passed_on:?}\n{}",
        cluster.nginx.log("access.log")
    );
    eprintln!(
        "legacy: replica {} stopped; {restarted} sessions got 404 through nginx and re-initialized",
        TAGS[gone]
    );
}

/// Waits (bounded: 30 s) for a child to exit; kills it and fails if it
/// does not.
fn wait_for_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the process did not exit within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---- the pieces: tags in session ids, the health route ----

#[test]
fn minted_session_ids_carry_the_replica_tag() {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "replicas-tests", "version": "1"}}})
    .to_string();
    let tagged = Server::start(&[("MCP_REPLICA", "mcp-7d9f8c6b5-x2x4q")]);
    let id = post_to(&tagged.addr, &[], &initialize)
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let random = id.strip_prefix("mcp-7d9f8c6b5-x2x4q.").expect(&id);
    assert!(
        random.len() == 32 && random.bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    // The basket example reads it too.
    let basket = Server::start_example("basket", &[("MCP_REPLICA", "b1")]);
    let id = post_to(&basket.addr, &[], &initialize)
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    assert!(id.starts_with("b1.") && id.len() == 35, "{id}");
    let plain = Server::start(&[]);
    let id = post_to(&plain.addr, &[], &initialize)
        .header("mcp-session-id")
        .unwrap()
        .to_owned();
    assert!(id.len() == 32 && !id.contains('.'), "{id}");
}

#[test]
fn a_tag_that_cannot_go_into_a_session_id_stops_the_server_at_startup() {
    for bad in ["r.2", "r 2", ""] {
        let mut child = Command::new(common::example_binary("everything"))
            .args(["--http", "127.0.0.1:0"])
            .env("MCP_REPLICA", bad)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A server that accepted the tag would serve until stopped.
        let status = wait_for_exit(&mut child);
        assert_eq!(status.code(), Some(1), "{bad:?}");
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert!(stderr.contains("invalid replica tag"), "{bad:?}: {stderr}");
    }
}

#[test]
fn the_health_route_answers_ok_to_probes() {
    let server = Server::start(&[]);
    let get = |path: &str, host: &str| {
        raw_to(
            &server.addr,
            format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
        )
    };
    let ok = get("/health", &server.addr);
    assert_eq!((ok.status, ok.body.as_str()), (200, "ok\n"), "{ok:?}");
    assert_eq!(ok.header("content-type"), Some("text/plain; charset=utf-8"));
    // A probe names the replica by its address, not an allowed host.
    assert_eq!(get("/health", "10.1.2.3:8080").status, 200);
    let head = raw_to(
        &server.addr,
        format!(
            "HEAD /health HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            server.addr
        )
        .as_bytes(),
    );
    assert_eq!(head.status, 200);
    // Other paths are still not served, and the check stays on for /mcp.
    assert_eq!(get("/healthz", &server.addr).status, 404);
    assert_eq!(get("/mcp", "10.1.2.3:8080").status, 403);
}

#[test]
fn the_health_route_answers_through_nginx() {
    let cluster = Cluster::start(&[]);
    for _ in 0..3 {
        let response = raw_to(
            &cluster.addr(),
            format!(
                "GET /health HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                cluster.addr()
            )
            .as_bytes(),
        );
        assert_eq!((response.status, response.body.as_str()), (200, "ok\n"));
    }
}
