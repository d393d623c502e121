//! Writes the tool catalog at build time, without running the server:
//! `$OUT_DIR/tools.json` (the MCP `tools/list` result), plus the Anthropic and
//! OpenAI `tools` arrays beside it. Set `CATALOG_OUT=path/to/tools.json` to
//! also write the MCP catalog to a checked-in path.

use mcpfn_runtime::{DumpFormat, Server};
use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-env-changed=CATALOG_OUT");
    let server = Server::new("catalog", env!("CARGO_PKG_VERSION")).tools(catalog_tools::all());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (format, file) in [
        (
            DumpFormat::Mcp(mcpfn_runtime::ProtocolVersion::LATEST_LEGACY),
            "tools.json",
        ),
        (DumpFormat::Anthropic, "tools.anthropic.json"),
        (DumpFormat::OpenAi, "tools.openai.json"),
    ] {
        let dump = server.dump(format).expect("the catalog registers");
        let text = format!("{:#}\n", dump.to_json());
        std::fs::write(out_dir.join(file), &text).expect("OUT_DIR is writable");
        if file == "tools.json"
            && let Ok(path) = std::env::var("CATALOG_OUT")
        {
            std::fs::write(&path, &text).expect("CATALOG_OUT is writable");
        }
    }
}
