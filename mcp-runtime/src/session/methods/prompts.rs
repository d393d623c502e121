//! `prompts/list` and `prompts/get`: serving the cached pages, and
//! checking a `prompts/get` as it came over the wire (the prompt, its
//! required arguments, each a string) before its body starts as a call
//! does ([`Session::start_call`]: the same admission, run and
//! `input_required` rounds as `tools/call`).

use crate::prompt::Given;
use crate::protocol::frame::Frame;
use crate::protocol::incoming::requests::ListToolsParamsRef;
use crate::protocol::model::method::ListPrompts;
use crate::protocol::outgoing::Reply;
use crate::protocol::params::Params;
use crate::protocol::read::Text;
use crate::protocol::{ProtocolVersion, RpcError};
use crate::session::Session;
use crate::session::era::RequestInfo;
use crate::session::method::{Method, Respond};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// One `prompts/list` page: its prompts' JSON array (cached, shared) and
/// the cursor of the next page.
#[derive(Debug)]
pub(in crate::session) struct PromptsPage<'s> {
    prompts: Arc<str>,
    next_cursor: Option<&'s str>,
    ttl_ms: u64,
}

impl Respond for PromptsPage<'_> {
    fn respond(self, reply: Reply<'_>) -> Frame {
        reply.prompts_page(self.prompts, self.next_cursor, self.ttl_ms)
    }
}

/// `prompts/list`: a page of the prompt list, in both eras; 2026-07-28
/// pages carry the same cache hints as `tools/list`'s.
impl Method for ListPrompts {
    // The same params as `tools/list`: a cursor.
    type ParamsRef<'p> = ListToolsParamsRef<'p>;
    type Answer<'s> = PromptsPage<'s>;

    fn handle<'s>(
        session: &'s Session,
        version: ProtocolVersion,
        params: ListToolsParamsRef<'_>,
    ) -> Result<PromptsPage<'s>, RpcError> {
        let page = session
            .shared
            .prompts
            .page(version, params.cursor.as_deref())
            .map_err(|_| {
                RpcError::invalid_params(
                    "Invalid cursor: use a nextCursor value from an earlier prompts/list result, or no cursor",
                )
            })?;
        Ok(PromptsPage {
            prompts: Arc::clone(&page.prompts),
            next_cursor: page.next_cursor.as_deref(),
            ttl_ms: session.shared.identity.list_ttl_ms,
        })
    }
}

impl Session {
    /// `prompts/get`: `-32602` for an unknown prompt, a missing required
    /// argument or one that is not a string, each named; else the
    /// prompt's body starts as a call.
    pub(in crate::session) fn get_prompt(
        &mut self,
        id: &RawValue,
        info: RequestInfo,
        params: Params<'_>,
    ) -> Result<(), RpcError> {
        let Some(requested) = params.name.as_deref() else {
            return Err(RpcError::invalid_params(
                "Invalid params for prompts/get: missing field `name`",
            ));
        };
        let Some(prompt) = self.shared.prompts.get(requested) else {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: no prompt is named '{requested}' (see prompts/list)"
            ))
            .with_data(serde_json::json!({ "name": requested })));
        };
        // `arguments` is an object or absent: the one parse checked it.
        let given = match params.arguments {
            None => GivenArguments::default(),
            Some(raw) => serde_json::from_str(raw.get()).map_err(|err| {
                RpcError::invalid_params(format!("Invalid params: \"arguments\": {err}"))
            })?,
        };
        prompt.check_arguments(&given.0)?;
        let name = Arc::clone(&prompt.name);
        let runner = Arc::clone(&prompt.runner);
        self.start_call(id, info, params, name, runner, false)
    }
}

/// The `arguments` of a `prompts/get` as their check reads them: each
/// name, borrowed from the line unless it has escapes, and what its value
/// is. No value is copied: the body reads them itself.
#[derive(Default)]
struct GivenArguments<'a>(Vec<(Cow<'a, str>, Given)>);

impl<'de> Deserialize<'de> for GivenArguments<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Arguments;
        impl<'de> Visitor<'de> for Arguments {
            type Value = GivenArguments<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of the prompt's arguments")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut given = Vec::with_capacity(map.size_hint().unwrap_or(4));
                while let Some(Text(name)) = map.next_key::<Text<'de>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    let kind = match value.get().as_bytes().first() {
                        Some(b'"') => Given::Text,
                        Some(b'n') => Given::Null,
                        _ => Given::Other,
                    };
                    given.push((name.unwrap_or_default(), kind));
                }
                Ok(GivenArguments(given))
            }
        }
        deserializer.deserialize_map(Arguments)
    }
}

#[cfg(test)]
mod tests {
    use crate::prompt::PromptBuilder;
    use crate::protocol::model::PromptMessage;
    use crate::transport::memory;
    use crate::{ElicitRequest, Server};
    use serde_json::{Value, json};
    use std::collections::HashMap;

    fn server() -> Server {
        let greet = PromptBuilder::new("greet", |call| {
            Box::pin(async move {
                let args: HashMap<String, String> = call.arguments().unwrap_or_default();
                Ok(vec![PromptMessage::user(format!(
                    "Hello, {}!",
                    args["name"]
                ))])
            })
        })
        .description("Greets someone.")
        .argument("name", "Who to greet.", true)
        .build();
        let ask = PromptBuilder::new("ask", |call| {
            Box::pin(async move {
                let form = ElicitRequest::form(
                    "Topic?",
                    json!({"type": "object", "properties": {"topic": {"type": "string"}}}),
                );
                let answer = call.context().elicit("topic", form).await?;
                let topic = answer.content.and_then(|c| c.get("topic").cloned());
                Ok(vec![PromptMessage::assistant(format!(
                    "About {}",
                    topic.unwrap_or_default()
                ))])
            })
        })
        .build();
        // A tool of the same name that asks the same question: a state
        // sealed for the prompt must not open it.
        let tool = crate::ToolBuilder::new("ask", |call| {
            Box::pin(async move {
                let form = ElicitRequest::form("Topic?", json!({"type": "object"}));
                match call.context().elicit("topic", form).await {
                    Ok(_) => crate::ToolOutcome::text("the tool ran"),
                    Err(err) => crate::ToolOutcome::error(err.message().to_owned()),
                }
            })
        })
        .build();
        Server::new("p", "1").prompts([greet, ask]).tool(tool)
    }

    async fn exchange(messages: &[Value]) -> Vec<Value> {
        let (mut client, io) = memory();
        let (input, output) = tokio::io::split(io);
        let served = tokio::spawn(server().serve(input, output));
        let mut answers = Vec::new();
        for message in messages {
            client.send(&message.to_string()).await.unwrap();
            let line = client.recv().await.unwrap().expect("an answer");
            answers.push(serde_json::from_str(&line).unwrap());
        }
        client.close().await.unwrap();
        served.await.unwrap().unwrap();
        answers
    }

    fn meta() -> Value {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
    }

    #[tokio::test]
    async fn a_prompt_is_listed_got_and_refused_by_name_and_argument() {
        let answers = exchange(&[
            json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": {"_meta": meta()}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
                "params": {"name": "greet", "arguments": {"name": "Ada"}, "_meta": meta()}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/get",
                "params": {"name": "greet", "_meta": meta()}}),
            json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get",
                "params": {"name": "nope", "_meta": meta()}}),
        ])
        .await;
        let list = &answers[0]["result"];
        assert_eq!(
            list["prompts"],
            json!([{"name": "ask"}, {"name": "greet", "description": "Greets someone.",
                "arguments": [{"name": "name", "description": "Who to greet.", "required": true}]}])
        );
        assert_eq!(
            (&list["ttlMs"], &list["cacheScope"]),
            (&json!(300000), &json!("public"))
        );
        let got = &answers[1]["result"];
        assert_eq!(got["resultType"], "complete");
        assert_eq!(got["description"], "Greets someone.");
        assert_eq!(
            got["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}])
        );
        assert_eq!(answers[2]["error"]["code"], -32602);
        assert_eq!(
            answers[2]["error"]["message"],
            "Invalid params: the prompt 'greet' needs the argument 'name'"
        );
        assert_eq!(answers[3]["error"]["code"], -32602);
        assert_eq!(
            answers[3]["error"]["message"],
            "Invalid params: no prompt is named 'nope' (see prompts/list)"
        );
    }

    #[tokio::test]
    async fn a_prompt_that_panics_or_times_out_is_named_a_prompt() {
        let panics =
            PromptBuilder::new("boom", |_| Box::pin(async { panic!("on purpose") })).build();
        let slow = PromptBuilder::new("slow", |_| {
            Box::pin(async {
                tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                Ok(Vec::new())
            })
        })
        .build();
        // A prompt's runner is a tool: the server's call timeout is its.
        let server = Server::new("p", "1")
            .call_timeout(std::time::Duration::from_millis(20))
            .prompts([panics, slow]);
        let (mut client, io) = memory();
        let (input, output) = tokio::io::split(io);
        tokio::spawn(server.serve(input, output));
        let mut ask = async |name: &str| -> Value {
            let get = json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                "params": {"name": name, "_meta": meta()}});
            client.send(&get.to_string()).await.unwrap();
            serde_json::from_str(&client.recv().await.unwrap().unwrap()).unwrap()
        };
        assert_eq!(
            ask("boom").await["error"],
            json!({"code": -32603, "message": "The prompt 'boom' failed with an internal error; the details are in the server's log. Retrying the same request is unlikely to help."})
        );
        assert_eq!(
            ask("slow").await["error"],
            json!({"code": -32603, "message": "The prompt 'slow' timed out after 20ms."})
        );
    }

    #[tokio::test]
    async fn a_prompt_asks_in_an_input_required_round() {
        let (mut client, io) = memory();
        let (input, output) = tokio::io::split(io);
        let served = tokio::spawn(server().serve(input, output));
        let mut ask = async |message: &Value| -> Value {
            client.send(&message.to_string()).await.unwrap();
            serde_json::from_str(&client.recv().await.unwrap().unwrap()).unwrap()
        };
        let first = json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
            "params": {"name": "ask", "_meta": meta()}});
        let asked = ask(&first).await;
        let result = &asked["result"];
        assert_eq!(result["resultType"], "input_required", "{result}");
        assert_eq!(
            result["inputRequests"]["topic"]["method"],
            "elicitation/create"
        );
        let mut retry = first.clone();
        retry["id"] = 2.into();
        retry["params"]["requestState"] = result["requestState"].clone();
        retry["params"]["inputResponses"] =
            json!({"topic": {"action": "accept", "content": {"topic": "owls"}}});
        // The state was sealed for the prompt: the tool of the same name
        // with the same (no) arguments refuses it.
        let mut as_tool = retry.clone();
        as_tool["id"] = 9.into();
        as_tool["method"] = "tools/call".into();
        let refused = ask(&as_tool).await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        let done = ask(&retry).await;
        assert_eq!(done["result"]["resultType"], "complete", "{done}");
        assert_eq!(
            done["result"]["messages"],
            json!([{"role": "assistant", "content": {"type": "text", "text": "About \"owls\""}}])
        );
        // And it is spent.
        retry["id"] = 3.into();
        let replayed = ask(&retry).await;
        assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
        client.close().await.unwrap();
        served.await.unwrap().unwrap();
    }

    /// A server whose `flood` prompt returns `count` messages of `text`,
    /// and whose `echo` prompt returns its argument, with a message limit
    /// of `max` bytes.
    fn hostile(max: usize) -> Server {
        let flood = PromptBuilder::new("flood", |call| {
            Box::pin(async move {
                let args: HashMap<String, String> = call.arguments().unwrap_or_default();
                let count: usize = args["count"].parse().unwrap_or(0);
                Ok(vec![PromptMessage::user(args["text"].clone()); count])
            })
        })
        .argument("count", "", true)
        .argument("text", "", true)
        .build();
        let echo = PromptBuilder::new("echo", |call| {
            Box::pin(async move {
                let args: HashMap<String, String> = call.arguments().unwrap_or_default();
                Ok(vec![PromptMessage::user(args["text"].clone())])
            })
        })
        .argument("text", "", true)
        .build();
        Server::new("p", "1")
            .prompts([flood, echo])
            .max_message_size(max)
    }

    async fn one(server: Server, message: Value) -> Value {
        let (mut client, io) = memory();
        let (input, output) = tokio::io::split(io);
        let served = tokio::spawn(server.serve(input, output));
        client.send(&message.to_string()).await.unwrap();
        let line = client.recv().await.unwrap().expect("an answer");
        client.close().await.unwrap();
        served.await.unwrap().unwrap();
        serde_json::from_str(&line).unwrap()
    }

    fn get(name: &str, arguments: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
            "params": {"name": name, "arguments": arguments, "_meta": meta()}})
    }

    #[tokio::test]
    async fn a_prompt_larger_than_the_message_limit_is_refused_by_name() {
        let flood = get("flood", json!({"count": "10000", "text": "x"}));
        let refused = one(hostile(64 * 1024), flood.clone()).await;
        assert_eq!(refused["error"]["code"], -32603, "{refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("The prompt 'flood' produced ")
                && message.ends_with(
                    " bytes (10000 messages), over this server's max message size of 65536 bytes; it was not sent"
                ),
            "{message}"
        );
        // One huge text fails the same way; under the limit it is sent whole.
        let huge = get("echo", json!({"text": "y".repeat(100 * 1024)}));
        let refused = one(
            hostile(64 * 1024 * 4),
            get(
                "flood",
                json!({"count": "3", "text": "z".repeat(100 * 1024)}),
            ),
        )
        .await;
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("(3 messages)"),
            "{refused}"
        );
        let sent = one(hostile(1024 * 1024), huge).await;
        let text = sent["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap();
        assert_eq!(text.len(), 100 * 1024);
        let fine = one(
            hostile(64 * 1024),
            get("flood", json!({"count": "10", "text": "x"})),
        )
        .await;
        assert_eq!(fine["result"]["messages"].as_array().unwrap().len(), 10);
    }

    #[tokio::test]
    async fn arguments_of_any_length_are_bounded_by_the_message_limit() {
        let long = get("echo", json!({"text": "a".repeat(200 * 1024)}));
        let refused = one(hostile(64 * 1024), long).await;
        assert_eq!(refused["error"]["code"], -32600, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("over this server's limit of 65536 bytes"),
            "{refused}"
        );
        let name = get(&"n".repeat(10_000), json!({}));
        let unknown = one(hostile(64 * 1024), name).await;
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    }
}
