//! What the README's first command builds: `everything` with the examples'
//! default features, a stdio server without HTTP, Redis, JWT or the Tasks
//! extension. Built here as that command builds it (`-p examples`, no
//! feature), so that the workspace's feature set (the tests crate turns
//! every feature on) does not leak in, then driven over its pipes: its task
//! tools are plain tools, it offers no extension and has no `tasks/*`
//! methods.
//!
//! These builds put their binaries in a target dir of their own (so that
//! they do not replace the workspace's `everything`, which other tests run
//! meanwhile) but keep their intermediate artifacts in the workspace's build
//! dir ([`cargo_build_dir`]): a crate compiled with the same features and
//! profile there is reused instead of compiled again, and cargo's unit
//! hashes keep the feature sets apart.

use crate::common;

use common::{Peer, envelope};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const EXT: &str = "io.modelcontextprotocol/tasks";

/// `everything` as `cargo run --example everything` builds it (debug, as
/// these tests are), built once per test process.
fn default_everything() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let target = workspace_target_dir().join("default-build");
        let status = cargo_build_dir()
            .current_dir(&root)
            .args([
                "build",
                "--quiet",
                "-p",
                "examples",
                "--example",
                "everything",
            ])
            .arg("--target-dir")
            .arg(&target)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the default everything failed");
        target.join("debug").join("examples").join("everything")
    })
}

/// The workspace's target dir, where `cargo test` built this test.
fn workspace_target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    )
}

/// `cargo`, with its intermediate artifacts (`build.build-dir`) in the
/// workspace's target dir, unless the caller chose a build dir of their own
/// (`CARGO_BUILD_BUILD_DIR`, which the child inherits). `--target-dir` then
/// places only the final binaries.
fn cargo_build_dir() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    if std::env::var_os("CARGO_BUILD_BUILD_DIR").is_none() {
        let build_dir = workspace_target_dir();
        let build_dir = build_dir.to_str().expect("a UTF-8 target dir");
        // A TOML literal string: no escapes to get wrong on a path.
        command.arg(format!("--config=build.build-dir='{build_dir}'"));
    }
    command
}

/// A 2026-07-28 request whose `_meta` declares the Tasks extension.
fn with_tasks(id: u64, method: &str, mut params: Value) -> Value {
    let mut meta = envelope();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"extensions": {EXT: {}}});
    params["_meta"] = meta;
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[test]
fn the_default_build_has_no_tasks_extension_and_runs_task_tools_as_calls() {
    let mut peer = Peer::spawn_binary(default_everything(), &[]);
    peer.version = "2026-07-28".into();

    let discovered = peer.request(with_tasks(1, "server/discover", json!({})));
    let capabilities = &discovered["result"]["capabilities"];
    assert_eq!(
        capabilities["tools"],
        json!({"listChanged": true}),
        "{discovered}"
    );
    assert!(
        capabilities["extensions"].get(EXT).is_none(),
        "no Tasks extension offered: {discovered}"
    );

    // `crawl` is `task = "optional"`: asked by a client that declares the
    // extension, it is still a plain call, answered on the request.
    let crawled = peer.request(with_tasks(
        2,
        "tools/call",
        json!({"name": "crawl", "arguments": {"pages": 2, "step_ms": 1}}),
    ));
    let result = &crawled["result"];
    assert_eq!(result["resultType"], "complete", "{crawled}");
    assert_eq!(result["content"][0]["text"], "Crawled 2 pages", "{crawled}");

    let get = peer.request(with_tasks(3, "tasks/get", json!({"taskId": "t1"})));
    assert_eq!(get["error"]["code"], -32601, "{get}");
    assert_eq!(get["error"]["message"], "Method not found: tasks/get");

    let listen = peer.request(with_tasks(
        4,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": ["t1"]}}),
    ));
    assert_eq!(listen["error"]["code"], -32602, "{listen}");
    let message = listen["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("does not offer"), "{listen}");
    let (status, _) = peer.close();
    assert!(status.success(), "{status}");
}

/// A user's crate `name` with `source` as its `src/main.rs`, depending on
/// mcp-runtime (and tokio) without the `tasks` feature, written under the
/// default build's target dir with the workspace's lock file (so no other
/// version is resolved) and the workspace's profile for dependencies (no
/// debuginfo), so that the default build's dependencies are reused;
/// `cargo subcommand` runs on it, and its output is returned.
fn user_crate(name: &str, source: &str, subcommand: &str) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.canonicalize().expect("workspace root");
    let target = default_everything()
        .ancestors()
        .nth(3)
        .expect("the default build's target dir")
        .to_owned();
    let krate = target.join(name);
    // What an earlier run (or version of this test) left is not this crate.
    let _ = std::fs::remove_dir_all(krate.join("src"));
    std::fs::create_dir_all(krate.join("src")).expect("crate dir");
    let manifest = format!(
        "[package]\nname = {name:?}\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nmcpfn-runtime = {{ path = {:?} }}\n\
         tokio = {{ version = \"1\", features = [\"rt\", \"macros\"] }}\n\n[workspace]\n\n\
         [profile.dev.package.\"*\"]\ndebug = false\n",
        root.join("mcp-runtime")
    );
    std::fs::write(krate.join("Cargo.toml"), manifest).expect("manifest");
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).expect("lock file");
    std::fs::write(krate.join("src/main.rs"), source).expect("source");
    cargo_build_dir()
        .current_dir(&krate)
        .args([subcommand, "--quiet", "--message-format", "short"])
        .arg("--target-dir")
        .arg(&target)
        .output()
        .expect("cargo runs")
}

/// A tool that runs only as a task, without the `tasks` feature: one
/// compile error, on the attribute, naming the feature (and a
/// `task = "optional"` tool beside it compiles: a plain tool).
#[test]
fn a_required_task_tool_without_the_tasks_feature_is_one_compile_error() {
    let source = r#"use mcpfn_runtime::tool;

/// Runs long.
#[tool(task = "required")]
pub async fn long_job(seconds: u32) -> String {
    format!("{seconds}")
}

/// Maybe long: a plain tool without the feature.
#[tool(task = "optional")]
pub async fn maybe(seconds: u32) -> String {
    format!("{seconds}")
}

fn main() {}
"#;
    let output = user_crate("task-required", source, "build");
    assert!(!output.status.success(), "it compiled");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(
        errors.len(),
        2,
        "one error and cargo's `could not compile`:\n{stderr}"
    );
    assert!(
        errors[0].contains("src/main.rs:4:")
            && errors[0]
                .contains("needs mcp-runtime's Tasks extension: add `features = [\"tasks\"]`"),
        "{stderr}"
    );
}

/// The same tool built by hand (`ToolBuilder`), which no macro checks: the
/// server refuses to start, with the error that names the feature.
#[test]
fn a_hand_built_required_task_tool_without_the_tasks_feature_stops_the_server() {
    let source = r#"use mcpfn_runtime::{Server, TaskSupport, ToolBuilder, ToolOutcome};

fn main() {
    let job = ToolBuilder::new("long_job", |_call| Box::pin(async { ToolOutcome::text("done") }))
        .task(TaskSupport::Required)
        .build();
    match Server::new("s", "1").tool(job).local() {
        Ok(_) => println!("started"),
        Err(err) => println!("{err}"),
    }
}
"#;
    let output = user_crate("task-required-by-hand", source, "run");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "tool `long_job` runs only as a task (task = \"required\"), but mcp-runtime was built without the Tasks extension; add `features = [\"tasks\"]` to the mcp-runtime dependency"
    );
}
