//! The host's own small files of trust decisions (the pins, the approvals
//! kept across runs): read with a bound, written owner-only and atomically.

use std::io::{Read as _, Write as _};
use std::path::Path;

/// The text of the file at `path`: `Ok(None)` when it does not exist, an
/// error when it cannot be read or is larger than `limit` bytes (the
/// `InvalidData` error then says so).
pub(crate) fn read(path: &Path, limit: u64) -> std::io::Result<Option<String>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut text = String::new();
    file.take(limit + 1).read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it is larger than {limit} bytes"),
        ));
    }
    Ok(Some(text))
}

/// Writes `text` to `path`: a temporary file beside it, readable by the
/// owner only, synced, then renamed over it, so a crash leaves the old
/// file or the new one, never half of either. A missing directory is made
/// (owner-only).
pub(crate) fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !d.exists())
    {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&temporary).and_then(|mut file| {
        file.write_all(text.as_bytes())?;
        file.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&temporary, path)) {
        let _ = std::fs::remove_file(&temporary);
        return Err(e);
    }
    Ok(())
}
