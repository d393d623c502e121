//! Registration mistakes that only show at run time (tool lists put together
//! while the program runs) stop `mcpfn_runtime::cli::run` with one line on
//! stderr, the error's `Display` form, and exit status 1; `serve_stdio` and
//! `serve` return them.
//!
//! The test runs its own binary a second time as the server (the
//! `MCP_REGISTRATION_CHILD` variable says which server), so it needs no
//! harness: `main` is either the test or the server.

use mcpfn_runtime::{Server, ToolBuilder, ToolOutcome, tool, tools};
use std::process::{Command, Stdio};

/// Look a user up.
#[tool(name = "lookup")]
async fn lookup_user(id: u32) -> String {
    id.to_string()
}

/// Two tools named `lookup`: one from `#[tool]`, one built at run time, so
/// no single `tools![...]` list sees both.
fn duplicate_lookup() -> Server {
    let built = ToolBuilder::new("lookup", |_| Box::pin(async { ToolOutcome::text("") })).build();
    Server::new("registration", "1")
        .tools(tools![lookup_user])
        .tool(built)
}

/// Runs this binary as the server `child`; its exit status and stderr.
fn run_child(child: &str) -> (Option<i32>, String) {
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .env("MCP_REGISTRATION_CHILD", child)
        .stdin(Stdio::null())
        .output()
        .expect("the test binary runs");
    assert!(output.stdout.is_empty(), "nothing on stdout: {output:?}");
    (
        output.status.code(),
        String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    )
}

fn duplicate_names_print_display_and_exit_1() {
    let (status, stderr) = run_child("duplicate");
    assert_eq!(stderr, "error: two tools are named \"lookup\"\n");
    assert_eq!(status, Some(1));
}

/// `serve_stdio` does not exit the process: it returns the mistake, before
/// touching stdout.
fn duplicate_names_in_serve_stdio_return_display() {
    let (status, stderr) = run_child("duplicate-serve-stdio");
    assert_eq!(stderr, "returned: two tools are named \"lookup\"\n");
    assert_eq!(status, Some(0));
}

fn duplicate_names_in_serve_return_display() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let err = runtime
        .block_on(duplicate_lookup().serve(tokio::io::empty(), tokio::io::sink()))
        .unwrap_err();
    assert_eq!(err.to_string(), "two tools are named \"lookup\"");
}

fn main() {
    if let Ok(child) = std::env::var("MCP_REGISTRATION_CHILD") {
        let server = match child.as_str() {
            "duplicate" | "duplicate-serve-stdio" => duplicate_lookup(),
            other => panic!("unknown child {other}"),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        if child == "duplicate-serve-stdio" {
            let err = runtime.block_on(server.serve_stdio()).unwrap_err();
            eprintln!("returned: {err}");
            return;
        }
        if let Err(err) = runtime.block_on(mcpfn_runtime::cli::run(server)) {
            panic!("cli::run returned instead of exiting: {err:?}");
        }
        return;
    }
    duplicate_names_print_display_and_exit_1();
    println!("duplicate_names_print_display_and_exit_1 ... ok");
    duplicate_names_in_serve_stdio_return_display();
    println!("duplicate_names_in_serve_stdio_return_display ... ok");
    duplicate_names_in_serve_return_display();
    println!("duplicate_names_in_serve_return_display ... ok");
}
