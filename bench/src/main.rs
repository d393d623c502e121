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

mod http;
mod procfs;
mod replicas;
mod report;
mod runs;
mod session;

use report::{Metric, Samples, push};
use serde_json::Value;
use session::{Session, Target};
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Command-line options.
#[derive(Debug)]
struct Options {
    reps: usize,
    calls: usize,
    serial_calls: usize,
    tools: usize,
    list_requests: usize,
    startups: usize,
    build: bool,
    build_reps: usize,
    write: bool,
    /// A prebuilt server to measure instead of the workspace's `everything`.
    everything: Option<PathBuf>,
    /// Call sessions with the driver on CPU 0 and the server on CPU 1.
    pin: bool,
    /// Run the stdio part.
    stdio: bool,
    /// Run the HTTP part.
    http: bool,
    /// Run "3 replicas behind nginx".
    replicas: bool,
    /// Measured `add` calls per HTTP run.
    http_calls: usize,
    /// HTTP keep-alive connections.
    http_connections: usize,
}

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

fn parse_options() -> io::Result<Options> {
    let mut options = Options {
        reps: 7,
        calls: 50_000,
        serial_calls: 10_000,
        tools: 1000,
        list_requests: 10,
        startups: 10,
        build: true,
        build_reps: 1,
        write: false,
        everything: None,
        pin: false,
        stdio: true,
        http: true,
        replicas: true,
        http_calls: 50_000,
        http_connections: 64,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> io::Result<usize> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| io::Error::other(format!("{name} needs a number")))
        };
        match arg.as_str() {
            "--reps" => options.reps = value("--reps")?.max(1),
            "--calls" => options.calls = value("--calls")?.max(64),
            "--serial-calls" => options.serial_calls = value("--serial-calls")?.max(1),
            "--tools" => options.tools = value("--tools")?,
            "--list-requests" => options.list_requests = value("--list-requests")?.max(1),
            "--startups" => options.startups = value("--startups")?.max(1),
            "--no-build" => options.build = false,
            "--build-reps" => options.build_reps = value("--build-reps")?.max(1),
            "--write" => options.write = true,
            "--http-only" => {
                options.stdio = false;
                options.replicas = false;
            }
            "--no-http" => options.http = false,
            "--replicas-only" => {
                options.stdio = false;
                options.http = false;
            }
            "--no-replicas" => options.replicas = false,
            "--no-stdio" => options.stdio = false,
            "--pin" => options.pin = true,
            "--http-calls" => options.http_calls = value("--http-calls")?.max(1),
            "--http-connections" => {
                options.http_connections = value("--http-connections")?.max(1);
            }
            "--everything" => {
                let path = args
                    .next()
                    .ok_or_else(|| io::Error::other("--everything needs a path"))?;
                options.everything = Some(PathBuf::from(path));
            }
            "-h" | "--help" => {
                println!(
                    "usage: bench [--reps N] [--calls N] [--serial-calls N] [--tools N] [--list-requests N] [--startups N] [--no-build] [--build-reps N] [--write] [--everything PATH] [--http-only | --no-http] [--http-calls N] [--http-connections N] [--replicas-only | --no-replicas] [--no-stdio] [--pin]"
                );
                std::process::exit(0);
            }
            other => {
                return Err(io::Error::other(format!(
                    "unknown argument {other}; try --help"
                )));
            }
        }
    }
    if !options.stdio && !options.http && !options.replicas {
        return Err(io::Error::other(
            "these --*-only and --no-* options leave nothing to run",
        ));
    }
    Ok(options)
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

/// Everything measured, as the markdown report.
fn measure(
    options: &Options,
    root: &Path,
    cargo: &std::ffi::OsStr,
    release: &Path,
    scratch: &Path,
    source: &str,
) -> io::Result<String> {
    let everything = Target {
        label: "everything",
        program: options
            .everything
            .clone()
            .unwrap_or_else(|| release.join("examples").join("everything")),
        env: vec![("RATE_LIMIT".to_owned(), "off".to_owned())],
        stderr_log: scratch.join("everything.stderr"),
    };
    // The ceiling lists exactly the tools everything lists (taken from a live
    // everything), so both `tools/list` responses carry the same definitions.
    let base_tools = {
        let mut session = Session::spawn(&everything, &[])?;
        session.initialize(true)?;
        let mut line = Vec::new();
        runs::list_tools(&mut session, 1, &mut line)?;
        let tools = runs::tools_of(&session, &line, 1)?;
        session.close()?;
        tools
    };
    let tools_file = scratch.join("tools.json");
    std::fs::write(
        &tools_file,
        serde_json::to_vec(&base_tools).map_err(io::Error::other)?,
    )?;
    let ceiling = Target {
        label: "ceiling",
        program: release.join("ceiling"),
        env: vec![
            ("RATE_LIMIT".to_owned(), "off".to_owned()),
            (
                "CEILING_TOOLS_FILE".to_owned(),
                tools_file.display().to_string(),
            ),
        ],
        stderr_log: scratch.join("ceiling.stderr"),
    };

    let load_before = procfs::load_average();
    let mut samples = [Samples::new(), Samples::new()];
    let mut lists: [Option<Vec<Value>>; 2] = [None, None];
    let targets = [&everything, &ceiling];
    // One unmeasured round first: page cache, CPU frequency, lazy kernel state.
    eprintln!("warm-up…");
    for target in targets {
        let mut discard = Samples::new();
        startups(target, options, &mut discard)?;
        call_session(target, options, &mut discard, true)?;
        list_session(target, options, &mut discard)?;
    }
    for rep in 0..options.reps {
        let order: [usize; 2] = if rep % 2 == 0 { [0, 1] } else { [1, 0] };
        eprintln!("repetition {}/{}…", rep + 1, options.reps);
        for &i in &order {
            startups(targets[i], options, &mut samples[i])?;
        }
        for &i in &order {
            call_session(targets[i], options, &mut samples[i], false)?;
        }
        for &i in &order {
            let tools = list_session(targets[i], options, &mut samples[i])?;
            if lists[i].is_none() {
                lists[i] = Some(tools);
            }
        }
    }
    let load_after = procfs::load_average();
    let lists_equal = lists[0] == lists[1];
    let expected_tools = base_tools.len() + options.tools;
    if lists[0].as_ref().map(Vec::len) != Some(expected_tools) {
        return Err(io::Error::other(format!(
            "everything did not list {expected_tools} tools with TOOLS={}",
            options.tools
        )));
    }

    let mut builds = String::new();
    let mut build_source = None;
    if options.build && options.everything.is_none() {
        // The clean builds compile the tree as it is now; say so if it moved.
        let now = source_state(root);
        if now != source {
            build_source = Some(now);
        }
        for (i, (target, args)) in [
            (
                &everything,
                &[
                    "-p",
                    "examples",
                    "--example",
                    "everything",
                    "--no-default-features",
                ][..],
            ),
            (&ceiling, &["-p", "bench", "--bin", "ceiling"][..]),
        ]
        .into_iter()
        .enumerate()
        {
            for _ in 0..options.build_reps {
                eprintln!("clean release build of {}…", target.label);
                let build = clean_build(root, cargo, args, &scratch.join("clean-target"))?;
                push(&mut samples[i], Metric::BuildTime, build.seconds);
                let _ = writeln!(
                    builds,
                    "`cargo build --release {}` ({:.0} s; started after waiting {:.0} s for other builds to finish; \
                 at most {} other `rustc` processes ran alongside)",
                    args.join(" "),
                    build.seconds,
                    build.waited,
                    build.foreign_peak
                );
            }
        }
    }
    for (i, target) in targets.into_iter().enumerate() {
        let (size, stripped) = binary_sizes(&target.program, scratch)?;
        push(&mut samples[i], Metric::BinarySize, mib(size));
        if let Some(stripped) = stripped {
            push(&mut samples[i], Metric::StrippedSize, mib(stripped));
        }
    }

    let (table, rows) = report::table(&samples[0], &samples[1], options.tools);
    let mut text = String::new();
    let _ = writeln!(text, "{BEGIN}");
    let _ = writeln!(
        text,
        "<!-- Generated by `cargo run --release -p bench`; edit outside the markers. -->\n"
    );
    let _ = writeln!(text, "Command:\n\n```sh\n{}\n```\n", command_line(options));
    let _ = writeln!(
        text,
        "- Machine: {}; 1-minute load average {load_before:.2} before the servers were measured, {load_after:.2} after.",
        procfs::machine()
    );
    let _ = writeln!(text, "- Source (when the servers were built): {source}.");
    let _ = writeln!(
        text,
        "- {} interleaved repetitions (everything, ceiling, then ceiling, everything, …) after one warm-up round; \
         each cell is the median. Startup: the median of {} spawns per repetition. Call runs: {} `add` calls with 64 in flight, then {} with 1 in flight, \
         in one server process (after 2,000 unmeasured calls). `tools/list`: TOOLS={} ({} tools), \
         the first request, then the median of {} more; {}.{}",
        options.reps,
        options.startups,
        options.calls,
        options.serial_calls,
        options.tools,
        expected_tools,
        options.list_requests,
        if lists_equal {
            "both servers' `tools` arrays are identical"
        } else {
            "**the two servers' `tools` arrays differ**"
        },
        if options.pin {
            " Call sessions pinned (`--pin`): the driver on CPU 0, the server on CPU 1."
        } else {
            ""
        }
    );
    let _ = writeln!(
        text,
        "- Every response was checked: each id answered exactly once, every `add` result carries the right sum \
         (byte check on each, full parse of every 16th)."
    );
    if options.build && options.everything.is_none() {
        let _ = writeln!(
            text,
            "- Clean builds, each in a fresh `CARGO_TARGET_DIR` (dependencies already downloaded): {}.",
            builds.trim_end().replace('\n', "; ")
        );
        if let Some(now) = &build_source {
            let _ = writeln!(
                text,
                "- **The working tree changed while the run measured**: the clean builds compiled {now}."
            );
        }
    }
    let _ = writeln!(text, "\n{table}");
    let met: Vec<String> = rows
        .iter()
        .filter(|r| r.met == Some(false))
        .map(|r| r.metric.label(options.tools))
        .collect();
    let _ = writeln!(
        text,
        "Targets not met: {}.\n",
        if met.is_empty() {
            "none".to_owned()
        } else {
            met.join("; ")
        }
    );
    let _ = writeln!(
        text,
        "<details><summary>Per-repetition values</summary>\n\n{}\n</details>",
        report::spread(&samples[0], &samples[1], options.tools)
    );
    let _ = writeln!(text, "{END}");
    Ok(text)
}

/// `--startups` spawns, each timed from spawning to the `initialize` response.
fn startups(target: &Target, options: &Options, samples: &mut Samples) -> io::Result<()> {
    let mut times = Vec::with_capacity(options.startups);
    for _ in 0..options.startups {
        let start = Instant::now();
        let mut session = Session::spawn(target, &[])?;
        session.initialize(false)?;
        times.push(ms(start.elapsed()));
        session.close()?;
    }
    push(samples, Metric::Startup, report::median(&times));
    Ok(())
}

/// Sets the CPUs thread `pid` may run on (`taskset -p -c`); for a process
/// id, its main thread, whose later threads inherit the setting.
fn set_affinity(pid: u32, cpus: &str) -> io::Result<()> {
    let status = Command::new("taskset")
        .args(["-p", "-c", cpus, &pid.to_string()])
        .stdout(std::process::Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "taskset -p -c {cpus} {pid} failed"
        )))
    }
}

/// One call session: 64-in-flight and 1-in-flight `add` runs, RSS.
fn call_session(
    target: &Target,
    options: &Options,
    samples: &mut Samples,
    warm_up: bool,
) -> io::Result<()> {
    let mut session = Session::spawn(target, &[])?;
    if options.pin {
        // Threads the driver starts from here on inherit CPU 0.
        set_affinity(std::process::id(), "0")?;
        set_affinity(session.pid, "1")?;
    }
    session.initialize(true)?;
    runs::pipelined(&mut session, 2_000, 64, 1_000_000)?;
    let (calls, serial_calls) = if warm_up {
        (
            (options.calls / 10).max(64),
            (options.serial_calls / 10).max(1),
        )
    } else {
        (options.calls, options.serial_calls)
    };
    let burst = runs::pipelined(&mut session, calls, 64, 10_000_000)?;
    let serial = runs::serial(&mut session, serial_calls, 20_000_000)?;
    let rss = procfs::status_kib(session.pid, "VmHWM")?;
    session.close()?;
    if options.pin {
        let cpus = std::thread::available_parallelism().map_or(2, usize::from);
        set_affinity(std::process::id(), &format!("0-{}", cpus - 1))?;
    }
    let tick_us = 1e6 / procfs::ticks_per_second() as f64;
    push(samples, Metric::Throughput64, burst.throughput());
    push(samples, Metric::P50At64, burst.latency_us(0.50));
    push(samples, Metric::P99At64, burst.latency_us(0.99));
    push(samples, Metric::CpuAt64, burst.cpu_per_call_us());
    push(
        samples,
        Metric::CpuTicksAt64,
        burst.cpu_ticks as f64 * tick_us / calls as f64,
    );
    push(samples, Metric::Throughput1, serial.throughput());
    push(samples, Metric::P50At1, serial.latency_us(0.50));
    push(samples, Metric::P99At1, serial.latency_us(0.99));
    push(samples, Metric::CpuAt1, serial.cpu_per_call_us());
    push(
        samples,
        Metric::CpuTicksAt1,
        serial.cpu_ticks as f64 * tick_us / serial_calls as f64,
    );
    push(samples, Metric::PeakRss, rss as f64 / 1024.0);
    Ok(())
}

/// One list session with `TOOLS`: startup, cold and warm `tools/list`, RSS.
/// Returns the listed tools.
fn list_session(
    target: &Target,
    options: &Options,
    samples: &mut Samples,
) -> io::Result<Vec<Value>> {
    let start = Instant::now();
    let mut session = Session::spawn(target, &[("TOOLS", options.tools.to_string())])?;
    session.initialize(true)?;
    let startup = start.elapsed();
    let mut line = Vec::with_capacity(1 << 20);
    let cold = runs::list_tools(&mut session, 1, &mut line)?;
    let tools = runs::tools_of(&session, &line, 1)?;
    let bytes = line.len();
    let mut warm = Vec::with_capacity(options.list_requests);
    for i in 0..options.list_requests {
        let id = 2 + i as u64;
        warm.push(ms(runs::list_tools(&mut session, id, &mut line)?));
        if line.len() != bytes
            || !line.starts_with(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},").as_bytes())
        {
            // Not the same list again: parse to say what it is.
            let again = runs::tools_of(&session, &line, id)?;
            if again != tools {
                return Err(session.bad("a later tools/list differs from the first".to_owned()));
            }
        }
    }
    let rss = procfs::status_kib(session.pid, "VmHWM")?;
    session.close()?;
    push(samples, Metric::StartupList, ms(startup));
    push(samples, Metric::ListCold, ms(cold));
    push(samples, Metric::ListWarm, report::median(&warm));
    push(samples, Metric::ListBytes, bytes as f64 / 1024.0);
    push(samples, Metric::PeakRssList, rss as f64 / 1024.0);
    Ok(tools)
}

/// A timed clean build, and how busy the machine was meanwhile.
#[derive(Debug)]
struct Build {
    seconds: f64,
    /// Seconds waited for other builds to finish before starting.
    waited: f64,
    /// Most `rustc` processes of other builds seen at once during the build.
    foreign_peak: usize,
}

/// Times `cargo build --release <args>` into the empty directory `dir`.
/// Waits (up to 5 minutes) until no other `rustc` runs before starting, and
/// samples other builds while it runs.
fn clean_build(
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
fn binary_sizes(program: &Path, scratch: &Path) -> io::Result<(u64, Option<u64>)> {
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

/// The command that reproduces this run.
fn command_line(options: &Options) -> String {
    let mut command = "cargo run --release -p bench --".to_owned();
    if options.reps != 7 {
        let _ = write!(command, " --reps {}", options.reps);
    }
    if options.calls != 50_000 {
        let _ = write!(command, " --calls {}", options.calls);
    }
    if options.serial_calls != 10_000 {
        let _ = write!(command, " --serial-calls {}", options.serial_calls);
    }
    if options.tools != 1000 {
        let _ = write!(command, " --tools {}", options.tools);
    }
    if options.startups != 10 {
        let _ = write!(command, " --startups {}", options.startups);
    }
    if options.list_requests != 10 {
        let _ = write!(command, " --list-requests {}", options.list_requests);
    }
    if !options.build {
        command.push_str(" --no-build");
    }
    if options.build_reps != 1 {
        let _ = write!(command, " --build-reps {}", options.build_reps);
    }
    if let Some(path) = &options.everything {
        let _ = write!(command, " --everything {}", path.display());
    }
    match (options.stdio, options.http, options.replicas) {
        (false, true, false) => command.push_str(" --http-only"),
        (false, false, true) => command.push_str(" --replicas-only"),
        (stdio, http, replicas) => {
            if !stdio {
                command.push_str(" --no-stdio");
            }
            if !http {
                command.push_str(" --no-http");
            }
            if !replicas {
                command.push_str(" --no-replicas");
            }
        }
    }
    if options.http_calls != 50_000 {
        let _ = write!(command, " --http-calls {}", options.http_calls);
    }
    if options.http_connections != 64 {
        let _ = write!(command, " --http-connections {}", options.http_connections);
    }
    command.push_str(" --write");
    command
}

/// The commit the servers were built from, and the uncommitted changes to
/// the runtime, macros and examples then (file names and a fingerprint of the
/// diff), with the compiler version.
fn source_state(root: &Path) -> String {
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
