//! Compile-fail and pass cases of `#[tool]`, one file per case.
//!
//! Each declaration mistake must fail with one error on the user's token that
//! states the rule; each pass case runs its `main`, which checks the tool.
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite` and read them.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/name/*.rs");
    cases.compile_fail("ui/signature/*.rs");
    cases.compile_fail("ui/types/*.rs");
    cases.compile_fail("ui/attr/*.rs");
    cases.compile_fail("ui/header/*.rs");
    cases.compile_fail("ui/placement/*.rs");
    cases.compile_fail("ui/registration/*.rs");
    cases.pass("ui/pass/*.rs");
}
