//! Streamed responses over real HTTP from the scripted fake APIs: the same
//! conversation served whole (`Agent::send`) and streamed as server-sent
//! events (`Line::events`) leaves byte-identical histories and sends
//! byte-identical prompts, for both APIs, with parallel calls whose inputs
//! come in pieces; and the events say what happened, in order.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Reply, claude_events, claude_message, openai_chunks, openai_completion,
    openai_text, openai_tool_calls, text_block, tool_use,
};
use common::run;
use mcpfn_host::agent::Agent;
use mcpfn_host::agent::events::{Event, EventSink};
use mcpfn_host::provider::{Anthropic, OpenAi, Provider};
use mcpfn_runtime::{tool, tools};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[tool]
async fn get_weather(city: String) -> String {
    format!("{city}：晴，25°C")
}

/// The scripted bodies: two calls at once, then the answer.
fn claude_script() -> Vec<Value> {
    vec![
        claude_message(
            json!([
                text_block("我查一下北京和上海。"),
                tool_use("toolu_1", "get_weather", json!({"city": "北京"})),
                tool_use("toolu_2", "get_weather", json!({"city": "上海"})),
                {"type": "mystery_block", "kept": [1, 2]}
            ]),
            "tool_use",
            300,
            40,
        ),
        claude_message(
            json!([text_block("北京和上海都是晴天，25°C。")]),
            "end_turn",
            420,
            18,
        ),
    ]
}

fn openai_script() -> Vec<Value> {
    vec![
        openai_completion(
            openai_tool_calls(
                None,
                &[
                    ("call_1", "get_weather", "{\"city\":\"北京\"}"),
                    ("call_2", "get_weather", "{\"city\":\"上海\"}"),
                ],
            ),
            "tool_calls",
            300,
            40,
        ),
        openai_completion(openai_text("北京和上海都是晴天，25°C。"), "stop", 420, 18),
    ]
}

/// Runs one line over `replies`; the history's bytes, the requests'
/// messages' bytes, the answer's text, and the events when `streamed`.
async fn line(
    provider: impl Provider,
    fake: &FakeModel,
    streamed: bool,
) -> (String, Vec<String>, String, Vec<Event>) {
    let agent = Agent::new(provider)
        .tools(tools![get_weather])
        .build()
        .await
        .unwrap();
    let mut chat = agent.conversation();
    let events = Arc::new(Mutex::new(Vec::new()));
    let answer = if streamed {
        let seen = Arc::clone(&events);
        let sink: EventSink =
            Arc::new(move |event: &Event| seen.lock().unwrap().push(event.clone()));
        agent
            .send(&mut chat, "北京和上海的天气")
            .events(&sink)
            .await
    } else {
        agent.send(&mut chat, "北京和上海的天气").await
    }
    .unwrap();
    let history = serde_json::to_string(chat.history().messages()).unwrap();
    let prompts = fake
        .requests()
        .iter()
        .map(|request| {
            assert_eq!(request.body["stream"].as_bool().unwrap_or(false), streamed);
            request.body["messages"].to_string()
        })
        .collect();
    let events = events.lock().unwrap().clone();
    (history, prompts, answer.text, events)
}

fn texts(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The events besides text, in order; the calls' started/finished pairs
/// run at once, so they are checked as a set.
fn call_events(events: &[Event]) -> (Vec<Event>, Vec<Event>) {
    events
        .iter()
        .filter(|event| !matches!(event, Event::Text { .. }))
        .cloned()
        .map(|event| match event {
            Event::CallFinished { id, is_error, .. } => Event::CallFinished {
                id,
                duration_ms: 0,
                is_error,
            },
            other => other,
        })
        .partition(|event| {
            !matches!(
                event,
                Event::CallStarted { .. } | Event::CallFinished { .. }
            )
        })
}

#[test]
fn a_streamed_claude_line_leaves_the_history_the_whole_one_leaves() {
    run(async {
        let whole = FakeModel::start(claude_script().into_iter().map(Reply::ok).collect());
        let (history, prompts, text, _) = line(
            Anthropic::new(&whole.base_url, Some("k")).unwrap(),
            &whole,
            false,
        )
        .await;
        // The first response over the wire one byte at a time, the second
        // in one piece.
        let script = claude_script();
        let streamed = FakeModel::start(vec![
            Reply::sse(claude_events(&script[0])).trickled(Duration::from_micros(1)),
            Reply::sse(claude_events(&script[1])),
        ]);
        let (s_history, s_prompts, s_text, events) = line(
            Anthropic::new(&streamed.base_url, Some("k")).unwrap(),
            &streamed,
            true,
        )
        .await;
        assert_eq!(s_history, history);
        assert_eq!(s_prompts, prompts);
        assert_eq!(s_text, text);
        assert!(history.contains("mystery_block"), "{history}");
        assert_eq!(
            texts(&events),
            "我查一下北京和上海。北京和上海都是晴天，25°C。"
        );
        let (ordered, calls) = call_events(&events);
        let usage = |input, output| Event::Usage {
            usage: mcpfn_host::provider::Usage {
                input_tokens: input,
                output_tokens: output,
                ..Default::default()
            },
        };
        let requested = |id: &str, city: &str| Event::CallRequested {
            id: id.into(),
            tool: "get_weather".into(),
            server: "local".into(),
            input: json!({"city": city}),
        };
        assert_eq!(
            ordered,
            vec![
                usage(300, 40),
                requested("toolu_1", "北京"),
                Event::CallApproved {
                    id: "toolu_1".into()
                },
                requested("toolu_2", "上海"),
                Event::CallApproved {
                    id: "toolu_2".into()
                },
                usage(420, 18),
            ]
        );
        for id in ["toolu_1", "toolu_2"] {
            let started = Event::CallStarted { id: id.into() };
            let finished = Event::CallFinished {
                id: id.into(),
                duration_ms: 0,
                is_error: false,
            };
            let at = |e: &Event| calls.iter().position(|c| c == e).unwrap();
            assert!(at(&started) < at(&finished), "{calls:?}");
        }
        assert_eq!(calls.len(), 4);
    });
}

#[test]
fn a_streamed_openai_line_leaves_the_history_the_whole_one_leaves() {
    run(async {
        let whole = FakeModel::start(openai_script().into_iter().map(Reply::ok).collect());
        let (history, prompts, text, _) = line(
            OpenAi::new(&whole.base_url, Some("k")).unwrap(),
            &whole,
            false,
        )
        .await;
        let script = openai_script();
        let streamed = FakeModel::start(vec![
            Reply::sse(openai_chunks(&script[0])).trickled(Duration::from_micros(1)),
            Reply::sse(openai_chunks(&script[1])),
        ]);
        let (s_history, s_prompts, s_text, events) = line(
            OpenAi::new(&streamed.base_url, Some("k")).unwrap(),
            &streamed,
            true,
        )
        .await;
        assert_eq!(s_history, history);
        assert_eq!(s_prompts, prompts);
        assert_eq!(s_text, text);
        assert_eq!(texts(&events), "北京和上海都是晴天，25°C。");
        let request = &streamed.requests()[0].body;
        assert_eq!(request["stream_options"], json!({"include_usage": true}));
        let (ordered, _) = call_events(&events);
        assert_eq!(ordered.len(), 6, "{ordered:?}");
    });
}

// ---------------------------------------------------------------------------
// The program: `--stream` and `--events` over the streamed fake.

fn program(
    fake: &FakeModel,
    base_variable: &str,
    key_variable: &str,
    args: &[&str],
) -> common::fake_model::HostRun {
    let config = McpConfig::everything("weather", &[]);
    let mut all = vec!["--config", config.arg(), "--approve", "all"];
    all.extend_from_slice(args);
    let base = fake.base_url.clone();
    common::fake_model::run_host(
        &all,
        &[(base_variable, base.as_str()), (key_variable, "k")],
        "北京今天天气怎么样\n",
    )
}

fn weather_script_claude() -> Vec<Value> {
    vec![
        claude_message(
            json!([
                text_block("我来查一下北京的天气。"),
                tool_use("toolu_01", "get_weather_data", json!({"location": "北京"}))
            ]),
            "tool_use",
            100,
            20,
        ),
        claude_message(
            json!([text_block("北京今天天气不错。")]),
            "end_turn",
            150,
            30,
        ),
    ]
}

#[test]
fn stream_prints_the_text_as_it_comes_and_each_call_on_stderr() {
    let fake = FakeModel::start(
        weather_script_claude()
            .iter()
            .map(|m| Reply::sse(claude_events(m)))
            .collect(),
    );
    let run = program(
        &fake,
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_API_KEY",
        &["--stream"],
    );
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(run.stdout, "我来查一下北京的天气。北京今天天气不错。\n\n");
    assert!(
        run.stderr
            .contains("[weather/get_weather_data {\"location\":\"北京\"}]\n"),
        "{}",
        run.stderr
    );
    let finished = run
        .stderr
        .lines()
        .find(|l| l.starts_with("[get_weather_data: "))
        .unwrap_or_else(|| panic!("{}", run.stderr));
    let ms = finished
        .strip_prefix("[get_weather_data: ")
        .and_then(|l| l.strip_suffix(" ms]"))
        .unwrap();
    ms.parse::<u64>().unwrap();
    assert!(
        fake.requests()
            .iter()
            .all(|r| r.body["stream"] == json!(true))
    );
}

#[test]
fn events_writes_every_event_as_a_json_line_then_the_answer() {
    let script = [
        openai_completion(
            openai_tool_calls(
                None,
                &[("call_1", "get_weather_data", "{\"location\":\"北京\"}")],
            ),
            "tool_calls",
            100,
            20,
        ),
        openai_completion(openai_text("北京今天天气不错。"), "stop", 150, 30),
    ];
    let fake = FakeModel::start(
        script
            .iter()
            .map(|c| Reply::sse(openai_chunks(c)))
            .collect(),
    );
    let run = program(
        &fake,
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        &["--provider", "openai", "--events"],
    );
    assert!(run.status.success(), "{}", run.stderr);
    let lines = run.json_lines();
    let tags: Vec<&str> = lines.iter().map(|l| l["event"].as_str().unwrap()).collect();
    assert_eq!(
        tags,
        [
            "usage",
            "call_requested",
            "call_approved",
            "call_started",
            "call_finished",
            "text",
            "text",
            "text",
            "usage",
            "answer"
        ]
    );
    assert_eq!(
        lines[1],
        json!({"event": "call_requested", "id": "call_1", "tool": "get_weather_data",
               "server": "weather", "input": {"location": "北京"}})
    );
    assert_eq!(lines[4]["is_error"], json!(false));
    assert!(lines[4]["duration_ms"].is_u64());
    assert_eq!(
        lines[9],
        json!({
            "event": "answer",
            "text": "北京今天天气不错。",
            "stop_reason": "stop",
            "turns": 2,
            "usage": {"input_tokens": 250, "output_tokens": 50},
            "tool_calls": [{"name": "get_weather_data", "server": "weather", "is_error": false}]
        })
    );
}
