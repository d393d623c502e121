//! Descriptors: the soft open-file limit, raised to the hard one before
//! serving, and the connection limit derived from it.

/// Descriptors kept for the process itself (its pipes, the runtime's own,
/// store and JWKS connections, files tools open) when the connection limit
/// is derived from the open-file limit.
const RESERVED_DESCRIPTORS: u64 = 64;

/// The connection limit derived from a soft open-file limit of `files`:
/// all but [`RESERVED_DESCRIPTORS`] of them, at least 16.
pub(super) fn default_max_connections(files: Option<u64>) -> usize {
    match files {
        Some(files) => usize::try_from(files.saturating_sub(RESERVED_DESCRIPTORS).max(16))
            .unwrap_or(usize::MAX),
        None => usize::MAX,
    }
}

/// Raises the soft open-file limit to the hard one (each connection is a
/// descriptor, and distributions' soft default of 1024 is far below what
/// a server may hold); returns the soft limit in force (`None`: unlimited
/// or unknown).
#[cfg(unix)]
pub(crate) fn raise_open_file_limit() -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    // No soft limit: nothing to raise.
    let soft = limit.current?;
    // An unlimited hard limit is refused as a soft one by some kernels
    // (macOS caps it at OPEN_MAX): aim at a large finite number then.
    let target = limit.maximum.unwrap_or(1 << 20);
    if target <= soft {
        return Some(soft);
    }
    let raised = Rlimit {
        current: Some(target),
        maximum: limit.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => {
            tracing::info!(from = soft, to = target, "raised the soft open-file limit");
            Some(target)
        }
        Err(err) => {
            tracing::warn!(%err, soft, "could not raise the soft open-file limit");
            Some(soft)
        }
    }
}

#[cfg(not(unix))]
pub(crate) fn raise_open_file_limit() -> Option<u64> {
    None
}
