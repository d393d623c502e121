//! The table of legacy Streamable HTTP sessions: what a session holds, who
//! may use it, how an `Mcp-Session-Id` finds it (or gets `400`/`404`), how
//! ids are minted, and the bounds ([`MAX_SESSIONS`], [`SESSION_IDLE`]). The
//! requests on them are answered in [`super::legacy`].

use super::headers;
use super::refuse;
use super::resume::ParkedStreams;
use super::sse::HttpBody;
use crate::conn::connection::Connection;
use crate::principal::Principal;
use crate::session::forks::Forks;
use crate::util::lock;
use hyper::header::HeaderMap;
use hyper::{Response, StatusCode};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// Legacy sessions one process keeps at most by default
/// (`Server::max_legacy_sessions`).
pub(crate) const MAX_SESSIONS: usize = 1024;
/// Legacy sessions one client may hold at once by default
/// (`Server::max_legacy_sessions_per_client`): a quarter of the table.
pub(crate) const SESSIONS_PER_CLIENT: usize = 256;
/// A session unused this long is forgotten (its id then gets `404`): 30 min.
pub(crate) const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// The legacy sessions of one service.
#[derive(Debug)]
pub(crate) struct Sessions {
    pub(super) map: Mutex<HashMap<String, Arc<LegacySession>>>,
    /// This replica's tag, in front of the ids it mints (checked).
    pub(super) tag: Option<String>,
    /// Sessions kept at most, and per client.
    max: usize,
    per_client: usize,
}

/// One legacy session.
#[derive(Debug)]
pub(super) struct LegacySession {
    /// The handshake's connection: era, client, log level, id counter.
    pub(super) template: Arc<Connection>,
    /// Connections of requests in flight (forks of the template), which
    /// the client's answers and cancellations reach.
    pub(super) forks: Arc<Forks>,
    /// The push stream's connection, while a GET stream is open.
    pub(super) push: Mutex<Option<Arc<Connection>>>,
    pub(super) used: Mutex<Instant>,
    /// Who opened the session (with authorization): only they may use it.
    pub(super) owner: Option<Arc<Principal>>,
    /// The client it counts against (see `Connection::client_key`).
    pub(super) client: Option<Arc<str>>,
    /// Streams its calls closed, waiting for the client to resume them.
    pub(super) parked: Arc<ParkedStreams>,
}

impl LegacySession {
    /// Whether its GET stream is open.
    fn streaming(&self) -> bool {
        lock(&self.push).is_some()
    }

    /// Ends the session's calls, requests to its client and push stream.
    pub(super) fn end(&self) {
        for connection in self.forks.live() {
            connection.fail_server_requests();
            connection.cancel_all();
        }
        lock(&self.push).take();
        self.parked.clear();
    }

    pub(super) fn expired(&self, now: Instant) -> bool {
        lock(&self.push).is_none() && now.duration_since(*lock(&self.used)) > SESSION_IDLE
    }

    /// Whether `caller` may use this session: the same subject from the
    /// same issuer as its owner (or no authorization at all).
    fn serves(&self, caller: Option<&Arc<Principal>>) -> bool {
        match (&self.owner, caller) {
            (None, None) => true,
            (Some(owner), Some(caller)) => {
                owner.subject() == caller.subject()
                    && owner.claims().get("iss") == caller.claims().get("iss")
            }
            _ => false,
        }
    }
}

/// Frees a session's push slot when its stream ends.
#[derive(Debug)]
pub(super) struct PushGuard(pub(super) Weak<LegacySession>);

impl Drop for PushGuard {
    fn drop(&mut self) {
        if let Some(session) = self.0.upgrade() {
            lock(&session.push).take();
            *lock(&session.used) = Instant::now();
        }
    }
}

impl Sessions {
    /// No sessions yet; ids minted with `tag` in front; at most `max`
    /// sessions, `per_client` of one client.
    pub(super) fn new(tag: Option<String>, max: usize, per_client: usize) -> Sessions {
        let max = max.max(1);
        Sessions {
            map: Mutex::default(),
            tag,
            max,
            per_client: per_client.clamp(1, max),
        }
    }

    /// Makes room in the table for a new session of `client`, or says why
    /// there is none. Expired sessions go first. A client at its quota
    /// loses its own least recently used session without a push stream
    /// (`429` when every one of them has a stream: it must end one). A full
    /// table loses the least recently used session without a stream, else
    /// the least recently used one of the client holding the most: a new
    /// client always gets a session, however many one client opened.
    pub(super) fn make_room(&self, client: Option<&str>) -> Result<(), Box<Response<HttpBody>>> {
        let now = Instant::now();
        let mut map = lock(&self.map);
        map.retain(|_, s| !s.expired(now));
        let ours = |s: &LegacySession| s.client.as_deref() == client;
        if map.values().filter(|s| ours(s)).count() >= self.per_client {
            let Some(id) = least_recent(&map, |s| ours(s) && !s.streaming()) else {
                return Err(Box::new(refuse(
                    StatusCode::TOO_MANY_REQUESTS,
                    &format!(
                        "Too Many Requests: this client holds {} sessions, each with an open GET stream; end one (DELETE) first",
                        self.per_client
                    ),
                )));
            };
            evict(
                &mut map,
                &id,
                "the client opened more sessions than its quota",
            );
        }
        if map.len() >= self.max {
            let victim = least_recent(&map, |s| !s.streaming()).or_else(|| {
                let busiest = busiest_client(&map);
                least_recent(&map, |s| s.client == busiest)
            });
            match victim {
                Some(id) => evict(&mut map, &id, "the session table is full"),
                None => {
                    return Err(Box::new(refuse(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "Service Unavailable: too many sessions; retry later",
                    )));
                }
            }
        }
        Ok(())
    }

    /// Ends every push stream (at shutdown, so connections can close).
    pub(super) fn close_streams(&self) {
        for session in lock(&self.map).values() {
            lock(&session.push).take();
        }
    }
}

/// The id of the least recently used session that `pick` accepts.
fn least_recent(
    map: &HashMap<String, Arc<LegacySession>>,
    pick: impl Fn(&LegacySession) -> bool,
) -> Option<String> {
    map.iter()
        .filter(|(_, s)| pick(s))
        .min_by_key(|(_, s)| *lock(&s.used))
        .map(|(id, _)| id.clone())
}

/// The client holding the most sessions.
fn busiest_client(map: &HashMap<String, Arc<LegacySession>>) -> Option<Arc<str>> {
    let mut counts: HashMap<Option<&Arc<str>>, usize> = HashMap::new();
    for session in map.values() {
        *counts.entry(session.client.as_ref()).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .and_then(|(client, _)| client.cloned())
}

/// Forgets session `id` and ends what it holds (its id then gets `404`).
fn evict(map: &mut HashMap<String, Arc<LegacySession>>, id: &str, why: &str) {
    if let Some(session) = map.remove(id) {
        tracing::debug!(reason = why, "ended the least recently used legacy session");
        session.end();
    }
}

/// The session named by `Mcp-Session-Id`: missing → `400`, unknown,
/// expired or another principal's → `404`.
pub(super) fn find(
    sessions: &Sessions,
    headers: &HeaderMap,
    caller: Option<&Arc<Principal>>,
) -> Result<Arc<LegacySession>, Box<Response<HttpBody>>> {
    let Some(id) = headers
        .get(headers::SESSION_ID)
        .and_then(|v| v.to_str().ok())
    else {
        return Err(Box::new(refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: Mcp-Session-Id is missing; send 'initialize' first and echo the id it returns",
        )));
    };
    let now = Instant::now();
    let mut map = lock(&sessions.map);
    let unknown = || {
        Err(Box::new(refuse(
            StatusCode::NOT_FOUND,
            "Not Found: no such session; send 'initialize' again",
        )))
    };
    match map.get(id) {
        Some(session) if !session.serves(caller) => {
            tracing::debug!("refused a legacy session to another principal than its owner");
            unknown()
        }
        Some(session) if !session.expired(now) => {
            *lock(&session.used) = now;
            Ok(Arc::clone(session))
        }
        Some(_) => {
            map.remove(id);
            Err(Box::new(refuse(
                StatusCode::NOT_FOUND,
                "Not Found: this session has expired; send 'initialize' again",
            )))
        }
        None => unknown(),
    }
}

/// A new session id: 32 hex digits from the OS's randomness (visible
/// ASCII), after `tag.` when the replica has a tag. The tag only routes: the
/// random part alone keeps the id unguessable.
pub(super) fn session_id(tag: Option<&str>) -> String {
    let mut bytes = [0_u8; 16];
    // Without OS randomness ids could be guessed; refuse to run that way.
    getrandom::fill(&mut bytes).expect("the operating system provides randomness");
    let random: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    match tag {
        Some(tag) => format!("{tag}.{random}"),
        None => random,
    }
}

#[cfg(test)]
mod tests {
    use super::session_id;
    use crate::transport::http::checked_replica_tag;

    #[test]
    fn a_tagged_id_is_the_tag_a_dot_and_128_random_bits() {
        let id = session_id(Some("r2"));
        let (tag, random) = id.split_once('.').expect("a tag and a dot");
        assert_eq!(tag, "r2");
        assert_eq!(random.len(), 32, "{id}");
        assert!(random.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        assert_ne!(session_id(Some("r2")), id);
        let untagged = session_id(None);
        assert_eq!(untagged.len(), 32);
        assert!(!untagged.contains('.'));
    }

    #[test]
    fn tags_are_short_and_header_and_regex_safe() {
        for good in ["r2", "mcp-7d9f8c6b5-x2x4q", "A_1", &"a".repeat(63)] {
            assert_eq!(checked_replica_tag(good.to_owned()).unwrap(), good);
        }
        for bad in ["", "r.2", "r 2", "r2\n", "é", "r/2", &"a".repeat(64)] {
            assert!(checked_replica_tag(bad.to_owned()).is_err(), "{bad:?}");
        }
    }
}
