//! Shared test harness: mcp-client's (a bound on every test, the
//! examples built once and started over stdio or on a loopback port; one
//! file, included), the official SDKs the interop tests run, the scripted
//! model APIs ([`fake_model`]) and the pseudo-terminal ([`terminal`]).

#![allow(dead_code, unreachable_pub)]

pub mod fake_model;
// One harness for both crates' suites, not a copy.
#[path = "../../../../mcp-client/tests/suite/common/harness.rs"]
mod harness;
pub mod terminal;
pub mod web;

pub use harness::*;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The Python interpreter of `target/interop-venv`, the virtualenv
/// tests/suite/interop.rs makes from tests/interop/requirements.txt (the official
/// Python SDK); made here the same way when missing, under the same lock.
pub fn python_sdk() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON
        .get_or_init(|| python_venv("tests/interop/requirements.txt", "interop-venv"))
        .clone()
}

/// The Python interpreter of `target/<venv>`, a virtualenv with the
/// packages `requirements` (a path from the workspace's root) pins; made
/// (or made again, when the pins changed) under the install lock the
/// interop tests take.
pub fn python_venv(requirements: &str, venv: &str) -> PathBuf {
    let wanted = std::fs::read(workspace_root().join(requirements))
        .unwrap_or_else(|e| panic!("read {requirements}: {e}"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let venv = target.join(venv);
    let python = venv.join("bin").join("python");
    let stamp = venv.join(".interop-requirements.txt");
    let ready = || python.is_file() && std::fs::read(&stamp).is_ok_and(|s| s == wanted);
    if !ready() {
        std::fs::create_dir_all(&target).unwrap();
        let lock = std::fs::File::create(target.join("interop-install.lock")).unwrap();
        lock.lock().expect("lock the install lock file");
        if !ready() {
            let _ = std::fs::remove_dir_all(&venv);
            let ok = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .is_ok_and(|s| s.success());
            assert!(
                ok,
                "creating the venv {} failed (Python >= 3.10 with venv)",
                venv.display()
            );
            let ok = Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--quiet",
                    "-r",
                ])
                .arg(workspace_root().join(requirements))
                .status()
                .is_ok_and(|s| s.success());
            assert!(
                ok,
                "installing {requirements} into {} failed",
                venv.display()
            );
            std::fs::write(&stamp, &wanted).unwrap();
        }
    }
    python
}

/// `tests/interop`, the directory whose `node_modules` holds the official
/// TypeScript SDK pinned by its `package-lock.json`, installed with `npm ci`
/// when the stamp `tests/suite/common/node.rs` writes after an install does not
/// match the lock file: the same stamp and the same lock file as that
/// helper, so this and the `tests` crate's interop tests install it once.
/// Node.js >= 20 with npm must be on `PATH`; without them the test fails
/// with a message saying so, as the `tests` crate's interop tests do.
pub fn ts_sdk() -> PathBuf {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY
        .get_or_init(|| npm_installed("tests/interop", ".interop-installed"))
        .clone()
}

/// The official MCP Apps example servers, pinned by
/// `mcp-host/tests/apps/package-lock.json` and installed there with
/// `npm ci` on first use, as [`ts_sdk`] installs the SDK.
pub fn apps_servers() -> PathBuf {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY
        .get_or_init(|| npm_installed("mcp-host/tests/apps", ".apps-installed"))
        .clone()
}

/// The workspace's directory `dir` with its `node_modules` installed by
/// `npm ci` from its lock file, unless the file `stamp` there (written
/// after an install) matches the lock file; one install at a time.
fn npm_installed(dir: &str, stamp: &str) -> PathBuf {
    let dir = workspace_root().join(dir);
    let lock = std::fs::read(dir.join("package-lock.json"))
        .unwrap_or_else(|e| panic!("read {}/package-lock.json: {e}", dir.display()));
    let stamp = dir.join("node_modules").join(stamp);
    let installed = || std::fs::read(&stamp).is_ok_and(|have| have == lock);
    if !installed() {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace_root().join("target"));
        std::fs::create_dir_all(&target).unwrap();
        let guard = std::fs::File::create(target.join("interop-install.lock")).unwrap();
        guard.lock().expect("lock the install lock file");
        if !installed() {
            let output = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&dir)
                .stdin(Stdio::null())
                .output()
                .expect("npm runs (install Node.js >= 20 with npm)");
            assert!(
                output.status.success(),
                "npm ci in {} failed:\n{}",
                dir.display(),
                String::from_utf8_lossy(&output.stderr)
            );
            std::fs::write(&stamp, &lock).unwrap();
        }
    }
    dir
}
