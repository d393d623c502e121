//! A call's progress through the real `mcp-host` program: every call
//! carries a `progressToken`, and the `everything` example's `slow` tool
//! reports each step, which `--events` writes as `call_progress` lines and
//! `--stream` shows on stderr (updated in place with `\r` on a terminal,
//! rate-limited plain lines otherwise).

use crate::common;

use common::fake_model::{
    FakeModel, HostRun, McpConfig, Reply, claude_events, claude_message, run_host, text_block,
    tool_use,
};
use serde_json::{Value, json};

/// The model calls `slow` with `input` once, then answers "done", streamed.
fn slow_once(input: Value) -> FakeModel {
    let script = [
        claude_message(
            json!([tool_use("toolu_1", "slow", input)]),
            "tool_use",
            10,
            5,
        ),
        claude_message(json!([text_block("done")]), "end_turn", 20, 2),
    ];
    FakeModel::start(
        script
            .iter()
            .map(|m| Reply::sse(claude_events(m)))
            .collect(),
    )
}

fn program(fake: &FakeModel, args: &[&str]) -> HostRun {
    let config = McpConfig::everything("everything", &[]);
    let mut all = vec!["--config", config.arg(), "--approve", "all"];
    all.extend_from_slice(args);
    run_host(
        &all,
        &[
            ("ANTHROPIC_BASE_URL", fake.base_url.as_str()),
            ("ANTHROPIC_API_KEY", "k"),
        ],
        "take your time\n",
    )
}

#[test]
fn events_carry_each_progress_report_between_the_calls_start_and_end() {
    common::everything();
    let fake = slow_once(json!({"ms": 600, "steps": 3}));
    let run = program(&fake, &["--events"]);
    assert!(run.status.success(), "{}", run.stderr);
    let lines = run.json_lines();
    let tags: Vec<&str> = lines.iter().map(|l| l["event"].as_str().unwrap()).collect();
    let started = tags.iter().position(|t| *t == "call_started").unwrap();
    let finished = tags.iter().position(|t| *t == "call_finished").unwrap();
    let progress: Vec<&Value> = lines[started + 1..finished].iter().collect();
    // The last report travels beside the result: it may come after the
    // call's end, when it is not passed on.
    assert!((2..=3).contains(&progress.len()), "{}", run.stdout);
    for (step, line) in progress.iter().enumerate() {
        assert_eq!(
            **line,
            json!({"event": "call_progress", "id": "toolu_1", "progress": (step + 1) as f64,
                   "total": 3.0, "message": "sleeping"})
        );
    }
    assert_eq!(
        tags.iter().filter(|t| **t == "call_progress").count(),
        progress.len()
    );
    // The request carried a token: the server reported on it.
    assert_eq!(lines.last().unwrap()["event"], "answer");
}

#[test]
fn stream_shows_progress_as_rate_limited_lines_when_stderr_is_no_terminal() {
    common::everything();
    // Ten reports in 2.5 s: at most one line a second gets through.
    let fake = slow_once(json!({"ms": 2500, "steps": 10}));
    let run = program(&fake, &["--stream"]);
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(run.stdout, "done\n\n");
    let shown: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("[slow: ") && l.ends_with("/10 sleeping]"))
        .collect();
    assert_eq!(
        shown.first(),
        Some(&"[slow: 1/10 sleeping]"),
        "{}",
        run.stderr
    );
    assert!((2..=4).contains(&shown.len()), "{shown:?}");
    let steps: Vec<u32> = shown
        .iter()
        .map(|l| {
            l["[slow: ".len()..l.len() - "/10 sleeping]".len()]
                .parse()
                .unwrap()
        })
        .collect();
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
    assert!(!run.stderr.contains('\r'), "{:?}", run.stderr);
    // The call's own lines, around its progress.
    let request = run.stderr.find("[everything/slow {").unwrap();
    let first = run.stderr.find("[slow: 1/10 sleeping]").unwrap();
    let end = run.stderr.find(" ms]").unwrap();
    assert!(request < first && first < end, "{}", run.stderr);
}

#[test]
fn stream_redraws_one_progress_line_in_place_on_a_terminal() {
    common::terminal::require_pty();
    common::everything();
    let config = McpConfig::everything("everything", &[]);
    let fake = slow_once(json!({"ms": 900, "steps": 3}));
    let run = common::terminal::stderr_on_terminal(
        &config,
        &["--stream", "--approve", "all"],
        &fake,
        "take your time\n",
    );
    assert_eq!(run.stdout, "done\n\n", "{}", run.context());
    let shown = &run.shown;
    // Each report over the last: back to the line's start, the line
    // cleared, no newline.
    assert!(
        shown.contains("\r\x1b[K[slow: 1/3 sleeping]\r\x1b[K[slow: 2/3 sleeping]"),
        "{shown:?}"
    );
    assert!(!shown.contains("sleeping]\r\n"), "{shown:?}");
    // The call's end clears it and takes its place, a whole line.
    let end = shown
        .rfind("\r\x1b[K[slow: ")
        .map(|at| &shown[at + "\r\x1b[K[slow: ".len()..])
        .and_then(|rest| rest.split_once(" ms]\r\n"))
        .unwrap_or_else(|| panic!("{shown:?}"));
    end.0.parse::<u64>().unwrap();
}
