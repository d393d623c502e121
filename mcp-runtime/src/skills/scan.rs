//! The walk of a skills folder: every regular file under it, by its path
//! relative to the folder, within bounds. Nothing is followed out of the
//! folder (a symbolic link is refused, not followed), names become URI
//! path segments as they are (so each must be UTF-8 and a valid segment),
//! and the walk stops at the first of [`Bounds`] it would pass: the folder
//! is an operator's, but a mistake in it (a `node_modules`, a link to `/`)
//! must stop the server with a reason rather than load it.

use super::SkillsError;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// How much of a folder is read at most.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds {
    /// Directory levels below the folder.
    pub(super) depth: usize,
    /// Files and directories seen, skipped ones included.
    pub(super) entries: usize,
    /// Bytes in one file.
    pub(super) file_bytes: u64,
}

/// One regular file of the folder.
#[derive(Debug)]
pub(super) struct Found {
    /// `/`-separated, relative to the folder (`refunds/SKILL.md`).
    pub(super) path: String,
    /// Where it is on disk.
    pub(super) disk: PathBuf,
    /// Its length when it was listed.
    pub(super) len: u64,
}

/// Every regular file under `root`, sorted by path. Names that start with
/// `.` (`.git`, `.DS_Store`) are skipped with what is under them: they are
/// not part of a skill.
pub(super) fn walk(root: &Path, bounds: Bounds) -> Result<Vec<Found>, SkillsError> {
    let mut found = Vec::new();
    let mut seen = 0usize;
    // (directory on disk, its path relative to the root, its depth)
    let mut pending = vec![(root.to_path_buf(), String::new(), 0usize)];
    while let Some((dir, relative, depth)) = pending.pop() {
        let listing = fs::read_dir(&dir).map_err(|err| SkillsError::io(&dir, &err))?;
        for entry in listing {
            let entry = entry.map_err(|err| SkillsError::io(&dir, &err))?;
            seen += 1;
            if seen > bounds.entries {
                return Err(SkillsError::new(
                    root,
                    format!(
                        "the folder has more than {} files and directories; serve a smaller folder",
                        bounds.entries
                    ),
                ));
            }
            let disk = entry.path();
            let Ok(name) = entry.file_name().into_string() else {
                return Err(SkillsError::new(
                    &disk,
                    "the name is not UTF-8, so it cannot be part of a resource URI",
                ));
            };
            if name.starts_with('.') {
                continue;
            }
            check_segment(&name).map_err(|reason| SkillsError::new(&disk, reason))?;
            let path = if relative.is_empty() {
                name
            } else {
                format!("{relative}/{name}")
            };
            // `file_type` does not follow a link: a link is refused here,
            // whatever it points at.
            let kind = entry
                .file_type()
                .map_err(|err| SkillsError::io(&disk, &err))?;
            if kind.is_symlink() {
                return Err(SkillsError::new(
                    &disk,
                    "a symbolic link; skills are served from regular files inside the folder only",
                ));
            } else if kind.is_dir() {
                if depth + 1 > bounds.depth {
                    return Err(SkillsError::new(
                        &disk,
                        format!(
                            "more than {} directory levels below the folder",
                            bounds.depth
                        ),
                    ));
                }
                pending.push((disk, path, depth + 1));
            } else if kind.is_file() {
                let len = entry
                    .metadata()
                    .map_err(|err| SkillsError::io(&disk, &err))?
                    .len();
                if len > bounds.file_bytes {
                    return Err(too_big(&disk, bounds.file_bytes));
                }
                found.push(Found { path, disk, len });
            } else {
                return Err(SkillsError::new(
                    &disk,
                    "neither a regular file nor a directory",
                ));
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// The bytes of `file`, at most `limit` of them: a file that grew past it
/// since it was listed is refused, not cut.
pub(super) fn read(file: &Found, limit: u64) -> Result<Vec<u8>, SkillsError> {
    let opened = fs::File::open(&file.disk).map_err(|err| SkillsError::io(&file.disk, &err))?;
    let mut bytes = Vec::with_capacity(usize::try_from(file.len.min(limit)).unwrap_or(0));
    opened
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| SkillsError::io(&file.disk, &err))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(&file.disk, limit));
    }
    Ok(bytes)
}

fn too_big(path: &Path, limit: u64) -> SkillsError {
    SkillsError::new(
        path,
        format!("larger than {limit} bytes, more than a whole skill may hold"),
    )
}

/// Whether `name` can be one segment of a `skill://` URI as it is: RFC
/// 3986 unreserved characters and the sub-delimiters (so also a valid
/// authority, a `reg-name`, when it is the first segment).
fn check_segment(name: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=".contains(c);
    match name.chars().find(|c| !allowed(*c)) {
        None => Ok(()),
        Some(c) => Err(format!(
            "the name has {c:?}, which a resource URI cannot carry as it is; use letters, digits and -._~!$&'()*+,;="
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_uri_safe_names() {
        assert!(check_segment("pdf-processing").is_ok());
        assert!(check_segment("FORMS.md").is_ok());
        assert!(check_segment("a+b=c").is_ok());
        for bad in ["a b", "50%", "a#b", "q?", "user@host", "a:b", "é"] {
            assert!(check_segment(bad).is_err(), "{bad}");
        }
    }
}
