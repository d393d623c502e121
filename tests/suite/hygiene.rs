//! `#[tool]` expands on awkward fns in a module that shadows the prelude and
//! the crates the generated code uses (serde's `test_gen.rs` approach): the
//! generated code must name everything by absolute path and trigger no lint.
//! Every tool is then called through the runtime.

#![deny(warnings)]

use mcpfn_runtime::Server;

mod shadowed {
    use ::mcpfn_runtime::{ToolError, tool};

    // The prelude's types, variants and macros, shadowed.
    #[allow(dead_code)]
    struct Result;
    #[allow(dead_code)]
    struct Ok;
    #[allow(dead_code)]
    struct Err;
    #[allow(dead_code)]
    struct Option;
    #[allow(dead_code)]
    struct Some;
    #[allow(dead_code)]
    struct None;
    #[allow(dead_code)]
    struct Box;
    #[allow(dead_code)]
    struct Vec;
    #[allow(dead_code)]
    struct String;
    #[allow(dead_code)]
    trait Send {}
    #[allow(dead_code)]
    trait Sync {}
    #[allow(dead_code)]
    trait Fn {}
    #[allow(dead_code)]
    trait Into {}
    #[allow(dead_code)]
    trait Default {}
    #[allow(unused_macros)]
    macro_rules! vec {
        ($($t:tt)*) => {
            compile_error!("the generated code used the shadowed `vec!`")
        };
    }
    #[allow(unused_macros)]
    macro_rules! format {
        ($($t:tt)*) => {
            compile_error!("the generated code used the shadowed `format!`")
        };
    }
    #[allow(unused_macros)]
    macro_rules! unreachable {
        ($($t:tt)*) => {
            compile_error!("the generated code used the shadowed `unreachable!`")
        };
    }

    // The crates and the traits the generated code reaches, shadowed.
    #[allow(dead_code)]
    mod serde {}
    #[allow(dead_code)]
    mod schemars {}
    #[allow(dead_code)]
    mod serde_json {}
    #[allow(dead_code)]
    mod mcpfn_runtime {}
    #[allow(dead_code)]
    mod core {}
    #[allow(dead_code)]
    mod alloc {}
    #[allow(dead_code)]
    mod __private {}
    #[allow(dead_code)]
    trait Deserialize {}
    #[allow(dead_code)]
    trait Serialize {}
    #[allow(dead_code)]
    trait JsonSchema {}
    #[allow(dead_code)]
    struct Tool;
    #[allow(dead_code)]
    struct ToolCall;
    #[allow(dead_code)]
    struct ToolOutcome;

    type Text = ::std::string::String;

    /// A raw identifier becomes the property `type`.
    #[tool]
    pub(crate) async fn classify(
        r#type: Text,
        r#match: ::std::option::Option<u32>,
    ) -> ::std::string::String {
        ::std::format!("{}:{:?}", r#type, r#match)
    }

    /// Parameters named like the glue's own variables.
    #[tool]
    pub(crate) fn glue(
        call: Text,
        out: Text,
        args: Text,
        value: Text,
        error: Text,
    ) -> ::std::string::String {
        [call, out, args, value, error].join(",")
    }

    /// A fn named like the attribute.
    #[tool]
    pub(crate) fn tool() -> &'static str {
        "tool"
    }

    /// A parameter named like its fn.
    #[tool]
    pub(crate) async fn echo(echo: Text) -> ::std::string::String {
        echo
    }

    /// A fallible tool whose `Result` is spelled out, next to a shadowed one.
    #[tool]
    pub(crate) fn checked(n: i64) -> ::core::result::Result<i64, ToolError> {
        if n < 0 {
            return ::core::result::Result::Err(ToolError::new("n must not be negative"));
        }
        ::core::result::Result::Ok(n * 2)
    }

    /// Structured output through the shadowed names.
    #[tool(name = "pair", meta(kind = "awkward"))]
    pub(crate) async fn make_pair(
        /// First
        first: ::std::vec::Vec<u8>,
        #[arg(rename = "second", description = "Second")] r#second: ::std::option::Option<bool>,
    ) -> (::std::vec::Vec<u8>, bool) {
        (first, r#second.unwrap_or_default())
    }

    /// `tools!` under the same shadows.
    pub(crate) fn all() -> ::std::vec::Vec<::mcpfn_runtime::Tool> {
        ::mcpfn_runtime::tools![
            classify,
            glue,
            tool,
            echo,
            checked,
            make_pair,
            nested::deeper::depth,
        ]
    }

    pub(crate) mod nested {
        pub(crate) mod deeper {
            /// A tool two modules down, registered by its path.
            #[::mcpfn_runtime::tool]
            pub(crate) fn depth(level: u8) -> u8 {
                level + 2
            }
        }
    }
}

/// Sends `request`, returns the response to it.
async fn roundtrip(
    client: &mut mcpfn_runtime::testing::MemoryTransport,
    request: serde_json::Value,
) -> serde_json::Value {
    client.send(&request.to_string()).await.unwrap();
    let line = client.recv().await.unwrap().expect("a response");
    serde_json::from_str(&line).unwrap()
}

/// Calls the tool `name` and returns the `result` of the response.
async fn call(
    client: &mut mcpfn_runtime::testing::MemoryTransport,
    id: u64,
    name: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let response = roundtrip(
        client,
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }),
    )
    .await;
    assert_eq!(response["id"], id, "{response}");
    response["result"].clone()
}

fn text(result: &serde_json::Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn awkward_tools_register_and_run() {
    // A tool defined inside a fn body: the marker struct and its impl are
    // items of the same block, so `tools![local]` finds them.
    /// Defined in a fn body.
    #[mcpfn_runtime::tool]
    fn local(n: u8) -> u8 {
        n + 1
    }

    let mut tools = shadowed::all();
    tools.extend(mcpfn_runtime::tools![local]);
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "classify", "glue", "tool", "echo", "checked", "pair", "depth", "local"
        ]
    );
    let classify = tools[0].input_schema();
    assert_eq!(classify["required"], serde_json::json!(["type"]));
    assert!(classify["properties"]["match"].is_object(), "{classify}");
    let pair = tools[5].input_schema();
    assert_eq!(pair["properties"]["first"]["description"], "First");
    assert_eq!(pair["properties"]["second"]["description"], "Second");
    // Still plain fns.
    assert_eq!(
        shadowed::glue("a".into(), "b".into(), "c".into(), "d".into(), "e".into()),
        "a,b,c,d,e"
    );
    assert_eq!(shadowed::tool(), "tool");
    assert_eq!(local(1), 2);

    let (mut client, server_end) = mcpfn_runtime::testing::memory();
    let (read, write) = tokio::io::split(server_end);
    let server = tokio::spawn(Server::new("hygiene", "0").tools(tools).serve(read, write));
    let init = roundtrip(
        &mut client,
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "hygiene", "version": "0"},
            },
        }),
    )
    .await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await
        .unwrap();

    let result = call(
        &mut client,
        1,
        "classify",
        serde_json::json!({"type": "x", "match": 3}),
    )
    .await;
    assert_eq!(text(&result), "x:Some(3)", "{result}");
    let args =
        serde_json::json!({"call": "1", "out": "2", "args": "3", "value": "4", "error": "5"});
    let result = call(&mut client, 2, "glue", args).await;
    assert_eq!(text(&result), "1,2,3,4,5", "{result}");
    let result = call(&mut client, 3, "tool", serde_json::json!({})).await;
    assert_eq!(text(&result), "tool", "{result}");
    let result = call(&mut client, 4, "echo", serde_json::json!({"echo": "hi"})).await;
    assert_eq!(text(&result), "hi", "{result}");
    let result = call(&mut client, 5, "checked", serde_json::json!({"n": 21})).await;
    assert_eq!(
        result["structuredContent"],
        serde_json::json!({"result": 42}),
        "{result}"
    );
    let result = call(&mut client, 6, "checked", serde_json::json!({"n": -1})).await;
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(text(&result), "n must not be negative", "{result}");
    let result = call(&mut client, 7, "pair", serde_json::json!({"first": [1, 2]})).await;
    assert_eq!(
        result["structuredContent"],
        serde_json::json!({"result": [[1, 2], false]}),
        "{result}"
    );
    let result = call(&mut client, 8, "depth", serde_json::json!({"level": 1})).await;
    assert_eq!(
        result["structuredContent"],
        serde_json::json!({"result": 3}),
        "{result}"
    );
    let result = call(&mut client, 9, "local", serde_json::json!({"n": 4})).await;
    assert_eq!(
        result["structuredContent"],
        serde_json::json!({"result": 5}),
        "{result}"
    );
    // The shadowed names do not leak into argument checking either.
    let result = call(&mut client, 10, "echo", serde_json::json!({"echo": 1})).await;
    assert_eq!(result["isError"], true, "{result}");

    client.close().await.unwrap();
    server.await.unwrap().unwrap();
}
