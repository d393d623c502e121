//! Every form a `#[prompt]` fn may take: its returns, optional and renamed
//! arguments, injected `Context` and `State<T>`, a completer, options.

use mcpfn_runtime::{
    CompletionContext, Context, PromptMessage, Server, State, ToolError, prompt, prompts,
};

/// Say hello.
#[prompt(title = "Hello", icon(src = "https://example.com/h.png", mime_type = "image/png"))]
async fn hello(
    /// Who to greet.
    #[complete(names)]
    name: String,
    /// How, if not plainly.
    #[arg(rename = "howTo")]
    how: Option<String>,
) -> String {
    format!("Say hello to {name} {}.", how.unwrap_or_default())
}

async fn names(prefix: &str, context: &CompletionContext) -> Vec<String> {
    let _ = context.argument("howTo");
    vec![format!("{prefix}ly")]
}

#[prompt(name = "ask", description = "Asks.")]
async fn asks(ctx: Context, greeting: State<String>) -> Result<Vec<PromptMessage>, ToolError> {
    let _ = ctx.tool_name();
    Ok(vec![PromptMessage::assistant(greeting.as_str())])
}

#[prompt]
async fn one() -> PromptMessage {
    PromptMessage::user("one")
}

#[prompt]
async fn fallible() -> Result<String, std::io::Error> {
    Ok("fine".to_owned())
}

mod nested {
    #[mcpfn_runtime::prompt]
    pub async fn inner() -> &'static str {
        "inner"
    }
}

fn main() {
    let prompts = prompts![hello, asks, one, fallible, nested::inner];
    assert_eq!(prompts.len(), 5);
    assert_eq!(prompts[0].name(), "hello");
    let arguments = prompts[0].arguments();
    assert_eq!((arguments[0].name.as_str(), arguments[0].required), ("name", true));
    assert_eq!(arguments[0].description.as_deref(), Some("Who to greet."));
    assert_eq!((arguments[1].name.as_str(), arguments[1].required), ("howTo", false));
    assert_eq!(prompts[1].name(), "ask");
    assert!(prompts[1].arguments().is_empty());
    let _server = Server::new("p", "1").state(String::from("hi")).prompts(prompts);
}
