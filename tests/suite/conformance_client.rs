//! The client side of the official MCP conformance suite: its client
//! scenarios (`conformance client --command … --scenario …`) run against
//! `examples/conformance_client.rs`, which is built on `mcp-client`.
//!
//! The suite starts each scenario's server, runs the example with the
//! server's URL as its last argument (and the scenario's name, data and
//! revision in `MCP_CONFORMANCE_*`), then checks what the example sent. A
//! scenario passes when the suite exits 0 and reports `OVERALL: PASSED`.
//! Both pinned suite versions run (`tests/conformance/package.json`:
//! 0.1.16, and 0.2.0-alpha.12 at 2025-11-25 and at 2026-07-28), a few
//! scenarios at a time ([`PARALLEL`]), the `auth/*` ones of the dated
//! revisions included ([`AUTH_SCENARIOS`]); a scenario's reports are printed
//! when it fails. `MCP_CONFORMANCE_CLIENT_SCENARIOS` (comma-separated
//! `SUITE:SCENARIO`, e.g. `2026-07-28:request-metadata`) replaces the
//! lists.

use crate::common;
use crate::conformance::suite_dir;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Instant;

/// One way of running the suite: its entry point and the flags that pick
/// the revision under test.
struct Suite {
    /// How a failure names it, and the prefix of
    /// `MCP_CONFORMANCE_CLIENT_SCENARIOS` entries.
    name: &'static str,
    cli: &'static str,
    flags: &'static [&'static str],
}

const SUITE_0_1: Suite = Suite {
    name: "0.1.16",
    cli: "node_modules/@modelcontextprotocol/conformance/dist/index.js",
    flags: &[],
};

const SUITE_0_2_AT_2025: Suite = Suite {
    name: "2025-11-25",
    cli: "node_modules/conformance-2026/dist/index.js",
    flags: &["--spec-version", "2025-11-25"],
};

const SUITE_0_2_AT_2026: Suite = Suite {
    name: "2026-07-28",
    cli: "node_modules/conformance-2026/dist/index.js",
    flags: &["--spec-version", "2026-07-28"],
};

/// Suite 0.1.16's client scenarios but the `auth/*` ones: all of them.
const SCENARIOS_0_1: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
];

/// Suite 0.2.0-alpha.12's client scenarios of 2025-11-25 but the `auth/*`
/// ones: all of them.
const SCENARIOS_2025: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "json-schema-2020-12-preservation",
];

/// Suite 0.2.0-alpha.12's client scenarios of 2026-07-28 but the `auth/*`
/// ones. Left out: the skills extension's `sep-2640-client-no-prefetch`,
/// `sep-2640-client-verify-digest`, `sep-2640-client-verify-size` and
/// `sep-2640-client-verify-frontmatter` (an extension, not a revision's
/// requirement, and `mcp-client` reads no skills).
const SCENARIOS_2026: &[&str] = &[
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
];

/// The `auth/*` client scenarios of the dated revisions, run through the
/// example's `mcpfn_client::auth::OAuthClient`: suite 0.1.16's, and suite
/// 0.2.0-alpha.12's at 2025-11-25 and at 2026-07-28. Not the extensions'
/// (`client-credentials-*`, `cross-app-access-complete-flow`,
/// `enterprise-managed-authorization`, `dpop*`, `wif-jwt-bearer`).
const AUTH_SCENARIOS: &[(&Suite, &[&str])] = &[
    (&SUITE_0_1, AUTH_COMMON),
    (&SUITE_0_1, AUTH_2025_03_26),
    (&SUITE_0_2_AT_2025, AUTH_COMMON),
    (&SUITE_0_2_AT_2026, AUTH_COMMON),
    (
        &SUITE_0_2_AT_2026,
        &[
            "auth/resource-mismatch",
            "auth/offline-access-scope",
            "auth/offline-access-not-supported",
            "auth/authorization-server-migration",
            "auth/iss-supported",
            "auth/iss-not-advertised",
            "auth/iss-supported-missing",
            "auth/iss-wrong-issuer",
            "auth/iss-unexpected",
            "auth/iss-normalized",
            "auth/metadata-issuer-mismatch",
        ],
    ),
];

/// The `auth/*` scenarios every revision of both suites has.
const AUTH_COMMON: &[&str] = &[
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
];

/// Suite 0.1.16's back-compatibility scenarios for servers of the
/// 2025-03-26 revision, which serve no protected resource metadata: the
/// MCP server's origin is the authorization server, at its metadata or
/// else the default `/authorize`, `/token` and `/register`.
const AUTH_2025_03_26: &[&str] = &[
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
];

/// How many scenarios run at once: each is a Node.js process (the suite)
/// and the example, mostly waiting on each other.
const PARALLEL: usize = 4;

/// One scenario's outcome: `Ok` when it passed, else the suite's report.
fn run_scenario(dir: &Path, client: &Path, suite: &Suite, scenario: &str) -> Result<(), String> {
    let output = Command::new(dir.join("node_modules/.bin/node"))
        .arg(dir.join(suite.cli))
        .arg("client")
        .arg("--command")
        .arg(client)
        .args(["--scenario", scenario])
        .args(suite.flags)
        .current_dir(dir)
        // Node.js keeps the suite's compiled code between runs: a fifth
        // less CPU per scenario, most of which is starting the suite.
        .env("NODE_COMPILE_CACHE", node_cache())
        .stdin(Stdio::null())
        .output()
        .expect("the suite runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // A scenario the suite did not run (not applicable at the revision)
    // exits 0 too: that is not a pass.
    let passed = output.status.success()
        && (stdout.contains("OVERALL: PASSED") || stderr.contains("OVERALL: PASSED"))
        && !stdout.contains("is not applicable");
    if passed {
        Ok(())
    } else {
        Err(format!(
            "exit {}\n{stdout}\n{stderr}",
            output.status.code().unwrap_or(-1)
        ))
    }
}

/// Where Node.js keeps its compile cache: the target directory.
fn node_cache() -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("conformance-node-cache")
}

/// Runs every `(suite, scenario)` of `runs`, [`PARALLEL`] at a time;
/// returns the failed ones with their reports.
fn run_all(runs: &[(&Suite, &str)]) -> Vec<(String, String)> {
    let dir = suite_dir();
    let client = common::example_binary("conformance_client");
    let next = Mutex::new(runs.iter());
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                loop {
                    let Some(&(suite, scenario)) =
                        next.lock().unwrap_or_else(|e| e.into_inner()).next()
                    else {
                        return;
                    };
                    let started = Instant::now();
                    let outcome = run_scenario(&dir, &client, suite, scenario);
                    let took = started.elapsed().as_secs_f64();
                    let label = format!("{} {scenario}", suite.name);
                    match outcome {
                        Ok(()) => eprintln!("conformance client {label}: passed ({took:.1} s)"),
                        Err(report) => {
                            eprintln!("conformance client {label}: FAILED ({took:.1} s)");
                            failed
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push((label, report));
                        }
                    }
                }
            });
        }
    });
    failed.into_inner().unwrap_or_else(|e| e.into_inner())
}

fn assert_all_pass(runs: &[(&Suite, &str)]) {
    let started = Instant::now();
    let failed = run_all(runs);
    eprintln!(
        "conformance client: {} scenarios in {:.1} s",
        runs.len(),
        started.elapsed().as_secs_f64()
    );
    for (label, report) in &failed {
        eprintln!("==== {label}\n{report}");
    }
    let names: Vec<&str> = failed.iter().map(|(label, _)| label.as_str()).collect();
    assert!(
        failed.is_empty(),
        "{} of {} client scenarios failed: {names:?}",
        failed.len(),
        runs.len()
    );
}

/// The suite named `name`.
fn suite(name: &str) -> &'static Suite {
    [&SUITE_0_1, &SUITE_0_2_AT_2025, &SUITE_0_2_AT_2026]
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no suite `{name}` (0.1.16, 2025-11-25 or 2026-07-28)"))
}

#[test]
fn the_example_passes_every_client_scenario_of_the_dated_revisions() {
    let chosen = std::env::var("MCP_CONFORMANCE_CLIENT_SCENARIOS").ok();
    let runs: Vec<(&Suite, &str)> = match &chosen {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|entry| {
                let (name, scenario) = entry
                    .split_once(':')
                    .unwrap_or_else(|| panic!("`{entry}` is not SUITE:SCENARIO"));
                (suite(name), scenario)
            })
            .collect(),
        None => [
            (&SUITE_0_1, SCENARIOS_0_1),
            (&SUITE_0_2_AT_2025, SCENARIOS_2025),
            (&SUITE_0_2_AT_2026, SCENARIOS_2026),
        ]
        .into_iter()
        .chain(AUTH_SCENARIOS.iter().copied())
        .flat_map(|(suite, scenarios)| scenarios.iter().map(move |s| (suite, *s)))
        .collect(),
    };
    // A list naming no scenario would pass without running one.
    assert!(
        !runs.is_empty(),
        "MCP_CONFORMANCE_CLIENT_SCENARIOS is set but names no scenario: unset it to run them all"
    );
    assert_all_pass(&runs);
}

#[test]
fn the_example_refuses_what_it_does_not_run_with_status_2() {
    let client = common::example_binary("conformance_client");
    let output = Command::new(&client)
        .arg("http://127.0.0.1:9/mcp")
        .env("MCP_CONFORMANCE_SCENARIO", "no-such-scenario")
        .stdin(Stdio::null())
        .output()
        .expect("the example runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("scenario `no-such-scenario` is not one this program runs"),
        "{stderr}"
    );
}
