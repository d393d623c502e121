//! Where registrations and tokens live between runs: the [`TokenStore`]
//! trait, keyed by server URL and authorization server issuer (the MCP
//! spec keeps credentials apart per authorization server), with
//! [`FileStore`] (one owner-only JSON file per pair) and [`MemoryStore`].

use super::error::AuthError;
use super::registration::Registration;
use super::token::Tokens;
use crate::transport::BoxFuture;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What is kept for one server at one authorization server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredAuth {
    /// The MCP server's URL.
    pub server_url: String,
    /// The authorization server's issuer.
    pub issuer: String,
    /// The client's registration there.
    pub registration: Option<Registration>,
    /// The last tokens.
    pub tokens: Option<Tokens>,
}

/// Keeps [`StoredAuth`] between runs (a file, the OS keyring, …).
pub trait TokenStore: Send + Sync + std::fmt::Debug {
    /// What is stored for `server_url` at `issuer`.
    fn load<'a>(
        &'a self,
        server_url: &'a str,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredAuth>, AuthError>>;
    /// Stores `auth` under its server URL and issuer.
    fn save<'a>(&'a self, auth: &'a StoredAuth) -> BoxFuture<'a, Result<(), AuthError>>;
    /// Forgets everything stored for `server_url`, at every issuer;
    /// whether there was anything.
    fn remove<'a>(&'a self, server_url: &'a str) -> BoxFuture<'a, Result<bool, AuthError>>;
    /// Holds the entry of `server_url` at `issuer` until the guard is
    /// dropped, against every other holder (other processes sharing the
    /// store): a refresh runs under it, as the refresh token it uses may
    /// be rotated. The default holds nothing, for a store no one shares.
    fn lock<'a>(
        &'a self,
        server_url: &'a str,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<StoreLock, AuthError>> {
        let _ = (server_url, issuer);
        Box::pin(async { Ok(StoreLock::none()) })
    }
}

/// An entry held by [`TokenStore::lock`]; dropping it lets go.
pub struct StoreLock {
    _held: Option<Box<dyn Send + Sync>>,
}

impl StoreLock {
    /// A guard that holds nothing.
    pub fn none() -> StoreLock {
        StoreLock { _held: None }
    }

    /// A guard that lets go when `held` is dropped.
    pub fn holding(held: impl Send + Sync + 'static) -> StoreLock {
        StoreLock {
            _held: Some(Box::new(held)),
        }
    }
}

impl std::fmt::Debug for StoreLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreLock").finish_non_exhaustive()
    }
}

/// A store in memory, for tests and programs that keep nothing.
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<Key, StoredAuth>>,
    held: Mutex<HashMap<Key, Arc<tokio::sync::Mutex<()>>>>,
}

/// An entry's server URL and issuer.
type Key = (String, String);

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl TokenStore for MemoryStore {
    fn load<'a>(
        &'a self,
        server_url: &'a str,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredAuth>, AuthError>> {
        let found = lock(&self.entries)
            .get(&(server_url.to_owned(), issuer.to_owned()))
            .cloned();
        Box::pin(async move { Ok(found) })
    }

    fn save<'a>(&'a self, auth: &'a StoredAuth) -> BoxFuture<'a, Result<(), AuthError>> {
        lock(&self.entries).insert((auth.server_url.clone(), auth.issuer.clone()), auth.clone());
        Box::pin(async { Ok(()) })
    }

    fn remove<'a>(&'a self, server_url: &'a str) -> BoxFuture<'a, Result<bool, AuthError>> {
        let mut entries = lock(&self.entries);
        let before = entries.len();
        entries.retain(|(server, _), _| server != server_url);
        let removed = entries.len() != before;
        Box::pin(async move { Ok(removed) })
    }

    fn lock<'a>(
        &'a self,
        server_url: &'a str,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<StoreLock, AuthError>> {
        let entry = Arc::clone(
            lock(&self.held)
                .entry((server_url.to_owned(), issuer.to_owned()))
                .or_default(),
        );
        Box::pin(async move { Ok(StoreLock::holding(entry.lock_owned().await)) })
    }
}

/// One JSON file per server and issuer under a directory:
/// `DIR/<hash of server URL>/<hash of issuer>.json`, the directories
/// `0700` and the files `0600` on Unix (owner only), written through a
/// temporary file and a rename so a crash leaves the old file whole.
#[derive(Debug, Clone)]
pub struct FileStore {
    dir: PathBuf,
}

/// The largest stored file read back.
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The longest wait for another process's hold on an entry (a refresh,
/// which the web client's own timeouts bound well below this).
const LOCK_WAIT: Duration = Duration::from_secs(60);
/// How often a held entry is tried again.
const LOCK_POLL: Duration = Duration::from_millis(20);

impl FileStore {
    /// A store under `dir` (created on the first save).
    pub fn new(dir: impl Into<PathBuf>) -> FileStore {
        FileStore { dir: dir.into() }
    }

    /// The default directory for `app`: `$XDG_CONFIG_HOME/APP/oauth`, else
    /// `$HOME/.config/APP/oauth` (`%APPDATA%\APP\oauth` on Windows).
    pub fn default_dir(app: &str) -> Option<PathBuf> {
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")))
            .or_else(|| std::env::var_os("APPDATA").map(PathBuf::from))?;
        Some(config.join(app).join("oauth"))
    }

    /// The directory of `server_url`'s files.
    pub fn server_dir(&self, server_url: &str) -> PathBuf {
        self.dir.join(digest(server_url))
    }

    /// The file of `server_url` at `issuer`.
    pub fn file(&self, server_url: &str, issuer: &str) -> PathBuf {
        self.server_dir(server_url)
            .join(format!("{}.json", digest(issuer)))
    }

    /// Takes the advisory lock of `server_url` at `issuer` (a `.lock`
    /// file beside the entry's), waiting while another process holds it.
    async fn hold(&self, server_url: &str, issuer: &str) -> Result<StoreLock, AuthError> {
        let path = self.file(server_url, issuer).with_extension("lock");
        let failed = |e: std::io::Error| AuthError::Store {
            reason: format!("{}: {e}", path.display()),
        };
        create_private_dir(&self.server_dir(server_url)).map_err(failed)?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(&path).map_err(failed)?;
        let deadline = tokio::time::Instant::now() + LOCK_WAIT;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(StoreLock::holding(file)),
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) => return Err(failed(e)),
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(AuthError::Store {
                    reason: format!(
                        "{}: another process has held it for over {} s",
                        path.display(),
                        LOCK_WAIT.as_secs()
                    ),
                });
            }
            tokio::time::sleep(LOCK_POLL).await;
        }
    }

    fn read(&self, server_url: &str, issuer: &str) -> Result<Option<StoredAuth>, AuthError> {
        let path = self.file(server_url, issuer);
        let failed = |e: std::io::Error| AuthError::Store {
            reason: format!("{}: {e}", path.display()),
        };
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(failed(e)),
        };
        let mut text = String::new();
        use std::io::Read;
        file.take(MAX_FILE_BYTES)
            .read_to_string(&mut text)
            .map_err(failed)?;
        let auth: StoredAuth = serde_json::from_str(&text).map_err(|e| AuthError::Store {
            reason: format!("{} is not a stored authorization: {e}", path.display()),
        })?;
        // A file moved from another server's folder is not this server's.
        Ok((auth.server_url == server_url && auth.issuer == issuer).then_some(auth))
    }

    fn write(&self, auth: &StoredAuth) -> Result<(), AuthError> {
        let path = self.file(&auth.server_url, &auth.issuer);
        let failed = |e: std::io::Error| AuthError::Store {
            reason: format!("{}: {e}", path.display()),
        };
        let dir = self.server_dir(&auth.server_url);
        create_private_dir(&dir).map_err(failed)?;
        let text = serde_json::to_string_pretty(auth).map_err(|e| AuthError::Store {
            reason: e.to_string(),
        })?;
        let temporary = path.with_extension("json.tmp");
        let _ = std::fs::remove_file(&temporary);
        write_private(&temporary, text.as_bytes()).map_err(failed)?;
        std::fs::rename(&temporary, &path).map_err(failed)
    }
}

/// base64url of the SHA-256 of `text`: a file name that reveals nothing
/// and cannot walk out of the directory.
fn digest(text: &str) -> String {
    URL_SAFE_NO_PAD.encode(&Sha256::digest(text.as_bytes())[..18])
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

impl TokenStore for FileStore {
    fn load<'a>(
        &'a self,
        server_url: &'a str,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredAuth>, AuthError>> {
        Box::pin(async move { self.read(server_url, issuer) })
    }

    fn save<'a>(&'a self, auth: &'a StoredAuth) -> BoxFuture<'a, Result<(), AuthError>> {
        Box::pin(async move { self.write(auth) })
    }

    fn remove<'a>(&'a self, server_url: &'a str) -> BoxFuture<'a, Result<bool, AuthError>> {
        Box::pin(async move {
            let dir = self.server_dir(server_url);
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
                Err(e) => Err(AuthError::Store {
                    reason: format!("{}: {e}", dir.display()),
                }),
            }
        })
    }

    fn lock<'a>(
        &'a self,
        server_url: &'a str,
        issuer: &'a str,
    ) -> BoxFuture<'a, Result<StoreLock, AuthError>> {
        Box::pin(self.hold(server_url, issuer))
    }
}
