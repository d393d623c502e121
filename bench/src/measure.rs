//! What one run measures, as its markdown report: start-ups, the call session
//! and the list session of each target, interleaved repetitions, and the clean
//! builds.

use super::clean_build::{binary_sizes, clean_build, source_state};
use super::options::{Options, command_line};
use super::report::{Metric, Samples, push};
use super::session::{Session, Target};
use super::{BEGIN, END, mib, ms, procfs, report, runs};
use serde_json::Value;
use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Everything measured, as the markdown report.
pub(crate) fn measure(
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
pub(crate) fn startups(
    target: &Target,
    options: &Options,
    samples: &mut Samples,
) -> io::Result<()> {
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
pub(crate) fn set_affinity(pid: u32, cpus: &str) -> io::Result<()> {
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
pub(crate) fn call_session(
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
pub(crate) fn list_session(
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
