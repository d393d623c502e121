//! The shared store: Redis, through the `redis` crate's connection manager
//! (one multiplexed connection, re-established after a failure), and Redis
//! pub/sub for the messages between servers (a connection of its own per
//! listener, since a subscribed connection takes no other command).

use super::{Store, StoreError, StoreFuture};
use crate::util::lock;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Cmd, FromRedisValue, Script};
use std::fmt;
use std::future::Future;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// How long one operation may take by default, connecting included.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

/// The longest wait between two attempts to listen again after Redis
/// failed (the first wait is 50 ms, doubled each time).
const MAX_LISTEN_RETRY: Duration = Duration::from_secs(5);

/// A time-to-live in whole milliseconds, at least 1 (a zero TTL would mean
/// "never expires" to some backends and "invalid" to others).
fn ttl_ms(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// `compare_and_set` in one step on the server: GET, compare, SET with PX.
static COMPARE_AND_SET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then \
           redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 \
         end return 0",
    )
});

/// `compare_and_delete` in one step on the server.
static COMPARE_AND_DELETE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then \
           redis.call('DEL', KEYS[1]) return 1 \
         end return 0",
    )
});

/// A [`Store`] in Redis, shared by every server given the same URL and
/// prefix; clones share the connection.
///
/// Each key is this store's prefix (`mcp:` unless [`RedisStore::prefix`]
/// says otherwise) followed by the runtime's key, and each carries its TTL
/// (`PX`), so Redis drops expired entries by itself. Single-use ids are set
/// with `SET NX PX`; compare-and-set runs as a Lua script, atomic on the
/// server.
///
/// The connection is made on first use and re-made after a failure, so a
/// server starts while Redis is down and recovers by itself when it comes
/// back. An operation that finds the connection broken (an I/O error: the
/// first one after a Redis restart gets "broken pipe") is tried once more,
/// on the new connection, within the same timeout; timeouts and errors
/// Redis answered are not retried. So an operation whose connection broke
/// after Redis ran it may run twice: `put_if_absent` then answers `false`
/// and `compare_and_set` `false`, as if another server had been first. Every operation is bounded by [`RedisStore::timeout`] (1 s by
/// default): while Redis is unreachable, calls that need the store fail with
/// "state store unavailable …" at once instead of hanging, and other calls
/// are not affected.
///
/// ```no_run
/// use mcpfn_runtime::Server;
/// use mcpfn_runtime::store::RedisStore;
/// use std::time::Duration;
///
/// let store = RedisStore::open("redis://127.0.0.1:6379")?
///     .prefix("basket:")
///     .timeout(Duration::from_millis(500));
/// let server = Server::new("basket", "1.0.0").store(store);
/// # Ok::<(), mcpfn_runtime::store::StoreError>(())
/// ```
#[derive(Clone)]
pub struct RedisStore {
    client: Client,
    prefix: String,
    timeout: Duration,
    /// Made on first use, inside the runtime.
    manager: Arc<Mutex<Option<ConnectionManager>>>,
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("server", &self.client.get_connection_info().addr())
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store at `url` (`redis://host:port/db`, `rediss://…` is not built
    /// in). Only the URL is checked here; the connection is made on first
    /// use.
    pub fn open(url: &str) -> Result<RedisStore, StoreError> {
        let client = Client::open(url)
            .map_err(|err| StoreError::unavailable(format!("invalid Redis URL: {err}")))?;
        Ok(RedisStore {
            client,
            prefix: "mcp:".to_owned(),
            timeout: DEFAULT_TIMEOUT,
            manager: Arc::new(Mutex::new(None)),
        })
    }

    /// What every key starts with (`mcp:` by default): give each server its
    /// own when several share one Redis, and replicas of one server the same.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> RedisStore {
        self.prefix = prefix.into();
        self
    }

    /// How long one operation may take, connecting included (1 s by
    /// default); then it fails with "state store unavailable".
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> RedisStore {
        self.timeout = timeout;
        self
    }

    /// The connection manager, made on first use.
    fn connection(&self) -> Result<ConnectionManager, StoreError> {
        let mut slot = lock(&self.manager);
        if let Some(manager) = slot.as_ref() {
            return Ok(manager.clone());
        }
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout))
            // Reconnection is retried on the next operation; one quick try
            // in the background is enough.
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(self.timeout);
        let manager = ConnectionManager::new_lazy_with_config(self.client.clone(), config)
            .map_err(|err| StoreError::unavailable(format!("Redis: {err}")))?;
        *slot = Some(manager.clone());
        Ok(manager)
    }

    fn key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// Runs `op` on a connection within the timeout, twice if the first
    /// try finds the connection broken ([`is_connection_error`]).
    ///
    /// The manager learns that its connection died only when a command
    /// fails on it (after a Redis restart, a dead socket answers "broken
    /// pipe"); it then reconnects, and the retry waits for that new
    /// connection. Without the retry, the first operation after every
    /// restart failed, once per replica. Both tries share the one timeout.
    async fn run<T, F>(&self, op: impl Fn(ConnectionManager) -> F) -> Result<T, StoreError>
    where
        F: Future<Output = redis::RedisResult<T>>,
    {
        let connection = self.connection()?;
        let tries = async {
            match op(connection.clone()).await {
                Err(err) if is_connection_error(&err) => {
                    tracing::debug!(error = %err, "the Redis connection broke; retrying once");
                    op(connection).await
                }
                result => result,
            }
        };
        match tokio::time::timeout(self.timeout, tries).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => Err(StoreError::unavailable(format!("Redis: {err}"))),
            Err(_) => Err(StoreError::unavailable(format!(
                "Redis did not answer within {}",
                crate::util::human_duration(self.timeout)
            ))),
        }
    }

    /// Runs one command.
    fn command<'a, T: FromRedisValue + Send + 'a>(&'a self, command: Cmd) -> StoreFuture<'a, T> {
        Box::pin(async move {
            let command = &command;
            self.run(|mut connection| async move { command.query_async(&mut connection).await })
                .await
        })
    }
}

/// Listens on `channel` (the prefixed name) once: subscribes on a new
/// connection and passes each message to `to` until the connection ends
/// (`Err`) or `to` is closed (`Ok`). `subscribed` is called once the
/// subscription stands.
async fn listen_once(
    client: &Client,
    timeout: Duration,
    channel: &str,
    to: &mpsc::Sender<Vec<u8>>,
    subscribed: impl FnOnce(),
) -> Result<(), String> {
    use futures_core::Stream;
    let connect = async {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(channel).await?;
        Ok::<_, redis::RedisError>(pubsub)
    };
    let pubsub = match tokio::time::timeout(timeout, connect).await {
        Ok(Ok(pubsub)) => pubsub,
        Ok(Err(err)) => return Err(format!("Redis: {err}")),
        Err(_) => {
            return Err(format!(
                "Redis did not answer within {}",
                crate::util::human_duration(timeout)
            ));
        }
    };
    subscribed();
    let mut messages = std::pin::pin!(pubsub.into_on_message());
    loop {
        let next = std::future::poll_fn(|cx| messages.as_mut().poll_next(cx));
        tokio::select! {
            message = next => match message {
                // A full listener misses this one (the trait's contract).
                Some(message) => drop(to.try_send(message.get_payload_bytes().to_vec())),
                None => return Err("the Redis connection ended".to_owned()),
            },
            () = to.closed() => return Ok(()),
        }
    }
}

/// Whether `err` says the connection is gone (an I/O error: broken pipe,
/// reset, refused, end of stream), so that the same operation on a new
/// connection may succeed. Not a timeout: a command that timed out may have
/// run on a Redis that is slow, not gone, and a retry would overrun the
/// operation's time bound; nor any error Redis itself answered (a script
/// error, a wrong type), which a retry would only repeat.
fn is_connection_error(err: &redis::RedisError) -> bool {
    (err.is_io_error() || err.is_connection_dropped()) && !err.is_timeout()
}

impl Store for RedisStore {
    fn put<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(key))
            .arg(value)
            .arg("PX")
            .arg(ttl_ms(ttl));
        self.command(command)
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let mut command = redis::cmd("GET");
        command.arg(self.key(key));
        self.command(command)
    }

    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, bool> {
        let mut command = redis::cmd("DEL");
        command.arg(self.key(key));
        Box::pin(async move { Ok(self.command::<u64>(command).await? > 0) })
    }

    fn put_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(key))
            .arg(value)
            .arg("NX")
            .arg("PX")
            .arg(ttl_ms(ttl));
        // `OK` when set, nil when the key was there.
        Box::pin(async move { Ok(self.command::<Option<String>>(command).await?.is_some()) })
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: &'a [u8],
        new: Vec<u8>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        let key = self.key(key);
        Box::pin(async move {
            let (key, new) = (&key, &new);
            self.run(|mut connection| async move {
                let set: i64 = COMPARE_AND_SET
                    .key(key)
                    .arg(expected)
                    .arg(new.as_slice())
                    .arg(ttl_ms(ttl))
                    .invoke_async(&mut connection)
                    .await?;
                Ok(set == 1)
            })
            .await
        })
    }

    fn compare_and_delete<'a>(&'a self, key: &'a str, expected: &'a [u8]) -> StoreFuture<'a, bool> {
        let key = self.key(key);
        Box::pin(async move {
            let key = &key;
            self.run(|mut connection| async move {
                let deleted: i64 = COMPARE_AND_DELETE
                    .key(key)
                    .arg(expected)
                    .invoke_async(&mut connection)
                    .await?;
                Ok(deleted == 1)
            })
            .await
        })
    }

    fn publish<'a>(&'a self, channel: &'a str, message: Vec<u8>) -> StoreFuture<'a, ()> {
        let mut command = redis::cmd("PUBLISH");
        command.arg(self.key(channel)).arg(message);
        // The number of listeners that got it; any number is a success.
        Box::pin(async move { self.command::<u64>(command).await.map(drop) })
    }

    fn listen<'a>(&'a self, channel: &'a str, to: mpsc::Sender<Vec<u8>>) -> StoreFuture<'a, ()> {
        let channel = self.key(channel);
        Box::pin(async move {
            let mut wait = Duration::from_millis(50);
            loop {
                let result = listen_once(&self.client, self.timeout, &channel, &to, || {
                    wait = Duration::from_millis(50);
                })
                .await;
                match result {
                    Ok(()) => return Ok(()),
                    Err(err) => {
                        tracing::warn!(channel = %channel, error = %err,
                            retry_in_ms = wait.as_millis() as u64,
                            "not listening to Redis; messages published meanwhile are lost");
                    }
                }
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = to.closed() => return Ok(()),
                }
                wait = (wait * 2).min(MAX_LISTEN_RETRY);
            }
        })
    }
}
