//! Long conversations through the library over the scripted model APIs on
//! loopback (real HTTP, both providers): a line that fails after its tools
//! ran keeps them in the history; a request that does not fit the window
//! is trimmed or summarized and sent again once; the token budget; and
//! the request sizes of each history policy at line 200.

use crate::common;

use common::fake_model::{
    FakeModel, Recorded, Reply, TempDir, claude_message, openai_completion, openai_text,
    openai_tool_calls, text_block, tool_use,
};
use common::run;
use mcpfn_host::agent::history::{
    FullHistory, HistoryPolicy, LastTurns, MaxBytes, TokenBudget, Trim,
};
use mcpfn_host::agent::summary::{SUMMARY_HEADING, SUMMARY_INSTRUCTION, TRANSCRIPT_HEADING};
use mcpfn_host::agent::{Agent, Overflow};
use mcpfn_host::provider::{Anthropic, OpenAi, Provider, ProviderError};
use mcpfn_runtime::{tool, tools};
use serde_json::{Value, json};
use std::sync::Arc;

/// Appends `text` and a newline to the file `path`: a side effect that
/// must happen once per call the model asked for.
#[tool]
async fn append_line(path: String, text: String) -> String {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .expect("the test's file opens");
    writeln!(file, "{text}").expect("the test's file takes a line");
    "appended".to_owned()
}

/// Answers `n`.
#[tool(read_only)]
async fn tick(n: u64) -> u64 {
    n
}

fn claude(fake: &FakeModel) -> Arc<dyn Provider> {
    // Caching off: these tests read the history itself, which cache
    // breakpoints would dress differently in each request (`prompt_cache::`).
    Arc::new(
        Anthropic::new(&fake.base_url, Some("sk-ant-test"))
            .unwrap()
            .caching(false),
    )
}

fn openai(fake: &FakeModel) -> Arc<dyn Provider> {
    Arc::new(OpenAi::new(&fake.base_url, Some("sk-test")).unwrap())
}

/// A 500 the client does not retry.
fn server_error() -> Reply {
    Reply::claude_error(500, "api_error", "Internal server error").header("x-should-retry", "false")
}

fn messages(request: &Recorded) -> &Vec<Value> {
    request.body["messages"].as_array().expect("messages")
}

/// No `tool_result` without the `tool_use` it answers in the message
/// before, and no `tool_use` without its results in the next message
/// (Anthropic's rule).
fn assert_pairs_whole(messages: &[Value]) {
    for (i, message) in messages.iter().enumerate() {
        let blocks = message["content"].as_array().cloned().unwrap_or_default();
        let ids = |kind: &str, key: &str, blocks: &[Value]| -> Vec<String> {
            blocks
                .iter()
                .filter(|b| b["type"] == kind)
                .map(|b| b[key].as_str().unwrap().to_owned())
                .collect()
        };
        let uses = ids("tool_use", "id", &blocks);
        let results = ids("tool_result", "tool_use_id", &blocks);
        if !uses.is_empty() {
            let next = messages[i + 1]["content"].as_array().unwrap();
            assert_eq!(
                ids("tool_result", "tool_use_id", next),
                uses,
                "{messages:#?}"
            );
        }
        if !results.is_empty() {
            let before = messages[i - 1]["content"].as_array().unwrap();
            assert_eq!(ids("tool_use", "id", before), results, "{messages:#?}");
        }
    }
}

#[test]
fn claude_a_500_after_a_tool_ran_keeps_the_call_and_the_next_line_follows_its_result() {
    run(async {
        let dir = TempDir::new();
        let file = dir.path.join("written.txt");
        let input = json!({"path": file.to_str().unwrap(), "text": "第一行"});
        let calls = json!([
            text_block("我来写入。"),
            tool_use("toolu_w", "append_line", input.clone())
        ]);
        let fake = FakeModel::start(vec![
            Reply::ok(claude_message(calls.clone(), "tool_use", 50, 10)),
            server_error(),
            Reply::ok(claude_message(
                json!([text_block("已经写好了。")]),
                "end_turn",
                80,
                5,
            )),
        ]);
        let agent = Agent::with_provider(claude(&fake))
            .tools(tools![append_line])
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let failed = agent
            .send(&mut chat, "把“第一行”写进文件")
            .await
            .unwrap_err();
        assert_eq!(failed.calls_kept, 1);
        assert_eq!(failed.partial.tool_calls.len(), 1);
        assert_eq!(failed.partial.tool_calls[0].name, "append_line");
        assert!(!failed.partial.tool_calls[0].is_error);
        assert_eq!(
            (
                failed.partial.responses,
                failed.partial.stop_reason.as_str()
            ),
            (1, "error")
        );
        let answer = agent.send(&mut chat, "写好了吗？").await.unwrap();
        assert_eq!(answer.text, "已经写好了。");

        let requests = fake.requests();
        assert_eq!(requests.len(), 3);
        let result =
            json!({"type": "tool_result", "tool_use_id": "toolu_w", "content": "appended"});
        assert_eq!(
            requests[2].body["messages"],
            json!([
                {"role": "user", "content": "把“第一行”写进文件"},
                {"role": "assistant", "content": calls},
                {"role": "user", "content": [result, {"type": "text", "text": "写好了吗？"}]}
            ])
        );
        // The tool ran once: the failure did not run it again, and the
        // next line did not either.
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "第一行\n");
    });
}

#[test]
fn openai_a_500_after_a_tool_ran_keeps_the_call_and_the_next_line_follows_its_result() {
    run(async {
        let dir = TempDir::new();
        let file = dir.path.join("written.txt");
        let arguments = json!({"path": file.to_str().unwrap(), "text": "first"}).to_string();
        let calls = openai_tool_calls(None, &[("call_w", "append_line", &arguments)]);
        let fake = FakeModel::start(vec![
            Reply::ok(openai_completion(calls.clone(), "tool_calls", 50, 10)),
            server_error(),
            Reply::ok(openai_completion(openai_text("Written."), "stop", 80, 5)),
        ]);
        let agent = Agent::with_provider(openai(&fake))
            .tools(tools![append_line])
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let failed = agent
            .send(&mut chat, "write first to the file")
            .await
            .unwrap_err();
        assert_eq!(failed.calls_kept, 1);
        assert_eq!(failed.partial.tool_calls[0].name, "append_line");
        agent.send(&mut chat, "done?").await.unwrap();

        let requests = fake.requests();
        assert_eq!(requests.len(), 3);
        assert_eq!(
            requests[2].body["messages"],
            json!([
                {"role": "user", "content": "write first to the file"},
                calls,
                {"role": "tool", "tool_call_id": "call_w", "content": "appended"},
                {"role": "user", "content": "done?"}
            ])
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "first\n");
    });
}

#[test]
fn what_the_model_said_after_the_last_results_is_rolled_back_and_the_results_stay() {
    run(async {
        // A tool round, then a pause the model never got back to, then a
        // failure: the pause goes, the round stays. The next line joins the
        // results, fails before any tool ran, and is taken out of them again.
        let calls = json!([tool_use("toolu_t", "tick", json!({"n": 7}))]);
        let fake = FakeModel::start(vec![
            Reply::ok(claude_message(calls.clone(), "tool_use", 5, 1)),
            Reply::ok(claude_message(
                json!([text_block("thinking…")]),
                "pause_turn",
                6,
                1,
            )),
            server_error(),
            server_error(),
            Reply::ok(claude_message(json!([text_block("7")]), "end_turn", 7, 1)),
        ]);
        let agent = Agent::with_provider(claude(&fake))
            .tools(tools![tick])
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let failed = agent.send(&mut chat, "tick 7").await.unwrap_err();
        assert_eq!((failed.calls_kept, failed.partial.responses), (1, 2));
        let kept = chat.history().clone();
        assert_eq!(kept.messages().len(), 3);
        let failed = agent.send(&mut chat, "more").await.unwrap_err();
        assert_eq!((failed.calls_kept, failed.partial.responses), (0, 0));
        assert_eq!(chat.history(), &kept);
        agent.send(&mut chat, "and?").await.unwrap();
        let requests = fake.requests();
        assert_eq!(requests.len(), 5);
        let result = json!({"type": "tool_result", "tool_use_id": "toolu_t", "content": "7"});
        let joined = |text: &str| {
            json!([
                {"role": "user", "content": "tick 7"},
                {"role": "assistant", "content": calls},
                {"role": "user", "content": [result, {"type": "text", "text": text}]}
            ])
        };
        assert_eq!(requests[3].body["messages"], joined("more"));
        assert_eq!(requests[4].body["messages"], joined("and?"));
    });
}

/// A window that refuses a request of more than `most` messages the way
/// Anthropic does; else the script answers.
fn claude_window(most: usize) -> impl Fn(&Recorded) -> Option<Reply> + Send + 'static {
    move |request| {
        (messages(request).len() > most).then(|| {
            Reply::claude_error(
                400,
                "invalid_request_error",
                &format!(
                    "prompt is too long: {} tokens > 7500 maximum",
                    7500 + messages(request).len()
                ),
            )
        })
    }
}

fn claude_text(text: &str) -> Reply {
    Reply::ok(claude_message(json!([text_block(text)]), "end_turn", 10, 2))
}

#[test]
fn an_overflow_drops_the_oldest_turns_whole_and_the_retry_succeeds() {
    run(async {
        let calls = json!([tool_use("toolu_1", "tick", json!({"n": 1}))]);
        let fake = FakeModel::responding(
            vec![
                Reply::ok(claude_message(calls.clone(), "tool_use", 5, 1)),
                claude_text("one"),
                claude_text("two"),
                claude_text("three"),
                claude_text("four"),
                claude_text("five"),
            ],
            claude_window(8),
        );
        let agent = Agent::with_provider(claude(&fake))
            .tools(tools![tick])
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        for line in ["line 1", "line 2", "line 3"] {
            let answer = agent.send(&mut chat, line).await.unwrap();
            assert_eq!(answer.trimmed, None);
        }
        // 9 messages: refused; turns 1 and 2 (the tool round among them)
        // go, the first question stays.
        let answer = agent.send(&mut chat, "line 4").await.unwrap();
        assert_eq!(answer.text, "four");
        assert_eq!(answer.responses, 1, "the refused request is no response");
        assert_eq!(
            answer.trimmed,
            Some(Trim {
                turns: 2,
                messages: 5,
                summarized: false
            })
        );
        let requests = fake.requests();
        assert_eq!(requests.len(), 6);
        assert_eq!(messages(&requests[4]).len(), 9);
        let retry = messages(&requests[5]);
        assert_eq!(
            retry,
            &vec![
                json!({"role": "user", "content": "line 1"}),
                json!({"role": "user", "content": "line 3"}),
                json!({"role": "assistant", "content": [text_block("three")]}),
                json!({"role": "user", "content": "line 4"}),
            ]
        );
        assert_pairs_whole(retry);
        // The next line goes on from the trimmed history.
        let answer = agent.send(&mut chat, "line 5").await.unwrap();
        assert_eq!((answer.text.as_str(), answer.trimmed), ("five", None));
        assert_eq!(messages(&fake.requests()[6]).len(), 6);
        assert_pairs_whole(messages(&fake.requests()[4]));
    });
}

#[test]
fn openai_context_length_exceeded_is_recovered_from_the_same_way() {
    run(async {
        let window = |request: &Recorded| {
            (messages(request).len() > 5).then(|| {
                Reply::status(
                    400,
                    json!({"error": {
                        "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.",
                        "type": "invalid_request_error",
                        "param": "messages",
                        "code": "context_length_exceeded"
                    }}),
                )
            })
        };
        let fake = FakeModel::responding(
            (0..3)
                .map(|i| {
                    Reply::ok(openai_completion(
                        openai_text(&format!("answer {i}")),
                        "stop",
                        9,
                        2,
                    ))
                })
                .collect(),
            window,
        );
        let agent = Agent::with_provider(openai(&fake))
            .system("be brief")
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        agent.send(&mut chat, "a").await.unwrap();
        agent.send(&mut chat, "b").await.unwrap();
        // "c": the system message and 5 of the history: refused.
        let answer = agent.send(&mut chat, "c").await.unwrap();
        assert_eq!(
            answer.trimmed,
            Some(Trim {
                turns: 1,
                messages: 1,
                summarized: false
            })
        );
        let requests = fake.requests();
        assert_eq!(requests.len(), 4);
        assert_eq!(
            messages(&requests[3]),
            &vec![
                json!({"role": "system", "content": "be brief"}),
                json!({"role": "user", "content": "a"}),
                json!({"role": "user", "content": "b"}),
                json!({"role": "assistant", "content": "answer 1"}),
                json!({"role": "user", "content": "c"}),
            ]
        );
    });
}

#[test]
fn a_retry_that_overflows_too_fails_the_line_naming_the_window() {
    run(async {
        let calls = json!([tool_use("toolu_1", "tick", json!({"n": 1}))]);
        let fake = FakeModel::responding(
            vec![
                claude_text("one"),
                Reply::ok(claude_message(calls, "tool_use", 5, 1)),
            ],
            claude_window(3),
        );
        let agent = Agent::with_provider(claude(&fake))
            .tools(tools![tick])
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        agent.send(&mut chat, "line 1").await.unwrap();
        // Line 2's tool round makes 5 messages: refused; line 1's answer
        // dropped, 4: refused again, and no third try.
        let failed = agent.send(&mut chat, "line 2").await.unwrap_err();
        assert!(failed.error.is_context_overflow());
        assert_eq!(
            failed.error,
            ProviderError::ContextOverflow {
                api: "the Anthropic API".into(),
                status: 400,
                message: "prompt is too long: 7504 tokens > 7500 maximum".into(),
            }
        );
        assert!(
            failed
                .to_string()
                .contains("the conversation does not fit the model's context window"),
            "{failed}"
        );
        assert_eq!(
            failed.partial.trimmed,
            Some(Trim {
                turns: 1,
                messages: 1,
                summarized: false
            })
        );
        assert_eq!(failed.calls_kept, 1);
        let requests = fake.requests();
        assert_eq!(requests.len(), 4);
        assert_eq!(messages(&requests[2]).len(), 5);
        assert_eq!(messages(&requests[3]).len(), 4);
        assert_pairs_whole(messages(&requests[3]));

        // A window the first line alone does not fit: nothing to trim, no
        // second try.
        let fake = FakeModel::responding(Vec::new(), claude_window(0));
        let agent = Agent::with_provider(claude(&fake)).build().await.unwrap();
        let mut chat = agent.conversation();
        let failed = agent.send(&mut chat, "line 1").await.unwrap_err();
        assert!(failed.error.is_context_overflow());
        assert_eq!((failed.partial.trimmed, failed.calls_kept), (None, 0));
        assert_eq!(fake.requests().len(), 1);
        assert_eq!(chat.history().messages().len(), 0);
    });
}

#[test]
fn summarize_replaces_the_oldest_turns_with_a_summary_the_model_writes() {
    run(async {
        let calls = json!([tool_use("toolu_1", "tick", json!({"n": 1}))]);
        let summary = "用户先让助手 tick 1（结果 1），又说了 line 2。";
        let fake = FakeModel::responding(
            vec![
                Reply::ok(claude_message(calls.clone(), "tool_use", 5, 1)),
                claude_text("one"),
                claude_text("two"),
                claude_text("three"),
                Reply::ok(claude_message(
                    json!([text_block(summary)]),
                    "end_turn",
                    40,
                    12,
                )),
                claude_text("four"),
            ],
            claude_window(8),
        );
        let agent = Agent::with_provider(claude(&fake))
            .tools(tools![tick])
            .system("简洁")
            .max_tokens(300)
            .on_overflow(Overflow::Summarize)
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        for line in ["line 1", "line 2", "line 3"] {
            agent.send(&mut chat, line).await.unwrap();
        }
        let dropped: Vec<Value> = chat.history().messages()[..6].to_vec();
        let answer = agent.send(&mut chat, "line 4").await.unwrap();
        assert_eq!(answer.text, "four");
        assert_eq!(
            answer.trimmed,
            Some(Trim {
                turns: 2,
                messages: 5,
                summarized: true
            })
        );
        // The summary's usage is the line's too.
        assert_eq!(answer.usage.input_tokens, 50);
        let requests = fake.requests();
        assert_eq!(requests.len(), 7);
        let transcript: Vec<String> = dropped.iter().map(Value::to_string).collect();
        assert_eq!(
            requests[5].body,
            json!({
                "model": "claude-sonnet-4-6",
                "max_tokens": 300,
                "system": SUMMARY_INSTRUCTION,
                "messages": [{
                    "role": "user",
                    "content": format!("{TRANSCRIPT_HEADING}\n{}", transcript.join("\n"))
                }]
            })
        );
        assert!(transcript[1].contains("toolu_1") && transcript[2].contains("tool_result"));
        assert_eq!(
            messages(&requests[6]),
            &vec![
                json!({"role": "user", "content": format!("{SUMMARY_HEADING}\n{summary}")}),
                json!({"role": "user", "content": "line 3"}),
                json!({"role": "assistant", "content": [text_block("three")]}),
                json!({"role": "user", "content": "line 4"}),
            ]
        );
        assert_eq!(requests[6].body["system"], "简洁");
    });
}

#[test]
fn a_summary_request_that_fails_drops_the_turns_instead() {
    run(async {
        let fake = FakeModel::responding(
            vec![
                claude_text("one"),
                claude_text("two"),
                server_error(),
                claude_text("three"),
            ],
            claude_window(4),
        );
        let agent = Agent::with_provider(claude(&fake))
            .on_overflow(Overflow::Summarize)
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        agent.send(&mut chat, "line 1").await.unwrap();
        agent.send(&mut chat, "line 2").await.unwrap();
        let answer = agent.send(&mut chat, "line 3").await.unwrap();
        assert_eq!(
            answer.trimmed,
            Some(Trim {
                turns: 1,
                messages: 1,
                summarized: false
            })
        );
        let requests = fake.requests();
        assert_eq!(requests[3].body["system"], SUMMARY_INSTRUCTION);
        assert_eq!(
            messages(&requests[4]),
            &vec![
                json!({"role": "user", "content": "line 1"}),
                json!({"role": "user", "content": "line 2"}),
                json!({"role": "assistant", "content": [text_block("two")]}),
                json!({"role": "user", "content": "line 3"}),
            ]
        );
    });
}

/// A model whose every answer is `reply_bytes` of text and whose usage
/// counts a token per 4 bytes of the request, as a stand-in for the API's
/// count.
fn counting_model(reply_bytes: usize) -> FakeModel {
    FakeModel::responding(Vec::new(), move |request| {
        Some(Reply::ok(claude_message(
            json!([text_block(&"答".repeat(reply_bytes / 3))]),
            "end_turn",
            (request.raw_body.len() / 4) as u64,
            (reply_bytes / 4) as u64,
        )))
    })
}

#[test]
fn the_token_budget_trims_to_three_quarters_and_the_prefix_then_holds_for_several_lines() {
    run(async {
        let fake = counting_model(600);
        let budget = 3000;
        let agent = Agent::with_provider(claude(&fake))
            .history(TokenBudget(budget))
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        for line in 0..40 {
            agent
                .send(&mut chat, &format!("line {line}: {}", "问".repeat(100)))
                .await
                .unwrap();
        }
        let requests = fake.requests();
        let mut trims = Vec::new();
        for (i, pair) in requests.windows(2).enumerate() {
            let (before, after) = (messages(&pair[0]), messages(&pair[1]));
            assert!(after[0]["content"].as_str().unwrap().starts_with("line 0:"));
            if !after.starts_with(before) {
                trims.push(i + 1);
            }
        }
        let tokens: Vec<usize> = requests.iter().map(|r| r.raw_body.len() / 4).collect();
        eprintln!("token budget {budget}: trims before lines {trims:?}; request tokens {tokens:?}");
        // Each line adds about 250 tokens; a trim to 2250 frees about 3
        // lines' worth before the budget is reached again.
        assert!(trims.len() >= 5, "{trims:?}");
        for pair in trims.windows(2) {
            assert!(pair[1] - pair[0] >= 3, "{trims:?}");
        }
        // Within the budget, less the last line's growth the estimate
        // cannot foresee.
        for (i, t) in tokens.iter().enumerate() {
            assert!(*t <= budget as usize + 300, "request {i}: {t} tokens");
        }
    });
}

/// Request bytes and (counted) tokens at line 200 of a conversation
/// with each history policy.
#[test]
fn request_size_at_line_200_with_each_history_policy() {
    run(async {
        let policies: Vec<(&str, Arc<dyn HistoryPolicy>)> = vec![
            ("all", Arc::new(FullHistory)),
            ("last:10", Arc::new(LastTurns(10))),
            ("tokens:8000", Arc::new(TokenBudget(8000))),
            ("all within 32 MB", Arc::new(MaxBytes(32_000_000))),
        ];
        let mut sizes = Vec::new();
        for (name, policy) in policies {
            let fake = counting_model(300);
            let agent = Agent::with_provider(claude(&fake))
                .system("你是一个专业的助手，回答简洁。")
                .history_with(policy)
                .build()
                .await
                .unwrap();
            let mut chat = agent.conversation();
            for line in 0..200 {
                agent
                    .send(&mut chat, &format!("question {line}: {}", "x".repeat(80)))
                    .await
                    .unwrap();
            }
            let requests = fake.requests();
            let last = &requests[199];
            let total: usize = requests.iter().map(|r| r.raw_body.len()).sum();
            eprintln!(
                "--history {name}: request 200: {} bytes, {} messages, ~{} tokens; all 200 requests: {total} bytes",
                last.raw_body.len(),
                messages(last).len(),
                last.raw_body.len() / 4
            );
            sizes.push(last.raw_body.len());
        }
        assert!(sizes[0] > 10 * sizes[1], "{sizes:?}");
        assert!(sizes[2] <= 8000 * 4 + 2000, "{sizes:?}");
        assert_eq!(sizes[0], sizes[3], "{sizes:?}");
    });
}

// ---------------------------------------------------------------------------
// The program, as a child process.

/// Runs the program on the fake (Anthropic) with no servers, `--json` and
/// `args`; the JSON lines and stderr.
fn program(fake: &FakeModel, args: &[&str], stdin: &str) -> (Vec<Value>, String) {
    let config = common::fake_model::McpConfig::new(&json!({"mcpServers": {}}));
    let mut all = vec!["--config", config.arg(), "--json", "--no-cache"];
    all.extend_from_slice(args);
    let run = common::fake_model::run_host(
        &all,
        &[
            ("ANTHROPIC_BASE_URL", fake.base_url.as_str()),
            ("ANTHROPIC_API_KEY", "sk-ant-test"),
        ],
        stdin,
    );
    assert!(run.status.success(), "{:?}\n{}", run.status, run.stderr);
    (run.json_lines(), run.stderr)
}

fn numbered_lines(count: usize, filler: usize) -> String {
    (0..count)
        .map(|i| format!("line {i}: {}\n", "问".repeat(filler)))
        .collect()
}

#[test]
fn the_program_with_on_overflow_summarize_says_the_summary_replaced_the_lines() {
    let fake = FakeModel::responding(
        vec![
            claude_text("answer 0"),
            claude_text("answer 1"),
            claude_text("answer 2"),
            claude_text("a, then b were asked"),
            claude_text("answer 3"),
        ],
        claude_window(5),
    );
    let (out, stderr) = program(&fake, &["--on-overflow", "summarize"], "a\nb\nc\nd\n");
    assert_eq!(
        out[3]["trimmed"],
        json!({"turns": 2, "messages": 3, "summarized": true})
    );
    assert!(
        stderr.contains(
            "mcp-host: the conversation did not fit the model's context window: the oldest 2 lines (4 messages) were replaced by a summary the model wrote, and the request was sent again\n"
        ),
        "{stderr}"
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 6);
    assert_eq!(requests[4].body["system"], SUMMARY_INSTRUCTION);
    assert_eq!(
        messages(&requests[5])[0],
        json!({"role": "user", "content": format!("{SUMMARY_HEADING}\na, then b were asked")})
    );
}

#[test]
fn the_program_with_history_last_2_sends_the_first_question_and_the_last_two_lines() {
    let fake = counting_model(30);
    let stdin = numbered_lines(8, 1);
    let (out, _) = program(&fake, &["--history", "last:2"], &stdin);
    assert_eq!(out.len(), 8);
    let requests = fake.requests();
    assert_eq!(requests.len(), 8);
    let user = |i: usize| json!({"role": "user", "content": format!("line {i}: 问")});
    let answer = json!({"role": "assistant", "content": [text_block(&"答".repeat(10))]});
    for (i, request) in requests.iter().enumerate().skip(3) {
        assert_eq!(
            messages(request),
            &vec![
                user(0),
                user(i - 2),
                answer.clone(),
                user(i - 1),
                answer.clone(),
                user(i)
            ],
            "request {i}"
        );
    }
    assert_eq!(messages(&requests[2]).len(), 5, "nothing to drop yet");
}

#[test]
fn the_program_with_a_token_budget_keeps_every_request_near_it_over_many_lines() {
    let fake = counting_model(600);
    let stdin = numbered_lines(30, 100);
    let (out, stderr) = program(&fake, &["--history", "tokens:2000"], &stdin);
    assert_eq!(out.len(), 30, "{stderr}");
    for line in &out {
        assert_eq!(line["stop_reason"], "end_turn", "{line}");
        assert!(line.get("trimmed").is_none(), "{line}");
    }
    let requests = fake.requests();
    let mut trims = 0;
    for pair in requests.windows(2) {
        let (before, after) = (messages(&pair[0]), messages(&pair[1]));
        assert!(after[0]["content"].as_str().unwrap().starts_with("line 0:"));
        trims += usize::from(!after.starts_with(before));
    }
    let most = requests.iter().map(|r| r.raw_body.len() / 4).max().unwrap();
    eprintln!("--history tokens:2000 over 30 lines: {trims} trims, largest request ~{most} tokens");
    assert!((4..=10).contains(&trims), "{trims}");
    assert!(most <= 2300, "{most}");
}

#[test]
fn the_program_says_on_stderr_and_in_the_json_line_that_an_overflow_was_trimmed() {
    let fake = FakeModel::responding(
        (0..4)
            .map(|i| claude_text(&format!("answer {i}")))
            .collect(),
        claude_window(5),
    );
    let (out, stderr) = program(&fake, &[], "a\nb\nc\nd\n");
    assert_eq!(out.len(), 4);
    assert_eq!(out[2].get("trimmed"), None);
    assert_eq!(
        out[3]["trimmed"],
        json!({"turns": 2, "messages": 3, "summarized": false})
    );
    assert_eq!(out[3]["text"], "answer 3");
    assert!(
        stderr.contains(
            "mcp-host: the conversation did not fit the model's context window: the oldest 2 lines were dropped (3 messages, the first question kept), and the request was sent again\n"
        ),
        "{stderr}"
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 5);
    assert_eq!(
        messages(&requests[4]),
        &vec![
            json!({"role": "user", "content": "a"}),
            json!({"role": "user", "content": "c"}),
            json!({"role": "assistant", "content": [text_block("answer 2")]}),
            json!({"role": "user", "content": "d"}),
        ]
    );
}
