//! Clean release builds of each server, timed, the binaries' sizes, and the
//! source state a report names.

use super::procfs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// A timed clean build, and how busy the machine was meanwhile.
#[derive(Debug)]
pub(crate) struct Build {
    pub(crate) seconds: f64,
    /// Seconds waited for other builds to finish before starting.
    pub(crate) waited: f64,
    /// Most `rustc` processes of other builds seen at once during the build.
    pub(crate) foreign_peak: usize,
}

/// Times `cargo build --release <args>` into the empty directory `dir`.
/// Waits (up to 5 minutes) until no other `rustc` runs before starting, and
/// samples other builds while it runs.
pub(crate) fn clean_build(
    root: &Path,
    cargo: &std::ffi::OsStr,
    args: &[&str],
    dir: &Path,
) -> io::Result<Build> {
    let _ = std::fs::remove_dir_all(dir);
    let wait_start = Instant::now();
    while procfs::foreign_compilers(0) > 0
        && wait_start.elapsed() < std::time::Duration::from_secs(300)
    {
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    let waited = wait_start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut child = Command::new(cargo)
        .args(["build", "--release", "--quiet"])
        .args(args)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", dir)
        .spawn()?;
    let mut foreign_peak = 0;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        foreign_peak = foreign_peak.max(procfs::foreign_compilers(child.id()));
        std::thread::sleep(std::time::Duration::from_millis(250));
    };
    let seconds = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(dir);
    if !status.success() {
        return Err(io::Error::other(format!(
            "clean build `{}` failed",
            args.join(" ")
        )));
    }
    Ok(Build {
        seconds,
        waited,
        foreign_peak,
    })
}

/// The binary's size, and its size after `strip --strip-all` (if `strip` runs).
pub(crate) fn binary_sizes(program: &Path, scratch: &Path) -> io::Result<(u64, Option<u64>)> {
    let size = std::fs::metadata(program)?.len();
    let copy: PathBuf = scratch.join("stripped");
    let stripped = Command::new("strip")
        .arg("--strip-all")
        .arg("-o")
        .arg(&copy)
        .arg(program)
        .status()
        .ok()
        .filter(|s| s.success())
        .and_then(|_| std::fs::metadata(&copy).ok())
        .map(|m| m.len());
    let _ = std::fs::remove_file(&copy);
    Ok((size, stripped))
}

/// The commit the servers were built from, and the uncommitted changes to
/// the runtime, macros and examples then (file names and a fingerprint of the
/// diff), with the compiler version.
pub(crate) fn source_state(root: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    const PATHS: [&str; 5] = [
        "mcp-runtime",
        "mcp-macros",
        "examples",
        "Cargo.toml",
        "Cargo.lock",
    ];
    let commit = git(&["rev-parse", "--short", "HEAD"])
        .map_or_else(|| "unknown".to_owned(), |c| c.trim().to_owned());
    let mut args = vec!["diff", "HEAD", "--name-only", "--"];
    args.extend(PATHS);
    let files: Vec<String> = git(&args)
        .unwrap_or_default()
        .lines()
        .map(|f| format!("`{f}`"))
        .collect();
    let mut args = vec!["diff", "HEAD", "--"];
    args.extend(PATHS);
    let diff = git(&args).unwrap_or_default();
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    if files.is_empty() {
        format!(
            "commit {commit} (no uncommitted changes to the runtime, macros or examples), {rustc}"
        )
    } else {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        diff.hash(&mut hasher);
        format!(
            "commit {commit} plus uncommitted changes (diff fingerprint {:016x}) to {}, {rustc}",
            hasher.finish(),
            files.join(", ")
        )
    }
}
