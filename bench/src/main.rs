//! Benchmarks the `everything` example server against the ceiling, a minimal
//! hand-written `serde_json` stdio loop (`src/bin/ceiling.rs`), in one run.
//!
//! ```text
//! cargo run --release -p bench -- [--reps N] [--calls N] [--serial-calls N]
//!     [--tools N] [--list-requests N] [--startups N] [--no-build]
//!     [--build-reps N] [--write] [--everything PATH]
//!     [--http-only | --no-http] [--http-calls N] [--http-connections N]
//!     [--replicas-only | --no-replicas] [--no-stdio] [--pin]
//! ```
//!
//! `--pin` runs each call session with the driver's threads on CPU 0 and the
//! server on CPU 1 (`taskset`): unpinned, the 64-in-flight rows on a
//! 2-core machine switch between two scheduling regimes from one repetition
//! to the next (about 500,000 against 340,000 calls/s for the same binary).
//!
//! It builds both servers (release), then runs `--reps` (7) interleaved
//! repetitions (everything, ceiling, then ceiling, everything, …) of:
//! - `--startups` (10) spawns: spawn → `initialize` response, then stdin
//!   closes; the repetition's value is their median;
//! - a call session: `--calls` (50,000) `add` calls with 64 in flight, then
//!   `--serial-calls` (10,000) with 1 in flight (throughput, latency, server
//!   CPU per call), and the peak RSS before stdin closes;
//! - a list session with `TOOLS=--tools` (1,000): the first `tools/list`
//!   (cold), then `--list-requests` (10) more (warm), peak RSS.
//!
//! Then, unless `--no-build`, it times `--build-reps` (1) clean release
//! builds of each server in a fresh target directory (the row is their
//! median) and measures the binaries. It prints a markdown report; `--write`
//! also puts it into `BENCHMARKS.md` at the workspace root, between the
//! `<!-- bench:begin -->` and `<!-- bench:end -->` markers (text outside them
//! is kept). `--everything PATH` measures a prebuilt binary in place of the
//! workspace's `everything` (not built, and its clean build is not timed).
//!
//! Then the HTTP part (`http.rs`; `--http-only` runs only it, `--no-http`
//! skips it): `--reps` interleaved runs of `--http-calls` (50,000) `add`
//! calls over `--http-connections` (64) HTTP/1.1 keep-alive connections
//! against `everything --http ADDR`, a hand-written hyper server (the HTTP
//! ceiling) and rmcp's Streamable HTTP server, all built in the same run.
//! When `everything` does not serve HTTP the report says so and shows the
//! other two. Its report goes between `<!-- bench:http:begin -->` and
//! `<!-- bench:http:end -->` (appended to `BENCHMARKS.md` when missing).
//!
//! Then "3 replicas behind nginx" (`replicas.rs`; `--replicas-only` runs
//! only it, `--no-replicas` skips it): the same `add` load against one
//! `everything --http` directly, one replica behind nginx and three behind
//! nginx, between `<!-- bench:replicas:begin -->` and
//! `<!-- bench:replicas:end -->`.

mod clean_build;
mod http;
mod measure;
mod options;
mod procfs;
mod replicas;
mod report;
mod runs;
mod session;

use clean_build::source_state;
use measure::measure;
use options::{command_line, parse_options};
use std::io;
use std::path::Path;
use std::process::Command;

/// Marks the generated part of `BENCHMARKS.md`.
const BEGIN: &str = "<!-- bench:begin -->";
/// Ends the generated part of `BENCHMARKS.md`.
const END: &str = "<!-- bench:end -->";

fn main() {
    if let Err(err) = run() {
        eprintln!("bench: {err}");
        std::process::exit(1);
    }
}

fn run() -> io::Result<()> {
    let options = parse_options()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or_else(|| io::Error::other("no workspace root"))?
        .to_path_buf();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // This binary lives in <target>/release; so do the servers.
    let exe = std::env::current_exe()?;
    let release = exe
        .parent()
        .ok_or_else(|| io::Error::other("no target dir"))?
        .to_path_buf();

    eprintln!("building the servers (release)…");
    // The stdio rows measure a stdio-only server: `everything` with the
    // examples crate's default features, which are none (no `http`);
    // `--no-default-features` says so explicitly.
    let stdio_builds: &[&[&str]] = &[
        &[
            "build",
            "--release",
            "-p",
            "examples",
            "--example",
            "everything",
            "--no-default-features",
        ][..],
        &["build", "--release", "-p", "bench", "--bin", "ceiling"][..],
    ];
    // `everything` is needed by the HTTP part too (its stdio answer is the
    // reference for the ceiling's bytes).
    let stdio_builds = if options.stdio {
        stdio_builds
    } else {
        &stdio_builds[..1]
    };
    for args in stdio_builds {
        if options.everything.is_some() && args.contains(&"everything") {
            continue;
        }
        let status = Command::new(&cargo)
            .args(*args)
            .current_dir(&root)
            .status()?;
        if !status.success() {
            return Err(io::Error::other(format!("cargo {} failed", args.join(" "))));
        }
    }
    if options.http {
        let target = release
            .parent()
            .ok_or_else(|| io::Error::other("no target dir"))?;
        http::build(&cargo, &root, target)?;
    } else if options.replicas {
        let status = Command::new(&cargo)
            .args([
                "build",
                "--release",
                "-p",
                "bench-http",
                "--bin",
                "http-load",
            ])
            .current_dir(&root)
            .status()?;
        if !status.success() {
            return Err(io::Error::other("cargo build of http-load failed"));
        }
    }
    // `everything` with the examples crate's `http` feature (off by
    // default, so asked for here), in a target dir of its own so that it
    // does not replace the stdio-only build measured above.
    let http_everything = match &options.everything {
        Some(path) => path.clone(),
        None if options.http || options.replicas => {
            let dir = release
                .parent()
                .ok_or_else(|| io::Error::other("no target dir"))?
                .join("bench-http-everything");
            let status = Command::new(&cargo)
                .args([
                    "build",
                    "--release",
                    "-p",
                    "examples",
                    "--example",
                    "everything",
                    "--features",
                    "http",
                ])
                .arg("--target-dir")
                .arg(&dir)
                .current_dir(&root)
                .status()?;
            if !status.success() {
                return Err(io::Error::other("cargo build of everything (http) failed"));
            }
            dir.join("release").join("examples").join("everything")
        }
        None => release.join("examples").join("everything"),
    };
    let source = source_state(&root);
    let scratch = std::env::temp_dir().join(format!("mcp-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let result = (|| -> io::Result<(Option<String>, Option<String>, Option<String>)> {
        let stdio = if options.stdio {
            Some(measure(
                &options, &root, &cargo, &release, &scratch, &source,
            )?)
        } else {
            None
        };
        let http_options = http::Options {
            reps: options.reps,
            calls: options.http_calls,
            warm_up: 2_000,
            connections: options.http_connections,
        };
        let http = if options.http {
            let programs = http::Programs::in_release(&release, Some(http_everything.clone()));
            Some(http::measure(
                &http_options,
                &root,
                &programs,
                &scratch,
                &command_line(&options),
            )?)
        } else {
            None
        };
        let replicas = if options.replicas {
            Some(replicas::measure(
                &http_options,
                &http_everything,
                &release.join("http-load"),
                &scratch,
                &command_line(&options),
            )?)
        } else {
            None
        };
        Ok((stdio, http, replicas))
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    let (stdio, http, replicas) = result?;
    let path = root.join("BENCHMARKS.md");
    for (text, begin, end) in [
        (stdio, BEGIN, END),
        (http, http::BEGIN, http::END),
        (replicas, replicas::BEGIN, replicas::END),
    ] {
        let Some(text) = text else { continue };
        print!("{text}");
        if options.write {
            write_report(&path, &text, begin, end)?;
        }
    }
    if options.write {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Replaces the part of `path` between the markers `begin` and `end` with
/// `generated` (which carries them); appends it when they are missing, and
/// creates the file when it is.
fn write_report(path: &Path, generated: &str, begin: &str, end: &str) -> io::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let new = match (old.find(begin), old.find(end)) {
        (Some(b), Some(e)) if b < e => {
            format!(
                "{}{}{}",
                &old[..b],
                generated.trim_end(),
                &old[e + end.len()..]
            )
        }
        _ if old.is_empty() => format!("# Benchmarks\n\n{generated}"),
        _ => format!("{}\n\n{generated}", old.trim_end()),
    };
    std::fs::write(path, new)
}

fn ms(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
