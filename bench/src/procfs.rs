//! What the benchmark reads about a server process from `/proc`.

use std::fs;
use std::io;

/// On-CPU time of every live thread of `pid`, in nanoseconds: the sum of the
/// first field of `/proc/<pid>/task/*/schedstat` (exact, unlike the 10 ms
/// ticks of `/proc/<pid>/stat`). Threads that exit are no longer counted, so
/// callers take differences over windows in which no thread exits.
pub(crate) fn cpu_ns(pid: u32) -> io::Result<u64> {
    let mut total = 0;
    for entry in fs::read_dir(format!("/proc/{pid}/task"))? {
        let path = entry?.path().join("schedstat");
        // A thread may exit between listing and reading: it no longer counts.
        if let Ok(text) = fs::read_to_string(path) {
            total += text
                .split_whitespace()
                .next()
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Ok(total)
}

/// utime + stime of the whole process (dead threads included) from
/// `/proc/<pid>/stat`, in clock ticks.
pub(crate) fn cpu_ticks(pid: u32) -> io::Result<u64> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name may contain spaces; fields are counted after its ')'.
    let after = text.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    // After ')': state is field 3 of stat(5), so utime (14) and stime (15)
    // are at indexes 11 and 12 here.
    let field = |i: usize| -> io::Result<u64> {
        fields
            .get(i)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| io::Error::other(format!("unreadable /proc/{pid}/stat")))
    };
    Ok(field(11)? + field(12)?)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 when unknown, as on every
/// common Linux).
pub(crate) fn ticks_per_second() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(100)
}

/// A `kB` field of `/proc/<pid>/status`, e.g. `VmHWM` (peak resident set).
pub(crate) fn status_kib(pid: u32, key: &str) -> io::Result<u64> {
    let text = fs::read_to_string(format!("/proc/{pid}/status"))?;
    text.lines()
        .find_map(|line| {
            let rest = line.strip_prefix(key)?.strip_prefix(':')?;
            rest.trim().trim_end_matches("kB").trim().parse().ok()
        })
        .ok_or_else(|| io::Error::other(format!("no {key} in /proc/{pid}/status")))
}

/// A short description of the machine: CPU model, cores, memory.
pub(crate) fn machine() -> String {
    let model = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|r| r.trim_start_matches([' ', '\t', ':']).to_owned())
            })
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let mem_gib = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|l| {
                l.strip_prefix("MemTotal:")
                    .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
        })
        .map_or(0.0, |kib| kib as f64 / 1024.0 / 1024.0);
    format!("{model}, {cores} cores available, {mem_gib:.0} GiB RAM")
}

/// The parent of `pid`, from `/proc/<pid>/stat`.
fn parent(pid: u32) -> Option<u32> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = text.rsplit_once(')')?.1;
    after.split_whitespace().nth(1)?.parse().ok()
}

/// How many `rustc` processes run that are not descendants of `ours` (pass
/// 0 to count all): other builds competing for the CPUs.
pub(crate) fn foreign_compilers(ours: u32) -> usize {
    let Ok(entries) = fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "rustc")
        })
        .filter(|&pid| {
            let mut current = pid;
            for _ in 0..64 {
                if current == ours {
                    return false;
                }
                match parent(current) {
                    Some(p) if p > 1 => current = p,
                    _ => break,
                }
            }
            true
        })
        .count()
}

/// The 1-minute load average (`/proc/loadavg`).
pub(crate) fn load_average() -> f64 {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}
