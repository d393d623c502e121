//! "3 replicas behind nginx": the HTTP part's `add` load (2026-07-28, JSON
//! responses, the same load generator) against one `everything --http`
//! process directly, one replica behind nginx, and three replicas behind
//! nginx, in the same run, so the table shows what the proxy costs and what
//! the replicas give back.
//!
//! nginx runs with a config written here (into the run's scratch directory):
//! round-robin upstream of the replicas, HTTP/1.1 with keep-alive to them,
//! `proxy_buffering off` (as for SSE), the client's `Host` passed on (the
//! replicas check it on a loopback bind), no access log. Each measured run
//! starts fresh replicas and a fresh nginx on free loopback ports, and stops
//! them by PID (SIGTERM) afterwards. Server CPU per call counts every
//! server process of the setup: the replicas, and nginx's master and workers.

use crate::http::{self, Server, free_port, post_once};
use crate::procfs;
use crate::report::{median, number};
use std::fmt::Write as _;
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Marks the generated part of `BENCHMARKS.md`.
pub(crate) const BEGIN: &str = "<!-- bench:replicas:begin -->";
/// Ends the generated part of `BENCHMARKS.md`.
pub(crate) const END: &str = "<!-- bench:replicas:end -->";

/// nginx worker processes: `auto` is one per core, as a deployment would run it.
const NGINX_WORKERS: &str = "auto";

/// One way of serving the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setup {
    /// The load generator talks to one `everything` directly.
    Direct,
    /// Through nginx to this many replicas.
    Nginx(usize),
}

impl Setup {
    const ALL: [Setup; 3] = [Setup::Direct, Setup::Nginx(1), Setup::Nginx(3)];

    fn label(self) -> String {
        match self {
            Setup::Direct => "1 process, direct".to_owned(),
            Setup::Nginx(1) => "nginx → 1 replica".to_owned(),
            Setup::Nginx(n) => format!("nginx → {n} replicas"),
        }
    }

    fn replicas(self) -> usize {
        match self {
            Setup::Direct => 1,
            Setup::Nginx(n) => n,
        }
    }
}

/// One run's figures.
#[derive(Debug, Default, Clone)]
struct Samples {
    throughput: Vec<f64>,
    p50: Vec<f64>,
    p99: Vec<f64>,
    cpu: Vec<f64>,
}

/// A running nginx, stopped by PID.
struct Nginx {
    child: Child,
    addr: SocketAddr,
}

impl Nginx {
    /// nginx on a free loopback port in front of `upstreams`.
    fn start(program: &Path, dir: &Path, upstreams: &[SocketAddr]) -> io::Result<Nginx> {
        std::fs::create_dir_all(dir.join("logs"))?;
        let addr = free_port()?;
        let servers: String = upstreams
            .iter()
            .map(|a| format!("        server {a};\n"))
            .collect();
        let config = format!(
            "daemon off;\nmaster_process on;\nworker_processes {NGINX_WORKERS};\npid {dir}/nginx.pid;\n\
             error_log {dir}/logs/error.log warn;\nevents {{ worker_connections 4096; }}\n\
             http {{\n    access_log off;\n    client_body_temp_path {dir}/body;\n    proxy_temp_path {dir}/proxy;\n\
             fastcgi_temp_path {dir}/fastcgi;\n    uwsgi_temp_path {dir}/uwsgi;\n    scgi_temp_path {dir}/scgi;\n\
             upstream mcp {{\n{servers}        keepalive 128;\n    }}\n\
             server {{\n        listen {addr};\n        keepalive_requests 1000000;\n\
             location /mcp {{\n            proxy_pass http://mcp;\n            proxy_http_version 1.1;\n\
             proxy_set_header Connection \"\";\n            proxy_set_header Host $http_host;\n\
             proxy_buffering off;\n        }}\n    }}\n}}\n",
            dir = dir.display(),
        );
        let config_path = dir.join("nginx.conf");
        std::fs::write(&config_path, config)?;
        let mut child = Command::new(program)
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("spawning nginx: {e}")))?;
        let deadline = Instant::now() + Duration::from_secs(5);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_err() {
            if let Some(status) = child.try_wait()? {
                return Err(io::Error::other(format!(
                    "nginx exited ({status}) without listening; see {}/logs/error.log",
                    dir.display()
                )));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                return Err(io::Error::other("nginx did not listen within 5 s"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(Nginx { child, addr })
    }

    /// The master and its workers.
    fn pids(&self) -> Vec<u32> {
        let master = self.child.id();
        let mut pids = vec![master];
        pids.extend(children(master));
        pids
    }

    /// SIGTERM (nginx's fast shutdown), then SIGKILL after 10 s.
    fn stop(&mut self) -> io::Result<()> {
        crate::http::terminate(&mut self.child)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.stop();
        }
    }
}

/// The processes whose parent is `parent` (nginx's workers).
fn children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let after = stat.rsplit_once(')')?.1.to_owned();
                    after.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// CPU time of all `pids`, in ns.
fn cpu_ns(pids: &[u32]) -> io::Result<u64> {
    pids.iter().map(|&pid| procfs::cpu_ns(pid)).sum()
}

/// The path of `nginx`, or why there is none.
fn nginx_program() -> io::Result<PathBuf> {
    let candidates = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain([PathBuf::from("/usr/sbin")]);
    for dir in candidates {
        let program = dir.join("nginx");
        if program.is_file() {
            return Ok(program);
        }
    }
    Err(io::Error::other(
        "nginx is not installed (Debian: apt-get install nginx-light or nginx)",
    ))
}

/// The replicas part, as the markdown text between [`BEGIN`] and [`END`].
pub(crate) fn measure(
    options: &http::Options,
    everything: &Path,
    load: &Path,
    scratch: &Path,
    command: &str,
) -> io::Result<String> {
    let nginx = nginx_program()?;
    let nginx_version = Command::new(&nginx)
        .arg("-v")
        .output()
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stderr).trim().to_owned())
        .unwrap_or_default();
    let mut samples: Vec<Samples> = Setup::ALL.iter().map(|_| Samples::default()).collect();
    let load_before = procfs::load_average();
    eprintln!("replicas warm-up…");
    let warm = http::Options {
        calls: (options.calls / 10).max(1),
        ..options.clone()
    };
    for setup in Setup::ALL {
        run_once(
            setup,
            &warm,
            everything,
            load,
            &nginx,
            scratch,
            &mut Samples::default(),
        )?;
    }
    for rep in 0..options.reps {
        eprintln!("replicas repetition {}/{}…", rep + 1, options.reps);
        for k in 0..Setup::ALL.len() {
            let i = (k + rep) % Setup::ALL.len();
            run_once(
                Setup::ALL[i],
                options,
                everything,
                load,
                &nginx,
                scratch,
                &mut samples[i],
            )?;
        }
    }
    let load_after = procfs::load_average();

    let mut text = String::new();
    let _ = writeln!(text, "{BEGIN}");
    let _ = writeln!(
        text,
        "<!-- Generated by `cargo run --release -p bench`; edit outside the markers. -->\n"
    );
    let _ = writeln!(
        text,
        "### 3 replicas behind nginx\n\nCommand:\n\n```sh\n{command}\n```\n"
    );
    let _ = writeln!(
        text,
        "- Machine: {}; 1-minute load average {load_before:.2} before, {load_after:.2} after. \
         **Everything shares the same cores**: the load generator (one tokio thread), nginx's workers and \
         every replica (one tokio thread each), so three replicas cannot use three cores' worth of CPU here; \
         on this machine the figures show the proxy's cost, not the scaling a larger machine or several hosts would give.",
        procfs::machine()
    );
    let _ = writeln!(
        text,
        "- Setups, all `everything --http 127.0.0.1:PORT` (`RATE_LIMIT=off`) built in this run: \
         **1 process, direct** (the load generator talks to it); **nginx → 1 replica**; **nginx → 3 replicas** \
         ({nginx_version}, `worker_processes {NGINX_WORKERS}`, round-robin `upstream` with `keepalive 128`, \
         `proxy_http_version 1.1`, `proxy_buffering off`, `Host` passed on, no access log; the config is written by \
         `bench/src/replicas.rs`)."
    );
    let _ = writeln!(
        text,
        "- Load: the HTTP part's generator (`bench/http/src/bin/http-load.rs`), {} keep-alive connections with one \
         2026-07-28 `tools/call add` in flight each, every answer checked (status, JSON, id, sum). Per run: fresh \
         processes, {} unmeasured calls, then {} measured ones. Server CPU per call sums every server process of the \
         setup (replicas, nginx master and workers), read from `/proc` around the measured calls. {} interleaved \
         repetitions (the order rotates) after one warm-up round; each cell is the median.\n",
        options.connections, options.warm_up, options.calls, options.reps
    );
    let direct = &samples[0];
    let _ = writeln!(
        text,
        "| setup | `add` calls/s | p50 µs | p99 µs | server CPU per call µs | throughput ÷ direct | p50 ÷ direct |\n\
         |---|---:|---:|---:|---:|---:|---:|"
    );
    for (setup, s) in Setup::ALL.iter().zip(&samples) {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {:.2} | {:.2} |",
            setup.label(),
            number(median(&s.throughput)),
            number(median(&s.p50)),
            number(median(&s.p99)),
            number(median(&s.cpu)),
            median(&s.throughput) / median(&direct.throughput),
            median(&s.p50) / median(&direct.p50),
        );
    }
    let one = &samples[1];
    let _ = writeln!(
        text,
        "\nnginx overhead (nginx → 1 replica against direct): {} µs more at p50, {} µs more server CPU per call \
         (nginx's share), throughput × {:.2}.\n",
        number(median(&one.p50) - median(&direct.p50)),
        number(median(&one.cpu) - median(&direct.cpu)),
        median(&one.throughput) / median(&direct.throughput),
    );
    let _ = writeln!(
        text,
        "<details><summary>Per-repetition values (replicas)</summary>\n\n\
         | setup | calls/s | p50 µs | p99 µs | CPU per call µs |\n|---|---|---|---|---|"
    );
    let list = |values: &[f64]| {
        values
            .iter()
            .map(|&v| number(v))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (setup, s) in Setup::ALL.iter().zip(&samples) {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} |",
            setup.label(),
            list(&s.throughput),
            list(&s.p50),
            list(&s.p99),
            list(&s.cpu)
        );
    }
    let _ = writeln!(text, "\n</details>");
    let _ = writeln!(text, "{END}");
    Ok(text)
}

/// One run of `setup` with fresh processes; adds its samples.
fn run_once(
    setup: Setup,
    options: &http::Options,
    everything: &Path,
    load: &Path,
    nginx: &Path,
    scratch: &Path,
    samples: &mut Samples,
) -> io::Result<()> {
    let mut replicas = Vec::new();
    for i in 0..setup.replicas() {
        let server = Server {
            label: "everything",
            program: everything.to_owned(),
            args: vec!["--http".to_owned()],
            env: vec![
                ("RATE_LIMIT".to_owned(), "off".to_owned()),
                ("MCP_REPLICA".to_owned(), format!("r{i}")),
                (
                    "MCP_SEAL_KEY".to_owned(),
                    "bench-replicas-shared-seal-key-0123456789".to_owned(),
                ),
            ],
            stderr_log: scratch.join(format!("replica-{i}.stderr")),
        };
        replicas.push(
            server
                .start()?
                .map_err(|why| io::Error::other(format!("replica {i}: {why}")))?,
        );
    }
    let upstreams: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
    let mut proxy = match setup {
        Setup::Direct => None,
        Setup::Nginx(_) => Some(Nginx::start(nginx, &scratch.join("nginx"), &upstreams)?),
    };
    let target = proxy.as_ref().map_or(upstreams[0], |p| p.addr);
    let (status, body) = post_once(target, 7)?;
    if status != 200 {
        return Err(io::Error::other(format!(
            "{}: the first call got {status}: {}",
            setup.label(),
            String::from_utf8_lossy(&body)
        )));
    }
    let mut generator = Command::new(load)
        .arg(format!("http://{target}/mcp"))
        .args(["--connections", &options.connections.to_string()])
        .args(["--warm-up", &options.warm_up.to_string()])
        .args(["--calls", &options.calls.to_string()])
        .arg("--wait")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| io::Error::new(e.kind(), format!("spawning {}: {e}", load.display())))?;
    // Read after the warm-up, so nginx's workers exist.
    let result = crate::http::drive(&mut generator, &setup.label(), || {
        let mut pids: Vec<u32> = replicas.iter().map(|r| r.child.id()).collect();
        if let Some(proxy) = &proxy {
            pids.extend(proxy.pids());
        }
        cpu_ns(&pids)
    });
    if result.is_err() {
        let _ = generator.kill();
    }
    let _ = generator.wait();
    if let Some(proxy) = &mut proxy {
        proxy.stop()?;
    }
    for replica in &mut replicas {
        replica.stop()?;
    }
    let (report, cpu0, cpu1) = result?;
    let cpu = cpu1.saturating_sub(cpu0);
    let calls = report["calls"].as_f64().unwrap_or(f64::NAN);
    let elapsed = report["elapsed_s"].as_f64().unwrap_or(f64::NAN);
    samples.throughput.push(calls / elapsed);
    samples
        .p50
        .push(report["p50_us"].as_f64().unwrap_or(f64::NAN));
    samples
        .p99
        .push(report["p99_us"].as_f64().unwrap_or(f64::NAN));
    samples.cpu.push(cpu as f64 / 1e3 / calls);
    Ok(())
}
