//! Schemas and host dumps: only standard `format`s with integer ranges as
//! `minimum`/`maximum`; `--dump-tools FORMAT` in both spellings, unknown
//! formats refused; model API dumps without non-standard keys; the
//! `openai-strict` dump checked against every strict-mode rule; dumps that
//! need no registered state; warnings for missing descriptions; names model
//! APIs refuse mapped as a host maps them, collisions refused.

use crate::common;

use common::example_binary;
use mcpfn_runtime::testing::wire::Client;
use mcpfn_runtime::{
    Deserialize, DumpFormat, Error, JsonSchema, Serialize, Server, State, Tool, tool, tools,
};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::process::{Command, Output};

/// The formats JSON Schema 2020-12 defines.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// Identifiers, nested inside an argument.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(crate = "mcpfn_runtime::serde")]
#[schemars(crate = "mcpfn_runtime::schemars")]
struct Ids {
    /// A UUID
    #[schemars(extend("format" = "uuid"))]
    id: String,
    /// An address
    addr: std::net::IpAddr,
    /// Small counts
    counts: Vec<u16>,
}

/// Measurements, as returned.
#[derive(Serialize, JsonSchema)]
#[serde(crate = "mcpfn_runtime::serde")]
#[schemars(crate = "mcpfn_runtime::schemars")]
struct Measured {
    /// Single precision
    ratio: f32,
    /// A byte
    byte: u8,
}

/// Take every numeric width.
#[allow(clippy::too_many_arguments)]
#[tool]
async fn widths(
    /// u8
    a_u8: u8,
    /// u16
    a_u16: u16,
    /// u32
    a_u32: u32,
    /// u64
    a_u64: u64,
    /// i8
    a_i8: i8,
    /// i32
    a_i32: i32,
    /// i64
    a_i64: i64,
    /// f32
    a_f32: f32,
    /// f64
    a_f64: f64,
    /// usize
    a_usize: usize,
    /// optional u16
    maybe: Option<u16>,
    /// ids
    ids: Ids,
    /// a header-mirrored i64
    #[arg(header = "Big")]
    big: i64,
    /// a header-mirrored u64
    #[arg(header = "Huge")]
    huge: u64,
) -> Measured {
    let _ = (
        a_u16, a_u32, a_u64, a_i8, a_i32, a_i64, a_f64, a_usize, maybe,
    );
    let _ = (ids, big, huge);
    Measured {
        ratio: a_f32,
        byte: a_u8,
    }
}

/// Every `format` value in a schema, wherever it is.
fn formats(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(format)) = map.get("format") {
                found.push(format.clone());
            }
            map.values().for_each(|v| formats(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| formats(v, found)),
        _ => {}
    }
}

fn range(schema: &Value) -> (Option<i64>, Option<i64>) {
    (
        schema.get("minimum").and_then(Value::as_i64),
        schema.get("maximum").and_then(Value::as_i64),
    )
}

fn widths_tool() -> Tool {
    tools![widths].remove(0)
}

#[test]
fn schemas_carry_only_standard_formats_and_integer_ranges() {
    let tool = widths_tool();
    let input = tool.input_schema();
    let output = tool.output_schema().unwrap();
    let mut found = Vec::new();
    formats(input, &mut found);
    formats(output, &mut found);
    for format in &found {
        assert!(
            STANDARD_FORMATS.contains(&format.as_str()),
            "non-standard format `{format}` in {input:#}\n{output:#}"
        );
    }
    assert_eq!(found, ["uuid"], "the uuid format is standard and kept");

    let p = &input["properties"];
    assert_eq!(range(&p["a_u8"]), (Some(0), Some(255)));
    assert_eq!(range(&p["a_u16"]), (Some(0), Some(65_535)));
    assert_eq!(range(&p["a_u32"]), (Some(0), Some(4_294_967_295)));
    assert_eq!(range(&p["a_i8"]), (Some(-128), Some(127)));
    assert_eq!(
        range(&p["a_i32"]),
        (Some(-2_147_483_648), Some(2_147_483_647))
    );
    // Wider types: only bounds every JSON number reader keeps exactly.
    assert_eq!(range(&p["a_u64"]), (Some(0), None));
    assert_eq!(range(&p["a_usize"]), (Some(0), None));
    assert_eq!(range(&p["a_i64"]), (None, None));
    // Header-mirrored wide integers keep the ±(2^53−1) rule.
    assert_eq!(
        range(&p["big"]),
        (Some(-MAX_SAFE_INTEGER), Some(MAX_SAFE_INTEGER))
    );
    assert_eq!(range(&p["huge"]), (Some(0), Some(MAX_SAFE_INTEGER)));
    for float in ["a_f32", "a_f64"] {
        assert_eq!(
            p[float],
            json!({"type": "number", "description": &float[2..]})
        );
    }
    assert_eq!(range(&p["maybe"]), (Some(0), Some(65_535)));
    let ids = &p["ids"]["properties"];
    assert_eq!(range(&ids["counts"]["items"]), (Some(0), Some(65_535)));
    assert_eq!(ids["id"]["format"], "uuid");
    assert_eq!(ids["addr"].get("format"), None, "`ip` is not standard");
    let out = &output["properties"];
    assert_eq!(range(&out["byte"]), (Some(0), Some(255)));
    assert_eq!(out["ratio"].get("format"), None);

    // The ranges are what the deserializer accepts.
    let validator = jsonschema::validator_for(&p["a_u8"]).unwrap();
    assert!(validator.is_valid(&json!(255)) && !validator.is_valid(&json!(256)));
    let validator = jsonschema::validator_for(&p["a_i32"]).unwrap();
    assert!(validator.is_valid(&json!(-2_147_483_648_i64)));
    assert!(!validator.is_valid(&json!(2_147_483_648_i64)));
}

fn run(args: &[&str]) -> Output {
    Command::new(example_binary("everything"))
        .args(args)
        .output()
        .expect("everything runs")
}

fn dump(args: &[&str]) -> (Value, String) {
    let output = run(args);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{args:?}: {stderr}");
    let json = serde_json::from_slice(&output.stdout).expect("stdout is the dump's JSON");
    (json, stderr)
}

#[test]
fn the_format_may_follow_the_flag_after_a_space() {
    for format in ["anthropic", "openai", "openai-strict", "mcp-2026-07-28"] {
        let (spaced, _) = dump(&["--dump-tools", format]);
        let (joined, _) = dump(&[&format!("--dump-tools={format}")]);
        assert_eq!(spaced, joined, "{format}");
    }
    let (anthropic, _) = dump(&["--dump-tools", "anthropic"]);
    assert!(anthropic.is_array(), "not the MCP result object");
    assert!(anthropic[0].get("input_schema").is_some());
    // A flag after a bare --dump-tools is not its format.
    let (plain, _) = dump(&["--dump-tools", "--verbose"]);
    assert!(plain["tools"].is_array(), "the default, mcp");
}

#[test]
fn an_unknown_format_is_refused_in_both_spellings() {
    for args in [&["--dump-tools", "yaml"][..], &["--dump-tools=yaml"]] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("error: unknown dump format `yaml`; use one of:")
                && stderr.contains("openai-strict"),
            "{stderr}"
        );
        assert!(!stderr.contains("Custom {"), "no Debug output: {stderr}");
    }
}

/// Every key of every schema node (not property names).
fn schema_keys(schema: &Value, keys: &mut Vec<String>) {
    let Value::Object(map) = schema else {
        return;
    };
    for (key, value) in map {
        keys.push(key.clone());
        match key.as_str() {
            "properties" | "$defs" => value
                .as_object()
                .into_iter()
                .flat_map(Map::values)
                .for_each(|v| schema_keys(v, keys)),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => value
                .as_array()
                .into_iter()
                .flatten()
                .for_each(|v| schema_keys(v, keys)),
            "items" | "additionalProperties" | "not" => schema_keys(value, keys),
            _ => {}
        }
    }
}

/// Properties and a header argument with an extension key.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcpfn_runtime::serde")]
#[schemars(crate = "mcpfn_runtime::schemars")]
struct Tagged {
    /// A value with a vendor extension
    #[schemars(extend("x-vendor" = true))]
    value: String,
}

/// Call a region.
#[tool]
async fn regional(
    /// The region, mirrored into a header
    #[arg(header = "Region")]
    region: String,
    /// Something tagged
    tagged: Tagged,
) -> String {
    format!("{region} {}", tagged.value)
}

#[test]
fn model_api_dumps_carry_no_non_standard_keys() {
    let server = Server::new("s", "1").tools(tools![regional]);
    let mcp = server.dump(DumpFormat::Mcp(
        mcpfn_runtime::ProtocolVersion::LATEST_LEGACY,
    ));
    let mcp = mcp.unwrap().to_json();
    assert_eq!(
        mcp["tools"][0]["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region",
        "MCP clients need the header mapping"
    );
    for (format, pointer) in [
        (DumpFormat::Anthropic, "/0/input_schema"),
        (DumpFormat::OpenAi, "/0/function/parameters"),
        (DumpFormat::OpenAiStrict, "/0/function/parameters"),
    ] {
        let json = server.dump(format).unwrap().to_json();
        let schema = json.pointer(pointer).unwrap();
        let mut keys = Vec::new();
        schema_keys(schema, &mut keys);
        assert!(keys.contains(&"description".to_owned()), "{format}");
        assert!(
            keys.iter().all(|k| !k.starts_with("x-")),
            "{format}: {schema:#}"
        );
    }
}

/// The keywords OpenAI's strict mode accepts.
const STRICT_KEYWORDS: [&str; 20] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

const STRICT_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

#[derive(Default)]
struct StrictTotals {
    properties: usize,
    enum_values: usize,
    max_depth: usize,
}

/// Asserts one schema node and its subschemas follow strict mode.
fn assert_strict(node: &Value, path: &str, depth: usize, totals: &mut StrictTotals) {
    let map = node
        .as_object()
        .unwrap_or_else(|| panic!("{path}: not an object schema"));
    assert!(!map.is_empty(), "{path}: empty schema");
    for key in map.keys() {
        assert!(
            STRICT_KEYWORDS.contains(&key.as_str()),
            "{path}: `{key}` in {node}"
        );
    }
    if let Some(format) = map.get("format") {
        assert!(
            STRICT_FORMATS.contains(&format.as_str().unwrap()),
            "{path}: {format}"
        );
    }
    if let Some(values) = map.get("enum") {
        totals.enum_values += values.as_array().unwrap().len();
    }
    let is_object = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(t)) => t.iter().any(|t| t == "object"),
        _ => map.contains_key("properties"),
    };
    if is_object {
        totals.max_depth = totals.max_depth.max(depth);
        assert_eq!(map["additionalProperties"], false, "{path}");
        let properties = map["properties"].as_object().unwrap();
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        let mut required: Vec<&str> = map["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        required.sort_unstable();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(required, sorted, "{path}: every property is required");
        for (name, property) in properties {
            totals.properties += 1;
            assert_strict(
                property,
                &format!("{path}/properties/{name}"),
                depth + 1,
                totals,
            );
        }
    }
    if let Some(items) = map.get("items") {
        assert_strict(items, &format!("{path}/items"), depth, totals);
    }
    for (i, branch) in map
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        assert_strict(branch, &format!("{path}/anyOf/{i}"), depth, totals);
    }
    for (name, def) in map
        .get("$defs")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        assert_strict(def, &format!("{path}/$defs/{name}"), 1, totals);
    }
    if let Some(reference) = map.get("$ref") {
        let reference = reference.as_str().unwrap();
        assert!(reference == "#" || reference.starts_with("#/$defs/"));
    }
}

#[test]
fn the_openai_strict_dump_of_everything_meets_every_strict_rule() {
    let (strict, report) = dump(&["--dump-tools=openai-strict"]);
    let (loose, _) = dump(&["--dump-tools=openai"]);
    let tools = strict.as_array().unwrap();
    assert_eq!(tools.len(), loose.as_array().unwrap().len(), "every tool");
    assert!(report.contains("(openai-strict)"), "{report}");
    for tool in tools {
        let function = &tool["function"];
        let name = function["name"].as_str().unwrap();
        assert_eq!(tool["type"], "function");
        assert_eq!(function["strict"], true, "{name}");
        let parameters = &function["parameters"];
        assert_eq!(parameters["type"], "object", "{name}: root is an object");
        assert!(
            parameters.get("anyOf").is_none(),
            "{name}: root is no union"
        );
        let mut totals = StrictTotals::default();
        assert_strict(parameters, name, 1, &mut totals);
        assert!(totals.properties <= 5_000, "{name}");
        assert!(totals.max_depth <= 10, "{name}");
        assert!(totals.enum_values <= 1_000, "{name}");
    }
    let function = |name: &str| {
        tools
            .iter()
            .find(|t| t["function"]["name"] == name)
            .map(|t| t["function"]["parameters"].clone())
            .unwrap()
    };
    // Optional arguments are required and nullable.
    let weather = function("get_weather_data");
    assert_eq!(weather["required"], json!(["location", "units"]));
    assert_eq!(
        weather["properties"]["units"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        weather["properties"]["units"]["enum"],
        json!(["metric", "imperial", null])
    );
    assert_eq!(
        function("fail")["properties"]["reason"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        function("panic"),
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

/// Settings with defaults, nested in an argument.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcpfn_runtime::serde")]
#[schemars(crate = "mcpfn_runtime::schemars")]
struct Settings {
    /// Retries; 3 when absent
    #[serde(default = "three")]
    retries: u32,
    /// A label
    label: Option<String>,
}

fn three() -> u32 {
    3
}

/// Report the settings used.
#[tool]
async fn configure(
    /// The settings
    settings: Settings,
    /// A note
    note: Option<String>,
) -> String {
    format!(
        "{} {} {}",
        settings.retries,
        settings.label.unwrap_or_default(),
        note.unwrap_or_default()
    )
}

#[tokio::test]
async fn nulls_that_strict_clients_send_for_absent_properties_are_taken_as_absent() {
    let server = Server::new("s", "1").tools(tools![configure]);
    let strict = server.dump(DumpFormat::OpenAiStrict).unwrap().to_json();
    let retries =
        &strict[0]["function"]["parameters"]["properties"]["settings"]["properties"]["retries"];
    assert_eq!(retries["type"], json!(["integer", "null"]));
    let nulls = json!({"settings": {"retries": null, "label": null}, "note": null});
    let mut client = Client::builder(server).connect().await.unwrap();
    let wire = client.call("configure", nulls.clone()).await.unwrap();
    // The in-process door decodes its arguments with the second decoder:
    // it takes the nulls as absent too.
    let server = Server::new("s", "1").tools(tools![configure]);
    let door = mcpfn_runtime::testing::Client::builder(server)
        .connect()
        .await
        .unwrap();
    let local = door.call("configure", nulls).await.unwrap();
    for (by, is_error, text) in [
        ("wire", wire.is_error(), wire.text()),
        ("door", local.is_error(), local.text()),
    ] {
        assert!(!is_error, "{by}: {text:?}");
        assert_eq!(text, Some("3  "), "{by}");
    }
}

/// Tag things.
#[tool]
async fn tag(
    /// Tags by name
    tags: HashMap<String, String>,
    /// Anything at all
    extra: Value,
) -> String {
    format!("{} {extra}", tags.len())
}

#[test]
fn a_tool_that_cannot_be_strict_is_reported_not_weakened() {
    let server = Server::new("s", "1").tools(tools![tag, configure]);
    let err = server.dump(DumpFormat::OpenAiStrict).unwrap_err();
    let Error::NotExpressible { format, problems } = &err else {
        panic!("{err}");
    };
    assert_eq!(format, "openai-strict");
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("tool `tag`: /properties/tags: an object with arbitrary keys")),
        "{problems:#?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("tool `tag`: /properties/extra: accepts any JSON value")),
        "{problems:#?}"
    );
    let message = err.to_string();
    assert!(message.starts_with("the tools cannot be dumped as openai-strict"));
    // The other formats take the tool as it is.
    assert!(server.dump(DumpFormat::OpenAi).is_ok());
}

/// A store the tools share.
struct Store;

/// Read from the store.
#[tool]
async fn read_store(store: State<Store>, key: String) -> String {
    let _: &Store = &store;
    key
}

#[test]
fn dumping_needs_no_registered_state() {
    let server = Server::new("s", "1").tools(tools![read_store]);
    for format in DumpFormat::NAMES {
        let dump = server.dump(format.parse().unwrap()).unwrap();
        assert_eq!(dump.entries().len(), 1, "{format}");
    }
}

#[tool]
async fn bare(x: u32, y: Option<u32>, #[arg(description = "described")] z: u32) -> String {
    (x + y.unwrap_or(0) + z).to_string()
}

#[test]
fn tools_and_arguments_without_a_description_are_warned_about() {
    let server = Server::new("s", "1").tools(tools![bare, configure]);
    let listing = server.dump(DumpFormat::Anthropic).unwrap();
    assert_eq!(
        listing.warnings(),
        [
            "tool `bare` has no description; the model sees only its name (add a doc comment)",
            "argument `x` of tool `bare` has no description (add a doc comment on the parameter)",
            "argument `y` of tool `bare` has no description (add a doc comment on the parameter)",
        ]
    );
    let report = listing.size_report();
    assert_eq!(
        report
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .count(),
        3,
        "{report}"
    );
    // everything documents every tool and argument: no warning.
    let (_, report) = dump(&["--dump-tools"]);
    assert!(!report.contains("warning"), "{report}");
}

#[test]
fn mcp_dumps_are_tools_list_results_of_their_revision() {
    for (format, version) in [
        ("mcp", "2025-11-25"),
        ("mcp-2025-06-18", "2025-06-18"),
        ("mcp-2026-07-28", "2026-07-28"),
    ] {
        let (result, _) = dump(&["--dump-tools", format]);
        let modern = version == "2026-07-28";
        assert_eq!(result.get("ttlMs").is_some(), modern, "{format}: {result}");
        assert_eq!(result.get("cacheScope").is_some(), modern, "{format}");
        assert_eq!(result.get("resultType").is_some(), modern, "{format}");
        if modern {
            assert_eq!(result["cacheScope"], "public");
            assert_eq!(result["resultType"], "complete");
            // A live result also names the server in `_meta`; a dump is not
            // tied to a process and leaves it out.
            let mut live = result.clone();
            live["_meta"] = json!({"io.modelcontextprotocol/serverInfo": {"name": "everything", "version": "0.1.0"}});
            common::assert_valid(version, "ListToolsResult", &live);
        } else {
            common::assert_valid(version, "ListToolsResult", &result);
        }
    }
}

/// Read a file.
#[tool(name = "files.read")]
async fn files_dot_read(
    /// The path
    path: String,
) -> String {
    path
}

/// A name MCP allows and model APIs do not: 71 characters.
const LONG_NAME: &str = "get_the_current_weather_forecast_for_a_city_and_country_in_metric_units";

/// Forecast.
#[tool(name = "get_the_current_weather_forecast_for_a_city_and_country_in_metric_units")]
async fn long_forecast(
    /// The city
    city: String,
) -> String {
    city
}

/// Read a file, under the name `files.read` maps to.
#[tool(name = "files_read")]
async fn files_underscore_read(
    /// The path
    path: String,
) -> String {
    path
}

#[tokio::test]
async fn model_api_dumps_map_dotted_and_long_names_as_a_host_does() {
    use mcpfn_protocol::model_name::{is_model_safe, model_name};
    let server = Server::new("weather", "1").tools(tools![files_dot_read, long_forecast]);
    // The values are fixed: a change here renames users' tools.
    let long_mapped = "get_the_current_weather_forecast_for_a_city_and_country_f57f0a21";
    assert_eq!(model_name("weather", LONG_NAME, false), long_mapped);
    let expected = [("files.read", "files_read"), (LONG_NAME, long_mapped)];
    for (format, pointer) in [
        (DumpFormat::Anthropic, "/name"),
        (DumpFormat::OpenAi, "/function/name"),
        (DumpFormat::OpenAiStrict, "/function/name"),
    ] {
        let dump = server.dump(format).unwrap();
        let json = dump.to_json();
        for (i, (mcp, mapped)) in expected.iter().enumerate() {
            assert_eq!(json[i].pointer(pointer).unwrap(), mapped, "{format}");
            assert!(is_model_safe(mapped));
            assert_eq!(dump.entries()[i].name, *mapped, "{format}");
            assert_eq!(dump.entries()[i].mcp_name, *mcp, "{format}");
            assert!(
                dump.warnings().iter().any(|w| w.starts_with(&format!(
                    "tool `{mcp}` is offered to the model as `{mapped}`"
                ))),
                "{format}: {:#?}",
                dump.warnings()
            );
        }
        let report = dump.size_report();
        assert!(
            report.contains("warning: tool `files.read` is offered to the model as `files_read`"),
            "{report}"
        );
        assert!(
            report.lines().any(|l| l.starts_with(long_mapped)),
            "{report}"
        );
    }
    // The MCP dump and the served names are unchanged.
    let mcp = server
        .dump(DumpFormat::Mcp(
            mcpfn_runtime::ProtocolVersion::LATEST_LEGACY,
        ))
        .unwrap();
    assert!(mcp.warnings().is_empty(), "{:#?}", mcp.warnings());
    let json = mcp.to_json();
    assert_eq!(json["tools"][0]["name"], "files.read");
    assert_eq!(json["tools"][1]["name"], LONG_NAME);
    let mut client = Client::builder(server).connect().await.unwrap();
    let result = client
        .call("files.read", json!({"path": "/etc/hosts"}))
        .await
        .unwrap();
    assert_eq!(result.text(), Some("/etc/hosts"));
}

#[test]
fn two_tools_mapped_to_one_model_name_fail_the_model_api_dumps() {
    let server = Server::new("s", "1").tools(tools![files_dot_read, files_underscore_read]);
    for format in [
        DumpFormat::Anthropic,
        DumpFormat::OpenAi,
        DumpFormat::OpenAiStrict,
    ] {
        let err = server.dump(format).unwrap_err();
        let Error::ModelNameCollision {
            first,
            second,
            model_name,
            ..
        } = &err
        else {
            panic!("{err}");
        };
        assert_eq!(
            (first.as_str(), second.as_str(), model_name.as_str()),
            ("files.read", "files_read", "files_read")
        );
        let message = err.to_string();
        assert!(
            message.contains("`files.read`")
                && message.contains("`files_read`")
                && message.contains(&format.to_string()),
            "{message}"
        );
    }
    // Over MCP they are two names.
    let mcp = server.dump(DumpFormat::Mcp(
        mcpfn_runtime::ProtocolVersion::LATEST_LEGACY,
    ));
    assert_eq!(mcp.unwrap().entries().len(), 2);
}

#[test]
fn the_tool_docs_example_of_a_mapped_name_is_what_the_function_gives() {
    use mcpfn_protocol::model_name::model_name;
    let docs = include_str!("../../mcp-macros/tool-options.md");
    for tool in ["files.read", LONG_NAME] {
        assert!(
            docs.contains(&format!("#[tool(name = \"{tool}\")]")),
            "{tool}"
        );
        let line = format!("model APIs: {}", model_name("weather", tool, false));
        assert!(docs.contains(&line), "tool-options.md lacks `{line}`");
    }
    assert!(docs.contains("For a server named `weather`"));
}
