//! A streamed response and the same response whole give the same reply:
//! the same assistant message to the byte, calls, stop and usage, however
//! the network cuts the stream.

use super::anthropic::stream::MessageAssembler;
use super::openai::stream::ChunkAssembler;
use super::stream::{Assembler, Delta, EventReader};
use super::{ProviderError, Reply, anthropic, openai};
use serde_json::{Value, json};

const TREE: usize = 16 << 20;

/// `stream` fed in pieces of `piece` bytes (the last piece shorter);
/// returns the reply and the text deltas passed on.
fn assemble(
    api: &'static str,
    mut assembler: Box<dyn Assembler>,
    stream: &[u8],
    piece: usize,
) -> Result<(Reply, String), ProviderError> {
    let mut reader = EventReader::new(api);
    let mut seen = String::new();
    let mut on_delta = |delta: Delta<'_>| match delta {
        Delta::Text(text) => seen.push_str(text),
    };
    for chunk in stream.chunks(piece) {
        reader.feed(chunk, assembler.as_mut(), &mut on_delta)?;
    }
    Ok((assembler.finish()?, seen))
}

fn assert_same(streamed: &Reply, whole: &Reply) {
    assert_eq!(
        serde_json::to_string(&streamed.message).unwrap(),
        serde_json::to_string(&whole.message).unwrap()
    );
    assert_eq!(streamed.text, whole.text);
    assert_eq!(streamed.calls, whole.calls);
    assert_eq!(streamed.stop, whole.stop);
    assert_eq!(streamed.stop_reason, whole.stop_reason);
    assert_eq!(streamed.usage, whole.usage);
}

/// Pieces of every size from 1 to 7 bytes, and a few larger.
const PIECES: [usize; 10] = [1, 2, 3, 4, 5, 6, 7, 13, 64, 1 << 20];

fn sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {}\n\n",
                event["type"].as_str().unwrap(),
                event
            )
        })
        .collect()
}

fn claude_whole() -> Value {
    json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": [
            {"type": "thinking", "thinking": "用户问两个城市。", "signature": "EqQBCgIYAhIM"},
            {"type": "text", "text": "我需要查一下北京和上海的天气。"},
            {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "北京"}},
            {"type": "tool_use", "id": "toolu_02", "name": "get_weather", "input": {"city": "上海", "days": [1, 2]}},
            {"type": "tool_use", "id": "toolu_03", "name": "now", "input": {}},
            {"type": "mystery_block", "payload": {"kept": true}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 512, "cache_read_input_tokens": 2048, "output_tokens": 96}
    })
}

fn claude_stream() -> String {
    let block = |index: usize, content_block: Value| json!({"type": "content_block_start", "index": index, "content_block": content_block});
    let delta = |index: usize, delta: Value| json!({"type": "content_block_delta", "index": index, "delta": delta});
    let stop = |index: usize| json!({"type": "content_block_stop", "index": index});
    let json_piece = |index: usize, piece: &str| {
        delta(
            index,
            json!({"type": "input_json_delta", "partial_json": piece}),
        )
    };
    sse(&[
        json!({"type": "message_start", "message": {
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 512, "cache_read_input_tokens": 2048, "output_tokens": 1}
        }}),
        block(0, json!({"type": "thinking", "thinking": ""})),
        delta(0, json!({"type": "thinking_delta", "thinking": "用户问"})),
        delta(
            0,
            json!({"type": "thinking_delta", "thinking": "两个城市。"}),
        ),
        delta(
            0,
            json!({"type": "signature_delta", "signature": "EqQBCgIYAhIM"}),
        ),
        stop(0),
        json!({"type": "ping"}),
        block(1, json!({"type": "text", "text": ""})),
        delta(1, json!({"type": "text_delta", "text": "我需要查一下"})),
        delta(
            1,
            json!({"type": "text_delta", "text": "北京和上海的天气。"}),
        ),
        stop(1),
        block(
            2,
            json!({"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}),
        ),
        json_piece(2, ""),
        json_piece(2, "{\"city\": \"北"),
        json_piece(2, "京\"}"),
        stop(2),
        block(
            3,
            json!({"type": "tool_use", "id": "toolu_02", "name": "get_weather", "input": {}}),
        ),
        json_piece(3, "{\"city\": \"上海\", \"da"),
        json_piece(3, "ys\": [1, 2]}"),
        stop(3),
        block(
            4,
            json!({"type": "tool_use", "id": "toolu_03", "name": "now", "input": {}}),
        ),
        stop(4),
        block(
            5,
            json!({"type": "mystery_block", "payload": {"kept": true}}),
        ),
        delta(5, json!({"type": "mystery_delta", "x": 1})),
        stop(5),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
               "usage": {"output_tokens": 96}}),
        json!({"type": "message_stop"}),
    ])
}

#[test]
fn a_streamed_claude_message_is_the_whole_message_however_it_is_cut() {
    let whole = anthropic::read_response(claude_whole()).unwrap();
    assert_eq!(whole.calls.len(), 3);
    let stream = claude_stream();
    for piece in PIECES {
        let assembler = Box::new(MessageAssembler::new(TREE));
        let (streamed, seen) =
            assemble("the Anthropic API", assembler, stream.as_bytes(), piece).unwrap();
        assert_same(&streamed, &whole);
        assert_eq!(seen, "我需要查一下北京和上海的天气。");
    }
}

fn openai_whole() -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "我查一下。", "refusal": null, "annotations": [],
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"北京\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"上海\"}"}},
                {"id": "call_3", "type": "function", "function": {"name": "now", "arguments": ""}}
            ]
        }}],
        "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99,
                  "prompt_tokens_details": {"cached_tokens": 64}}
    })
}

fn openai_stream() -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
               "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]})
    };
    let call = |index: usize, head: Option<(&str, &str)>, arguments: &str| {
        let mut call = json!({"index": index, "function": {"arguments": arguments}});
        if let Some((id, name)) = head {
            call["id"] = json!(id);
            call["type"] = json!("function");
            call["function"]["name"] = json!(name);
        }
        chunk(json!({"tool_calls": [call]}), Value::Null)
    };
    let chunks = [
        chunk(
            json!({"role": "assistant", "content": "", "refusal": null}),
            Value::Null,
        ),
        chunk(json!({"content": "我查"}), Value::Null),
        chunk(json!({"content": "一下。"}), Value::Null),
        call(0, Some(("call_1", "get_weather")), ""),
        call(0, None, "{\"city\":"),
        call(0, None, "\"北京\"}"),
        call(1, Some(("call_2", "get_weather")), "{\"ci"),
        call(1, None, "ty\":\"上海\"}"),
        call(2, Some(("call_3", "now")), ""),
        chunk(json!({}), json!("tool_calls")),
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
               "choices": [], "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99,
               "prompt_tokens_details": {"cached_tokens": 64}}}),
    ];
    let mut text: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    text.push_str("data: [DONE]\n\n");
    text
}

#[test]
fn a_streamed_completion_is_the_whole_completion_however_it_is_cut() {
    let whole = openai::read_response(openai_whole()).unwrap();
    assert_eq!(whole.calls.len(), 3);
    let stream = openai_stream();
    for piece in PIECES {
        let assembler = Box::new(ChunkAssembler::new(TREE));
        let (streamed, seen) =
            assemble("the OpenAI API", assembler, stream.as_bytes(), piece).unwrap();
        assert_same(&streamed, &whole);
        assert_eq!(seen, "我查一下。");
    }
}

#[test]
fn a_stream_cut_short_or_out_of_order_or_failing_is_an_error() {
    let claude = |stream: &str| {
        assemble(
            "the Anthropic API",
            Box::new(MessageAssembler::new(TREE)),
            stream.as_bytes(),
            3,
        )
        .map(|_| ())
    };
    let full = claude_stream();
    let cut = &full[..full.rfind("event: message_stop").unwrap()];
    assert!(
        matches!(claude(cut), Err(ProviderError::InvalidResponse { reason, .. }) if reason.contains("message_stop"))
    );
    let skipped = sse(&[
        json!({"type": "message_start", "message": {"content": [], "usage": {}}}),
        json!({"type": "content_block_start", "index": 1_000_000_000u64, "content_block": {"type": "text", "text": ""}}),
    ]);
    assert!(
        matches!(claude(&skipped), Err(ProviderError::InvalidResponse { reason, .. }) if reason.contains("out of order"))
    );
    let failed = sse(&[
        json!({"type": "message_start", "message": {"content": [], "usage": {}}}),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]);
    assert!(
        matches!(claude(&failed), Err(ProviderError::InvalidResponse { reason, .. }) if reason.contains("`overloaded_error` error: Overloaded"))
    );
    let huge = format!("data: {}\n\n", "x".repeat(super::stream::EVENT_LIMIT + 1));
    assert!(matches!(claude(&huge), Err(ProviderError::TooLarge { .. })));

    let openai = |stream: &str| {
        assemble(
            "the OpenAI API",
            Box::new(ChunkAssembler::new(TREE)),
            stream.as_bytes(),
            5,
        )
        .map(|_| ())
    };
    let full = openai_stream();
    assert!(
        matches!(openai(full.trim_end_matches("data: [DONE]\n\n")), Err(ProviderError::InvalidResponse { reason, .. }) if reason.contains("[DONE]"))
    );
    let far = "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":4000000000,\"id\":\"x\"}]}}]}\n\n";
    assert!(
        matches!(openai(far), Err(ProviderError::InvalidResponse { reason, .. }) if reason.contains("tool call 4000000000"))
    );
}
