//! Compile-fail and pass cases of `#[tool]` and `#[prompt]`, one file per case.
//!
//! Each declaration mistake must fail with one error on the user's token that
//! states the rule; each pass case runs its `main`, which checks the tool.
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite` and read them.
//!
//! A crate of its own (`ui-tests`, `cargo test -p ui-tests`): trybuild
//! builds every dependency of the crate that runs it again, for its cases,
//! so this crate depends on little more than mcp-runtime.

use std::path::{Path, PathBuf};

/// trybuild's project dir (`<target>/tests/trybuild/ui-tests`) is a
/// workspace of its own, so the workspace's `[profile]` does not reach it:
/// every dependency was built, and every pass case linked, with full
/// debuginfo, which no case reads (an error's text and a case's run do not
/// depend on it). Cargo reads the `.cargo/config.toml` of the dirs above the
/// project dir, so one written there turns it off for trybuild's builds
/// alone.
fn trybuild_profile() {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    );
    let config = target.join("tests/trybuild/.cargo");
    std::fs::create_dir_all(&config).expect("trybuild's config dir");
    std::fs::write(
        config.join("config.toml"),
        "# Written by tests/ui/ui.rs: trybuild's builds without debuginfo.\n\
         [profile.dev]\ndebug = false\n",
    )
    .expect("trybuild's config file");
}

#[test]
fn ui() {
    trybuild_profile();
    let cases = trybuild::TestCases::new();
    cases.compile_fail("name/*.rs");
    cases.compile_fail("signature/*.rs");
    cases.compile_fail("types/*.rs");
    cases.compile_fail("attr/*.rs");
    cases.compile_fail("header/*.rs");
    cases.compile_fail("app/*.rs");
    cases.compile_fail("placement/*.rs");
    cases.compile_fail("registration/*.rs");
    cases.compile_fail("resource/*.rs");
    cases.compile_fail("prompt/*.rs");
    cases.pass("pass/*.rs");
}
