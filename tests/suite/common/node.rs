//! The official TypeScript SDK client pinned in `tests/interop`, installed
//! with `npm ci` on first use. Same stamp and lock file as `tests/suite/interop.rs`,
//! so test binaries running at once install it once.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// `tests/interop`, with its `node_modules` installed from
/// `package-lock.json` (skipped when the stamp written after the last
/// install matches it). Node.js >= 20 with npm must be on `PATH`.
pub fn interop_dir() -> &'static Path {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = root.join("interop");
        let lock =
            fs::read(dir.join("package-lock.json")).expect("tests/interop/package-lock.json");
        let stamp = dir.join("node_modules").join(".interop-installed");
        let installed = || fs::read(&stamp).is_ok_and(|have| have == lock);
        if !installed() {
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| root.join("../target"), PathBuf::from);
            fs::create_dir_all(&target).expect("the target directory");
            let guard =
                File::create(target.join("interop-install.lock")).expect("the install lock");
            guard.lock().expect("the install lock is taken");
            if !installed() {
                let output = Command::new("npm")
                    .args(["ci", "--no-audit", "--no-fund"])
                    .current_dir(&dir)
                    .stdin(Stdio::null())
                    .output()
                    .expect("npm runs (install Node.js >= 20 with npm)");
                assert!(
                    output.status.success(),
                    "npm ci in tests/interop failed:\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
                fs::write(&stamp, &lock).expect("the npm install stamp");
            }
        }
        dir
    })
}
