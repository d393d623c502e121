//! The harness shared by the fuzz targets: a server with representative
//! tools, a paced in-memory client, and the invariants every session must
//! keep. `examples/replay.rs` runs the same harness on a file, outside
//! libFuzzer, to read what the server answered.

pub mod generate;
mod invariants;
mod paced;
mod tools;

pub use invariants::{Expectations, check, expectations};
pub use paced::{Capture, PacedReader};
pub use tools::{Sum, Unit, add, fuzz_tools, split_words};

use mcpfn_runtime::Server;
use std::io;
use std::sync::Once;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The server's message cap: small, so the oversized path is easy to reach.
pub const MAX_MESSAGE_SIZE: usize = 4096;
/// The most bytes one read hands the server: lines longer than this arrive
/// in several reads, so the framer assembles them across buffer refills.
pub const READ_CHUNK: usize = 1531;
/// Virtual time between a line and the next.
pub const LINE_GAP: Duration = Duration::from_millis(1);
/// Virtual time after a blank line: blank lines are the fuzzer's way to let
/// sleeping tools, timeouts and elicitations progress before the next line.
pub const BLANK_LINE_GAP: Duration = Duration::from_millis(50);
/// A fixed key, so sealed `requestState` values in the seed corpus stay valid.
pub const REQUEST_STATE_KEY: [u8; 32] = *b"mcp-runtime fuzz request key 32b";

/// The payload prefix of panics the `boom` tool raises on purpose.
pub const INTENDED_PANIC: &str = "fuzz: intended panic";

/// A non-string panic payload raised on purpose.
#[derive(Debug)]
pub struct IntendedPanic;

/// Lets the panics the `boom` tool raises on purpose through silently (the
/// runtime catches them); any other panic is a finding: print it and abort,
/// as libFuzzer's own hook does, so the input is saved as a crash.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let intended = payload.is::<IntendedPanic>()
                || payload
                    .downcast_ref::<&str>()
                    .is_some_and(|s| s.starts_with(INTENDED_PANIC))
                || payload
                    .downcast_ref::<String>()
                    .is_some_and(|s| s.starts_with(INTENDED_PANIC));
            if intended {
                return;
            }
            previous(info);
            std::process::abort();
        }));
    });
}

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

/// The fuzzed server: small limits, so every refusal path is reachable.
pub fn fuzz_server() -> Server {
    Server::new("fuzz", "0.0.0")
        .title("Fuzz target")
        .instructions("Tools for fuzzing.")
        .tools(fuzz_tools())
        .max_message_size(MAX_MESSAGE_SIZE)
        .page_size(3)
        .max_concurrent_calls(2)
        .max_pending_calls(6)
        .rate_limit(1, 24)
        .drain_timeout(Duration::from_secs(5))
        .request_state_key(REQUEST_STATE_KEY)
        .input_request_ttl(Duration::from_secs(100 * 365 * 24 * 3600))
        .stdout_guard(false)
}

// ---------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------

/// What one session produced.
pub struct Session {
    pub result: io::Result<()>,
    pub output: Vec<u8>,
    pub shut_down: bool,
    pub written_after_shutdown: bool,
}

/// Serves `input` as a whole stdio session on a current-thread runtime with a
/// paused clock (sleeps and timeouts take no real time).
pub fn run_session(input: &[u8]) -> Session {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a current-thread runtime");
    let capture = Capture::default();
    let result = runtime.block_on(fuzz_server().serve(PacedReader::new(input), capture.clone()));
    drop(runtime);
    Session {
        result,
        output: capture.bytes(),
        shut_down: capture.shut.load(Ordering::SeqCst),
        written_after_shutdown: capture.written_after_shutdown.load(Ordering::SeqCst),
    }
}

// ---------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------

/// The lines the server reads from `input`, as its framer splits them:
/// newline-separated, a trailing `\r` dropped, blank lines skipped, lines over
/// [`MAX_MESSAGE_SIZE`] (measured before dropping `\r`) marked oversized.
pub fn input_lines(input: &[u8]) -> Vec<(&[u8], bool)> {
    let mut lines = Vec::new();
    for raw in input.split(|&b| b == b'\n') {
        let oversized = raw.len() > MAX_MESSAGE_SIZE;
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if !oversized && line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        lines.push((line, oversized));
    }
    lines
}

/// Runs `input` as a session and checks it.
pub fn fuzz_session(input: &[u8]) {
    install_panic_hook();
    let session = run_session(input);
    check(input, &session);
}

/// The `decode` target: [`generate::decode_input`] turns `data` into a session.
pub fn fuzz_decode(data: &[u8]) {
    install_panic_hook();
    let input = generate::decode_input(data);
    let session = run_session(&input);
    check(&input, &session);
}

#[cfg(test)]
mod tests {
    //! The checks themselves: they pass on the seed corpus and catch what
    //! they are meant to (run with `cargo test --lib` in fuzz/). No panic hook
    //! here: the intended panics are caught by the runtime either way.
    use super::*;

    fn session(output: &str) -> Session {
        Session {
            result: Ok(()),
            output: output.as_bytes().to_vec(),
            shut_down: true,
            written_after_shutdown: false,
        }
    }

    const PING_1: &str = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    const ANSWER_1: &str = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";

    #[test]
    fn the_seed_corpora_and_regressions_keep_the_invariants() {
        for dir in ["corpus/session", "regressions"] {
            for path in inputs(dir) {
                let input = std::fs::read(&path).unwrap();
                let result = std::panic::catch_unwind(|| check(&input, &run_session(&input)));
                assert!(result.is_ok(), "{} broke an invariant", path.display());
            }
        }
        for path in inputs("corpus/decode") {
            let input = generate::decode_input(&std::fs::read(&path).unwrap());
            check(&input, &run_session(&input));
        }
    }

    /// The files of `dir` (under this crate): a folder missing or empty
    /// fails the replay instead of passing it with nothing replayed.
    fn inputs(dir: &str) -> Vec<std::path::PathBuf> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let files: Vec<_> = std::fs::read_dir(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        assert!(!files.is_empty(), "{}: no inputs to replay", path.display());
        files
    }

    #[test]
    fn one_answer_per_request_passes() {
        check(PING_1.as_bytes(), &session(ANSWER_1));
    }

    #[test]
    #[should_panic(expected = "answered 2 times but appears in 1 input lines")]
    fn a_second_answer_is_caught() {
        check(PING_1.as_bytes(), &session(&ANSWER_1.repeat(2)));
    }

    #[test]
    fn a_reused_id_may_be_answered_again() {
        check(PING_1.repeat(2).as_bytes(), &session(&ANSWER_1.repeat(2)));
    }

    #[test]
    #[should_panic(expected = "request 1 was never answered")]
    fn a_lost_answer_is_caught() {
        check(PING_1.as_bytes(), &session(""));
    }

    #[test]
    fn a_cancelled_request_need_not_be_answered() {
        let cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}\n";
        check(format!("{PING_1}{cancel}").as_bytes(), &session(""));
    }

    #[test]
    fn oversized_and_malformed_requests_need_no_id() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}\n",
            "x".repeat(MAX_MESSAGE_SIZE)
        );
        check(big.as_bytes(), &session(""));
        check(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}\n",
            &session(""),
        );
    }

    #[test]
    fn a_lone_surrogate_id_is_refused_or_caught() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"method\":\"ping\"}\n";
        // Refused without an id (since 653799b): fine.
        check(
            input.as_bytes(),
            &session("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"x\"}}\n"),
        );
        // Echoed (before): a finding.
        let echoed = "{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"result\":{}}\n";
        let result = std::panic::catch_unwind(|| check(input.as_bytes(), &session(echoed)));
        assert!(result.is_err(), "an echoed lone surrogate is caught");
    }

    #[test]
    #[should_panic(expected = "output line is not JSON")]
    fn a_broken_frame_is_caught() {
        check(
            b"",
            &session("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\n}\n"),
        );
    }

    #[test]
    #[should_panic(expected = "exactly one of result and error")]
    fn a_response_with_both_is_caught() {
        check(
            PING_1.as_bytes(),
            &session("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}\n"),
        );
    }
}
