//! Compile-fail and pass cases of `#[tool]`, one file per case.
//!
//! Each declaration mistake must fail with one error on the user's token that
//! states the rule; each pass case runs its `main`, which checks the tool.
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite` and read them.
//!
//! A crate of its own (`ui-tests`, `cargo test -p ui-tests`): trybuild
//! builds every dependency of the crate that runs it again, for its cases,
//! so this crate depends on little more than mcp-runtime.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("name/*.rs");
    cases.compile_fail("signature/*.rs");
    cases.compile_fail("types/*.rs");
    cases.compile_fail("attr/*.rs");
    cases.compile_fail("header/*.rs");
    cases.compile_fail("placement/*.rs");
    cases.compile_fail("registration/*.rs");
    cases.pass("pass/*.rs");
}
