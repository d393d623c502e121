//! A complete agent: an in-process tool and the `everything` server, with
//! Claude as the model. `ANTHROPIC_API_KEY=… cargo run -p mcp-host --example agent`
use mcp_host::agent::Agent;
use mcp_host::config::McpConfig;
use mcp_host::provider::Anthropic;
use mcp_runtime::{tool, tools};

/// The weather in a city, right now.
#[tool(read_only)]
async fn get_weather(city: String) -> String {
    format!("{city}今天晴，25°C")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = McpConfig::parse(
        r#"{"mcpServers": {"everything": {"command": "target/release/examples/everything"}}}"#,
    )?;
    let agent = Agent::new(Anthropic::from_env()?)
        .tools(tools![get_weather])
        .config(config)
        .system("你是一个专业的天气助手，回答简洁。")
        .build()
        .await?;
    let mut chat = agent.conversation();
    for line in ["北京今天天气怎么样", "那上海呢", "2 加 3 是多少？"] {
        let answer = agent.send(&mut chat, line).await?;
        println!("> {line}\n{} [{}]", answer.text, answer.stop_reason);
    }
    Ok(())
}
