//! A complete agent: an in-process tool and the `everything` server, with
//! Claude as the model. `cargo build -p examples --example everything`, then
//! `ANTHROPIC_API_KEY=… cargo run -p mcpfn-host --features local --example agent`
use mcpfn_host::agent::Agent;
use mcpfn_host::config::McpConfig;
use mcpfn_host::provider::Anthropic;
use mcpfn_runtime::{tool, tools};
use serde_json::json;

/// The weather in a city, right now.
#[tool(read_only)]
async fn get_weather(city: String) -> String {
    format!("{city}今天晴，25°C")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The library's warnings (a server left out, a tool dropped) on stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::WARN)
        .init();
    // Built beside this example, whatever the current directory.
    let everything = std::env::current_exe()?.with_file_name("everything");
    if !everything.is_file() {
        let built = "cargo build -p examples --example everything";
        eprintln!(
            "no `everything` server at {}: `{built}` first",
            everything.display()
        );
        std::process::exit(1);
    }
    let servers = json!({"mcpServers": {"everything": {"command": everything}}});
    let agent = Agent::new(Anthropic::from_env()?)
        .tools(tools![get_weather])
        .config(McpConfig::parse(&servers.to_string())?)
        .system("你是一个专业的天气助手，回答简洁。")
        .build()
        .await?;
    if let Some(left_out) = agent.catalog().failures().first() {
        eprintln!("server `{}` left out: {}", left_out.server, left_out.reason);
        std::process::exit(1);
    }
    let mut chat = agent.conversation();
    for line in ["北京今天天气怎么样", "那上海呢", "2 加 3 是多少？"] {
        let answer = agent.send(&mut chat, line).await?;
        println!("> {line}\n{} [{}]", answer.text, answer.stop_reason);
    }
    Ok(())
}
