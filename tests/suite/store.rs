//! The state store against a real Redis: `RedisStore`'s operations, and
//! replicas of `basket --http` and `everything --http` sharing one Redis
//! (handles read and changed across replicas, expiry on every replica, a
//! spent `requestState` refused on another replica, and a Redis outage that
//! fails only the calls that need the store, until Redis returns). Every
//! JSON-RPC body is validated against the official schema.

use crate::common;

use common::assert_valid;
use common::http::{MODERN, Server, call, modern_to};
use common::services::Redis;
use mcpfn_runtime::store::{RedisStore, Store, StoreError};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const MINUTE: Duration = Duration::from_secs(60);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

// ---- the Redis store's operations ----

#[test]
fn redis_store_operations_are_atomic_and_expire() {
    let redis = Redis::start();
    runtime().block_on(async {
        let store = RedisStore::open(&redis.url()).unwrap().prefix("t1:");
        mcpfn_runtime::testing::check_store(&store).await;

        // The prefix keeps servers sharing one Redis apart; clones share.
        let other = RedisStore::open(&redis.url()).unwrap().prefix("t2:");
        assert_eq!(other.get("contract:bin").await, Ok(None));
        assert_eq!(
            store.clone().get("contract:bin").await,
            Ok(Some(b"z".to_vec()))
        );

        // Every write carries its TTL.
        let short = Duration::from_millis(150);
        store.put("p", b"1".to_vec(), short).await.unwrap();
        assert!(store.put_if_absent("n", Vec::new(), short).await.unwrap());
        store.put("c", b"1".to_vec(), MINUTE).await.unwrap();
        assert!(
            store
                .compare_and_set("c", b"1", b"2".to_vec(), short)
                .await
                .unwrap()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        for key in ["p", "n", "c"] {
            assert_eq!(store.get(key).await, Ok(None), "{key} expired");
        }
        assert_eq!(store.put_if_absent("n", Vec::new(), short).await, Ok(true));
    });
}

#[test]
fn redis_store_fails_fast_while_down_and_recovers() {
    let mut redis = Redis::start();
    runtime().block_on(async {
        let store = RedisStore::open(&redis.url())
            .unwrap()
            .timeout(Duration::from_millis(500));
        store.put("k", b"a".to_vec(), MINUTE).await.unwrap();
        redis.stop();
        for _ in 0..3 {
            let started = Instant::now();
            let err = store.get("k").await.unwrap_err();
            assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
            assert!(
                err.to_string().starts_with("state store unavailable"),
                "{err}"
            );
            assert!(
                started.elapsed() < Duration::from_millis(1500),
                "bounded by the timeout: {:?}",
                started.elapsed()
            );
        }
        redis.start_again();
        // The same store reconnects by itself (Redis came back empty).
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match store.get("k").await {
                Ok(value) => {
                    assert_eq!(value, None);
                    break;
                }
                Err(err) => assert!(Instant::now() < deadline, "not recovered: {err}"),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        store.put("k", b"b".to_vec(), MINUTE).await.unwrap();
        assert_eq!(store.get("k").await, Ok(Some(b"b".to_vec())));
        // A store opened while Redis is down starts, and works once it is up.
        let port = common::services::free_port();
        let early = RedisStore::open(&format!("redis://127.0.0.1:{port}"))
            .unwrap()
            .timeout(Duration::from_millis(300));
        let err = early.get("k").await.unwrap_err();
        assert!(
            err.to_string().starts_with("state store unavailable"),
            "{err}"
        );
    });
}

#[test]
fn the_first_operation_after_a_redis_restart_succeeds() {
    let mut redis = Redis::start();
    runtime().block_on(async {
        let store = RedisStore::open(&redis.url()).unwrap().prefix("r:");
        store.put("k", b"a".to_vec(), MINUTE).await.unwrap();
        // Each kind of operation, each the first after a restart on the
        // same port (Redis comes back empty): the connection the store held
        // is dead, and the operation is retried once on a new one instead
        // of failing with "broken pipe".
        // Each time on a connection that works until the restart (after a
        // failure the store would connect afresh anyway).
        let mut restart = async || {
            assert_eq!(store.get("warm").await, Ok(None), "before the restart");
            redis.stop();
            redis.start_again();
        };
        restart().await;
        assert_eq!(store.get("k").await, Ok(None), "get");
        restart().await;
        assert_eq!(store.put("k", b"b".to_vec(), MINUTE).await, Ok(()), "put");
        restart().await;
        assert_eq!(
            store.put_if_absent("n", Vec::new(), MINUTE).await,
            Ok(true),
            "put_if_absent"
        );
        restart().await;
        assert_eq!(
            store
                .compare_and_set("k", b"b", b"c".to_vec(), MINUTE)
                .await,
            Ok(false),
            "compare_and_set (a script, not cached in the new Redis either)"
        );
        restart().await;
        assert_eq!(
            store.compare_and_delete("k", b"b").await,
            Ok(false),
            "compare_and_delete"
        );
        restart().await;
        assert_eq!(store.delete("k").await, Ok(false), "delete");
        // And the store goes on working.
        store.put("k", b"c".to_vec(), MINUTE).await.unwrap();
        assert_eq!(store.get("k").await, Ok(Some(b"c".to_vec())));
    });
}

#[test]
fn an_invalid_url_is_refused_when_opened() {
    let err = RedisStore::open("not a url").unwrap_err();
    assert!(err.to_string().contains("invalid Redis URL"), "{err}");
}

// ---- replicas sharing one Redis ----

/// The result of a 2026-07-28 `tools/call` of `name` on `addr`, validated.
fn call_on(addr: &str, name: &str, arguments: Value) -> Value {
    let message = modern_to(addr, &call(1, name, arguments), &[]).json();
    assert_valid(MODERN, "CallToolResult", &message["result"]);
    message["result"].clone()
}

/// The text of an `isError` result.
fn error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

fn basket(redis: &Redis, extra: &[(&str, &str)]) -> Server {
    let url = redis.url();
    let mut env = vec![("REDIS_URL", url.as_str())];
    env.extend_from_slice(extra);
    Server::start_example("basket", &env)
}

fn basket_id(result: &Value) -> String {
    result["structuredContent"]["basket_id"]
        .as_str()
        .unwrap_or_else(|| panic!("a basket: {result}"))
        .to_owned()
}

#[test]
fn each_replicas_first_store_call_after_a_redis_restart_succeeds() {
    let mut redis = Redis::start();
    let (a, b) = (basket(&redis, &[]), basket(&redis, &[]));
    for replica in [&a, &b] {
        basket_id(&call_on(&replica.addr, "create_basket", json!({})));
    }
    redis.stop();
    redis.start_again();
    // No "state store unavailable … broken pipe" first: each replica's
    // first store call after the restart is answered.
    for replica in [&a, &b] {
        let created = call_on(&replica.addr, "create_basket", json!({}));
        assert_ne!(created["isError"], true, "{created}");
        basket_id(&created);
    }
}

#[test]
fn a_basket_made_on_one_replica_is_read_and_changed_on_another() {
    let redis = Redis::start();
    let (a, b) = (basket(&redis, &[]), basket(&redis, &[]));
    let id = basket_id(&call_on(&a.addr, "create_basket", json!({})));
    let added = call_on(
        &b.addr,
        "add_item",
        json!({"basket_id": id, "item": "cheese", "quantity": 2}),
    );
    assert_eq!(added["structuredContent"]["total_cents"], 960, "{added}");
    call_on(
        &a.addr,
        "add_item",
        json!({"basket_id": id, "item": "apple"}),
    );
    let seen = call_on(&b.addr, "view_basket", json!({"basket_id": id}));
    assert_eq!(
        seen["structuredContent"]["items"],
        json!({"apple": 1, "cheese": 2}),
        "both replicas' changes are kept"
    );
    let done = call_on(&a.addr, "checkout", json!({"basket_id": id}));
    assert_eq!(done["structuredContent"]["total_cents"], 1000);
    let gone = call_on(&b.addr, "view_basket", json!({"basket_id": id}));
    assert!(error_text(&gone).contains("call `create_basket`"), "{gone}");
}

#[test]
fn concurrent_changes_on_two_replicas_are_all_kept() {
    let redis = Redis::start();
    let (a, b) = (basket(&redis, &[]), basket(&redis, &[]));
    let id = basket_id(&call_on(&a.addr, "create_basket", json!({})));
    let adders: Vec<_> = (0..10)
        .map(|i| {
            let addr = if i % 2 == 0 {
                a.addr.clone()
            } else {
                b.addr.clone()
            };
            let id = id.clone();
            std::thread::spawn(move || {
                call_on(&addr, "add_item", json!({"basket_id": id, "item": "milk"}))
            })
        })
        .collect();
    for adder in adders {
        let result = adder.join().unwrap();
        assert_ne!(result["isError"], true, "{result}");
    }
    let seen = call_on(&b.addr, "view_basket", json!({"basket_id": id}));
    assert_eq!(
        seen["structuredContent"]["items"],
        json!({"milk": 10}),
        "{seen}"
    );
}

#[test]
fn a_basket_expires_on_every_replica() {
    let redis = Redis::start();
    // A lifetime of 3 s, used every second: a use only fails if the one
    // before it was more than 2 s late.
    let ttl = [("BASKET_TTL_MS", "3000")];
    let (a, b) = (basket(&redis, &ttl), basket(&redis, &ttl));
    let created = Instant::now();
    let id = basket_id(&call_on(&a.addr, "create_basket", json!({})));
    // Each use, on either replica, renews the lifetime: the basket outlives
    // its first.
    for replica in [&b, &a, &b, &a] {
        std::thread::sleep(Duration::from_millis(1000));
        let seen = call_on(&replica.addr, "view_basket", json!({"basket_id": id}));
        assert_ne!(seen["isError"], true, "renewed by the last use: {seen}");
    }
    assert!(created.elapsed() > Duration::from_millis(3000));
    // Unused past its lifetime, it is gone on both (a use would renew it:
    // no polling here, and a late check sees the same).
    std::thread::sleep(Duration::from_millis(4500));
    for replica in [&a, &b] {
        let gone = call_on(&replica.addr, "view_basket", json!({"basket_id": id}));
        let text = error_text(&gone);
        assert!(
            text.starts_with("unknown or expired basket handle"),
            "{text}"
        );
        assert!(text.contains("call `create_basket`"), "{text}");
    }
}

#[test]
fn with_redis_down_store_calls_fail_clearly_others_work_and_the_server_recovers() {
    let mut redis = Redis::start();
    let server = basket(&redis, &[]);
    let id = basket_id(&call_on(&server.addr, "create_basket", json!({})));
    redis.stop();
    let started = Instant::now();
    for (name, arguments) in [
        ("view_basket", json!({"basket_id": id})),
        ("add_item", json!({"basket_id": id, "item": "bread"})),
        ("create_basket", json!({})),
    ] {
        let failed = call_on(&server.addr, name, arguments);
        let text = error_text(&failed);
        assert!(
            text.starts_with("state store unavailable"),
            "{name}: {text}"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "each failure is bounded: {:?}",
        started.elapsed()
    );
    let catalogue = call_on(&server.addr, "list_items", json!({}));
    assert_ne!(catalogue["isError"], true, "{catalogue}");
    assert_eq!(catalogue["structuredContent"]["items"][0]["name"], "apple");

    redis.start_again();
    // The same process, reconnected (Redis came back empty, so the old
    // basket is gone and says how to recover).
    let deadline = Instant::now() + Duration::from_secs(5);
    let id = loop {
        let created = call_on(&server.addr, "create_basket", json!({}));
        if created["isError"] != true {
            break basket_id(&created);
        }
        assert!(Instant::now() < deadline, "not recovered: {created}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let added = call_on(
        &server.addr,
        "add_item",
        json!({"basket_id": id, "item": "bread"}),
    );
    assert_eq!(added["structuredContent"]["total_cents"], 250, "{added}");
}

// ---- spent request states, shared ----

/// `book_table`'s question on `addr`, and the retry that answers it.
fn book_table_retry(addr: &str) -> Value {
    let mut book = call(1, "book_table", json!({"party": 2}));
    book["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}});
    let question = modern_to(addr, &book, &[]).json();
    assert_valid(MODERN, "InputRequiredResult", &question["result"]);
    let mut retry = book;
    retry["id"] = 2.into();
    retry["params"]["inputResponses"] =
        json!({"guest": {"action": "accept", "content": {"name": "Ada"}}});
    retry["params"]["requestState"] = question["result"]["requestState"].clone();
    retry
}

const SEAL_KEY: &str = "0123456789abcdef0123456789abcdef-shared";

#[test]
fn a_replayed_request_state_is_refused_on_another_replica() {
    let redis = Redis::start();
    let url = redis.url();
    let env = [("MCP_SEAL_KEY", SEAL_KEY), ("REDIS_URL", url.as_str())];
    let (a, b) = (Server::start(&env), Server::start(&env));
    let retry = book_table_retry(&a.addr);
    let done = modern_to(&a.addr, &retry, &[]).json();
    assert_valid(MODERN, "CallToolResult", &done["result"]);
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"booked": true, "name": "Ada", "party": 2})
    );
    for replica in [&b, &a] {
        let replay = modern_to(&replica.addr, &retry, &[]).json();
        assert_eq!(replay["error"]["code"], -32602, "{replay}");
        let message = replay["error"]["message"].as_str().unwrap();
        assert!(message.contains("already used"), "{message}");
    }
    // The state's entry is kept in Redis under the server's prefix, with a
    // TTL, now spent.
    let keys = redis_cli(&redis, &["--scan", "--pattern", "everything:state:*"]);
    assert_eq!(keys.lines().count(), 1, "{keys}");
    assert_eq!(redis_cli(&redis, &["GET", keys.trim()]).trim(), "spent");
    let ttl: i64 = redis_cli(&redis, &["PTTL", keys.trim()])
        .trim()
        .parse()
        .unwrap();
    assert!(ttl > 0, "expires with its state: {ttl}");
}

#[test]
fn a_request_state_is_not_accepted_while_redis_is_down() {
    let mut redis = Redis::start();
    let url = redis.url();
    let server = Server::start(&[("MCP_SEAL_KEY", SEAL_KEY), ("REDIS_URL", url.as_str())]);
    let retry = book_table_retry(&server.addr);
    redis.stop();
    let refused = modern_to(&server.addr, &retry, &[]).json();
    assert_valid(MODERN, "CallToolResult", &refused["result"]);
    let text = error_text(&refused["result"]);
    assert!(text.starts_with("state store unavailable"), "{text}");
    assert!(text.contains("'book_table' was not run"), "{text}");
    // A call that needs no state is not affected.
    let sum = call_on(&server.addr, "add", json!({"a": 1, "b": 2}));
    assert_eq!(sum["structuredContent"], json!({"sum": 3.0}));
    redis.start_again();
    // Redis came back empty (no persistence): the state was issued before,
    // so the server cannot know it is unspent and refuses it, saying why.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let done = modern_to(&server.addr, &retry, &[]).json();
        if done.get("error").is_some() {
            assert_eq!(done["error"]["code"], -32602, "{done}");
            let message = done["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("not known to this server's state store"),
                "{message}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "not recovered: {done}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // A new round works as ever.
    let retry = book_table_retry(&server.addr);
    let done = modern_to(&server.addr, &retry, &[]).json();
    assert_eq!(
        done["result"]["structuredContent"]["booked"], true,
        "{done}"
    );
}

#[test]
fn a_state_spent_before_redis_restarted_without_persistence_is_refused_after() {
    let mut redis = Redis::start();
    let url = redis.url();
    let env = [("MCP_SEAL_KEY", SEAL_KEY), ("REDIS_URL", url.as_str())];
    let (a, b) = (Server::start(&env), Server::start(&env));
    let retry = book_table_retry(&a.addr);
    let done = modern_to(&a.addr, &retry, &[]).json();
    assert_eq!(
        done["result"]["structuredContent"]["booked"], true,
        "{done}"
    );
    redis.stop();
    redis.start_again();
    // A second booking with the same answers: refused on both replicas.
    for replica in [&a, &b, &a] {
        let replay = modern_to(&replica.addr, &retry, &[]).json();
        assert_eq!(replay["error"]["code"], -32602, "{replay}");
    }
}

/// `redis-cli -p PORT args…`'s output.
fn redis_cli(redis: &Redis, args: &[&str]) -> String {
    let program = common::services::require_program("redis-cli", "redis-tools");
    let output = std::process::Command::new(program)
        .args(["-p", &redis.port.to_string()])
        .args(args)
        .output()
        .expect("redis-cli runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}
