//! Dumping the tool surface without serving: the `--dump-tools` flag of a real
//! binary in every format, and the golden gate on `everything`.

use crate::common;

use common::{assert_valid, example_binary};
use mcpfn_runtime::assert_tools_snapshot;
use serde_json::Value;
use std::process::{Command, Output};

fn dump(args: &[&str]) -> Output {
    Command::new(example_binary("everything"))
        .args(args)
        .output()
        .expect("everything runs")
}

fn dump_json(format: &str) -> (Value, String) {
    let output = dump(&[&format!("--dump-tools={format}")]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json = serde_json::from_slice(&output.stdout).expect("stdout is the dump's JSON");
    (json, String::from_utf8(output.stderr).unwrap())
}

#[test]
fn the_advertised_surface_of_everything_is_guarded() {
    let (surface, _) = dump_json("mcp-2026-07-28");
    assert_tools_snapshot!(surface, "snapshots/everything.tools.json");
}

#[test]
fn mcp_dumps_are_valid_tools_list_results() {
    for (format, version) in [
        ("mcp", "2025-11-25"),
        ("mcp-2025-06-18", "2025-06-18"),
        ("mcp-2026-07-28", "2026-07-28"),
    ] {
        let (json, report) = dump_json(format);
        assert_valid(version, "ListToolsResult", &json);
        assert_eq!(json["tools"].as_array().unwrap().len(), 18, "{format}");
        let total_line = report.lines().last().unwrap();
        assert!(
            total_line.starts_with("total") && total_line.contains("in 18 tools"),
            "{report}"
        );
    }
    let plain = dump(&["--dump-tools"]);
    let plain: Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert_eq!(
        plain,
        dump_json("mcp").0,
        "the default format is mcp (2025-11-25)"
    );
}

#[test]
fn model_api_dumps() {
    let (anthropic, _) = dump_json("anthropic");
    let add = anthropic
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "add")
        .unwrap();
    assert_eq!(add["description"], "Add two numbers.");
    assert_eq!(
        add["input_schema"]["required"],
        serde_json::json!(["a", "b"])
    );
    assert_eq!(
        add.as_object().unwrap().len(),
        3,
        "name, description, input_schema only"
    );

    let (openai, report) = dump_json("openai");
    let echo = openai
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "echo")
        .unwrap();
    assert_eq!(echo["type"], "function");
    assert_eq!(
        echo["function"]["parameters"]["properties"]["text"]["type"],
        "string"
    );
    // Each entry reports its compact size.
    let line = report.lines().find(|l| l.starts_with("echo ")).unwrap();
    let bytes: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_eq!(bytes, echo.to_string().len());
}

#[test]
fn an_unknown_format_is_refused() {
    let output = dump(&["--dump-tools=yaml"]);
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown dump format `yaml`"), "{stderr}");
}

#[test]
fn a_build_script_writes_the_catalog_at_build_time() {
    use mcpfn_runtime::{DumpFormat, ProtocolVersion, Server};
    let built: Value = serde_json::from_str(catalog_server::TOOLS_JSON).unwrap();
    let server = Server::new("catalog", "0.1.0").tools(catalog_tools::all());
    let now = server
        .dump(DumpFormat::Mcp(ProtocolVersion::V2025_11_25))
        .unwrap();
    assert_eq!(
        built,
        now.to_json(),
        "the build-time catalog is what the server advertises"
    );
    assert_valid("2025-11-25", "ListToolsResult", &built);
    let anthropic: Value = serde_json::from_str(catalog_server::ANTHROPIC_TOOLS_JSON).unwrap();
    assert_eq!(anthropic[0]["name"], "convert_temperature");
    let openai: Value = serde_json::from_str(catalog_server::OPENAI_TOOLS_JSON).unwrap();
    assert_eq!(openai[1]["function"]["name"], "km_to_miles");
}
