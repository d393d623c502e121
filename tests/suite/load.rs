//! A load check (correctness, not speed): 10,000 calls in flight at once over
//! real stdio pipes are all answered, each exactly once, with the right sum.

use crate::common;

use common::{Peer, call};
use serde_json::json;
use std::collections::HashSet;
use std::io::Write;

const CALLS: u64 = 10_000;

#[test]
fn ten_thousand_concurrent_calls_are_each_answered_exactly_once() {
    let mut peer = Peer::spawn("everything", &[("RATE_LIMIT", "off")]);
    let init = peer.request(common::initialize(0, "2025-11-25"));
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    // One write of all requests: every call is in flight before the first
    // response can be read.
    let mut batch = Vec::new();
    for id in 1..=CALLS {
        let line = call(id, "add", json!({"a": id, "b": 0.5}), false);
        writeln!(batch, "{line}").unwrap();
    }
    peer.send_raw(std::str::from_utf8(&batch).unwrap().trim_end());
    let mut seen = HashSet::new();
    for _ in 0..CALLS {
        let response = peer.recv_unvalidated();
        let id = response["id"].as_u64().expect("an integer id");
        assert!(seen.insert(id), "id {id} answered twice");
        assert_eq!(
            response["result"]["structuredContent"]["sum"],
            id as f64 + 0.5
        );
    }
    assert_eq!(seen.len() as u64, CALLS);
    let (status, rest) = peer.close();
    assert!(status.success());
    assert!(rest.is_empty(), "nothing after the last answer: {rest:?}");
}
