//! The command line: the options and their parsing, and the line that
//! reproduces a run.

use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;

/// Command-line options.
#[derive(Debug)]
pub(crate) struct Options {
    pub(crate) reps: usize,
    pub(crate) calls: usize,
    pub(crate) serial_calls: usize,
    pub(crate) tools: usize,
    pub(crate) list_requests: usize,
    pub(crate) startups: usize,
    pub(crate) build: bool,
    pub(crate) build_reps: usize,
    pub(crate) write: bool,
    /// A prebuilt server to measure instead of the workspace's `everything`.
    pub(crate) everything: Option<PathBuf>,
    /// Call sessions with the driver on CPU 0 and the server on CPU 1.
    pub(crate) pin: bool,
    /// Run the stdio part.
    pub(crate) stdio: bool,
    /// Run the HTTP part.
    pub(crate) http: bool,
    /// Run "3 replicas behind nginx".
    pub(crate) replicas: bool,
    /// Measured `add` calls per HTTP run.
    pub(crate) http_calls: usize,
    /// HTTP keep-alive connections.
    pub(crate) http_connections: usize,
}

pub(crate) fn parse_options() -> io::Result<Options> {
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

/// The command that reproduces this run.
pub(crate) fn command_line(options: &Options) -> String {
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
