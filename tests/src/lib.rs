//! Test-only crate; the tests are the `[[test]]` targets in its manifest.
