//! Answers no request waits for, from a scripted stdio server: a late
//! answer to a request the client gave up on (timed out, cancelled, or
//! failed at close, as the `subscriptions/listen` a server answers as it
//! ends) is expected and dropped quietly; a second answer to a request
//! already answered is not, and warns.

use crate::common;

use common::{call, script};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The log lines at warn and above written while `test` ran.
fn warnings(test: impl Future<Output = ()>) -> String {
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let sink = Sink::default();
    let writer = sink.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .finish();
    // One thread: the subscriber is the thread's, and the router's task
    // must log through it.
    tracing::subscriber::with_default(subscriber, || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                common::bounded(test).await;
            });
    });
    String::from_utf8(sink.0.lock().unwrap().clone()).unwrap()
}

/// A line of JSON-RPC result for `id`, for `sh`'s `echo`.
const ANSWER: &str = r#"{"jsonrpc":"2.0","id":ID,"result":{}}"#;

fn answer(id: u64) -> String {
    format!("echo '{}'", ANSWER.replace("ID", &id.to_string()))
}

#[test]
fn a_late_answer_to_a_request_given_up_on_is_quiet() {
    // Request 1 times out; its answer comes after, then request 2's.
    let server = format!(
        "read first; sleep 1; {}; read cancel; read second; {}; sleep 5",
        answer(1),
        answer(2)
    );
    let log = warnings(async move {
        let client = script(&server);
        let first = call(&client, "ping", json!({}), Duration::from_millis(200)).await;
        assert!(first.is_err(), "{first:?}");
        let second = call(&client, "ping", json!({}), Duration::from_secs(10)).await;
        assert_eq!(second.unwrap(), json!({}));
    });
    assert_eq!(log, "");
}

#[test]
fn a_second_answer_to_an_answered_request_still_warns() {
    let server = format!(
        "read first; {}; {}; read second; {}; sleep 5",
        answer(1),
        answer(1),
        answer(2)
    );
    let log = warnings(async move {
        let client = script(&server);
        for _ in 0..2 {
            let answered = call(&client, "ping", json!({}), Duration::from_secs(10)).await;
            assert_eq!(answered.unwrap(), json!({}));
        }
    });
    assert!(
        log.contains("dropped an answer to a request that is not waiting") && log.contains("id=1"),
        "{log}"
    );
}
