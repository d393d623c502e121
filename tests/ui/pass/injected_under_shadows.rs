//! Injected `Context` and `State<T>` parameters expand under shadowed
//! prelude names and crates with no warning, and still receive the runtime's
//! values (the injection goes through hidden traits spelled by absolute path).

#![deny(warnings)]

mod shadowed {
    use ::mcpfn_runtime::{Context, State, tool};

    #[allow(dead_code)]
    trait Sized {}
    #[allow(dead_code)]
    trait Send {}
    #[allow(dead_code)]
    trait Sync {}
    #[allow(dead_code)]
    trait Clone {}
    #[allow(dead_code)]
    struct Result;
    #[allow(dead_code)]
    struct Ok;
    #[allow(dead_code)]
    struct Err;
    #[allow(dead_code)]
    mod core {}
    #[allow(dead_code)]
    mod mcpfn_runtime {}
    #[allow(dead_code)]
    mod __private {}

    pub(crate) struct Greeting {
        pub(crate) text: &'static str,
    }

    /// Greets through the state, named by the context.
    #[tool]
    pub(crate) async fn greet(
        greeting: State<Greeting>,
        who: ::std::string::String,
        ctx: Context,
    ) -> ::std::string::String {
        ::std::format!("{} {who} from {}", greeting.text, ctx.tool_name())
    }

    /// The runtime's types by their full path.
    #[tool]
    pub(crate) fn named(ctx: ::mcpfn_runtime::Context, greeting: ::mcpfn_runtime::State<Greeting>) -> ::std::string::String {
        ::std::format!("{} {}", greeting.text, ctx.tool_name())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    use mcpfn_runtime::testing::Client;
    use mcpfn_runtime::{Server, tools};
    use serde_json::json;

    let listed = tools![shadowed::greet, shadowed::named];
    assert_eq!(listed[0].input_schema()["required"], json!(["who"]));
    let server = Server::new("s", "1").state(shadowed::Greeting { text: "Hello" }).tools(listed);
    let client = Client::builder(server).connect().await.unwrap();
    let greeted = client.call("greet", json!({"who": "Ada"})).await.unwrap();
    assert_eq!(greeted.text(), Some("Hello Ada from greet"));
    let named = client.call("named", json!({})).await.unwrap();
    assert_eq!(named.text(), Some("Hello named"));
}
