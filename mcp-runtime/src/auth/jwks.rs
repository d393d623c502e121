//! [`Jwks`]: the authorization server's public keys (a JWK Set, RFC 7517),
//! from a file or a URL, cached and refreshed within bounds.

use super::verifier::Rejection;
use crate::util::BoxFuture;
use crate::util::lock;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The shortest time between two fetches of the keys by default: 60 s.
const DEFAULT_REFRESH_INTERVAL: Duration = Duration::from_secs(60);
/// How long fetched keys are used before they are fetched again: 1 hour.
const DEFAULT_MAX_AGE: Duration = Duration::from_secs(3600);
/// How long one fetch over HTTP may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest JWKS document read: 1 MiB.
const MAX_DOCUMENT: usize = 1024 * 1024;

/// How a fetch gets the document's bytes.
type Fetch = Arc<dyn Fn() -> BoxFuture<Result<Vec<u8>, String>> + Send + Sync>;

/// The public keys tokens are signed with, as a JWK Set document.
///
/// Keys come from a file ([`Jwks::file`], read again when it may have
/// changed), a plain-HTTP URL ([`Jwks::url`], e.g. an identity provider
/// inside the cluster), or any fetch of your own ([`Jwks::fetch_with`],
/// e.g. over HTTPS with the client your program already has). They are
/// cached: fetched again when older than [`Jwks::max_age`], or when a token
/// names a key id (`kid`) not in the set, which is how a rotation shows;
/// either way at most once per [`Jwks::refresh_interval`], so tokens with
/// made-up key ids cannot make the server hammer the authorization server.
/// A failed fetch keeps the keys it had.
///
/// Only signing keys for RS256 (RSA) and ES256 (EC P-256) are kept; others
/// in the document are skipped.
#[derive(Clone)]
pub struct Jwks {
    inner: Arc<Inner>,
}

struct Inner {
    fetch: Fetch,
    source: String,
    refresh_interval: Duration,
    max_age: Duration,
    state: Mutex<State>,
    /// One fetch at a time; the others wait for its keys.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    keys: Arc<Vec<Key>>,
    /// When the keys were last fetched successfully.
    fetched: Option<Instant>,
    /// When a fetch was last started, successful or not.
    attempted: Option<Instant>,
    last_error: Option<String>,
}

/// One usable key.
struct Key {
    kid: Option<String>,
    alg: Algorithm,
    key: Arc<DecodingKey>,
}

impl fmt::Debug for Jwks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.inner.state);
        f.debug_struct("Jwks")
            .field("source", &self.inner.source)
            .field("keys", &state.keys.len())
            .finish_non_exhaustive()
    }
}

impl Jwks {
    /// The keys in the JWKS file at `path`, read now (a missing or invalid
    /// file is an error at startup) and again when a token names an
    /// unknown key, so keys are rotated by rewriting the file.
    pub fn file(path: impl Into<PathBuf>) -> io::Result<Jwks> {
        let path = path.into();
        let source = path.display().to_string();
        let read_path = path.clone();
        let fetch: Fetch = Arc::new(move || {
            let path = read_path.clone();
            Box::pin(async move {
                // A small, rarely read file: off the async threads all the same.
                let read = tokio::task::spawn_blocking(move || {
                    std::fs::read(&path).map_err(|err| format!("reading {}: {err}", path.display()))
                });
                read.await.unwrap_or_else(|err| Err(err.to_string()))
            })
        });
        let jwks = Jwks::with_fetch(fetch, source);
        let text = std::fs::read(&path)?;
        let keys = parse(&text).map_err(|err| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {err}", path.display()),
            )
        })?;
        jwks.store(keys, Instant::now());
        Ok(jwks)
    }

    /// The keys of the JWKS document `text` (say, embedded in the program);
    /// they never change.
    pub fn from_json(text: &str) -> io::Result<Jwks> {
        let keys = parse(text.as_bytes())
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err))?;
        let fixed = text.as_bytes().to_vec();
        let jwks = Jwks::with_fetch(
            Arc::new(move || {
                let fixed = fixed.clone();
                Box::pin(async move { Ok(fixed) })
            }),
            "inline JWKS".to_owned(),
        );
        jwks.store(keys, Instant::now());
        Ok(jwks)
    }

    /// The keys served at `url`, fetched on first use with the HTTP/1.1
    /// client built on this crate's hyper. Only `http://` URLs: for HTTPS
    /// (any identity provider on the internet), use [`Jwks::fetch_with`]
    /// and your TLS-capable client; this crate carries no TLS stack.
    pub fn url(url: &str) -> io::Result<Jwks> {
        let uri: hyper::Uri = url
            .parse()
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidInput, format!("{url}: {err}")))?;
        if uri.scheme_str() != Some("http") || uri.authority().is_none() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{url}: Jwks::url fetches http:// URLs only; for https use Jwks::fetch_with with an HTTPS client"
                ),
            ));
        }
        let fetch: Fetch = Arc::new(move || {
            let uri = uri.clone();
            Box::pin(async move {
                match tokio::time::timeout(FETCH_TIMEOUT, http_get(&uri)).await {
                    Ok(result) => result,
                    Err(_) => Err(format!("fetching {uri} took over {FETCH_TIMEOUT:?}")),
                }
            })
        });
        Ok(Jwks::with_fetch(fetch, url.to_owned()))
    }

    /// The keys `fetch` returns (the JWKS document's bytes, or why it could
    /// not get them), called on first use and whenever the keys are
    /// refreshed. `source` names it in logs.
    pub fn fetch_with<F>(source: impl Into<String>, fetch: F) -> Jwks
    where
        F: Fn() -> BoxFuture<Result<Vec<u8>, String>> + Send + Sync + 'static,
    {
        Jwks::with_fetch(Arc::new(fetch), source.into())
    }

    fn with_fetch(fetch: Fetch, source: String) -> Jwks {
        Jwks {
            inner: Arc::new(Inner {
                fetch,
                source,
                refresh_interval: DEFAULT_REFRESH_INTERVAL,
                max_age: DEFAULT_MAX_AGE,
                state: Mutex::new(State::default()),
                fetching: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// The shortest time between two fetches (60 s by default): however
    /// many tokens name unknown keys, the keys are fetched at most once
    /// per interval. Set it before sharing the `Jwks`.
    pub fn refresh_interval(self, interval: Duration) -> Jwks {
        self.configure(|inner| inner.refresh_interval = interval)
    }

    /// How long fetched keys are used before they are fetched again (1
    /// hour by default). Set it before sharing the `Jwks`.
    pub fn max_age(self, age: Duration) -> Jwks {
        self.configure(|inner| inner.max_age = age)
    }

    fn configure(self, change: impl FnOnce(&mut Inner)) -> Jwks {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                change(&mut inner);
                Jwks {
                    inner: Arc::new(inner),
                }
            }
            // Already shared (cloned): settings stay as they are.
            Err(inner) => Jwks { inner },
        }
    }

    /// How many usable keys are cached now.
    pub fn len(&self) -> usize {
        lock(&self.inner.state).keys.len()
    }

    /// Whether no usable key is cached now.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn store(&self, keys: Vec<Key>, now: Instant) {
        let mut state = lock(&self.inner.state);
        state.keys = Arc::new(keys);
        state.fetched = Some(now);
        state.attempted = Some(now);
        state.last_error = None;
    }

    /// The keys that may have signed a token with `kid` and `alg`: the one
    /// with that id, or (no `kid`) every key for `alg`. Fetches the set
    /// first when it is stale, or when no key matches, within the bounds.
    pub(crate) async fn keys_for(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Vec<Arc<DecodingKey>>, Rejection> {
        let stale = {
            let state = lock(&self.inner.state);
            state
                .fetched
                .is_none_or(|at| at.elapsed() >= self.inner.max_age)
        };
        if stale {
            self.refresh().await;
        }
        let found = self.matching(kid, alg);
        if !found.is_empty() {
            return Ok(found);
        }
        // An unknown key id: perhaps the keys were rotated.
        self.refresh().await;
        let found = self.matching(kid, alg);
        if !found.is_empty() {
            return Ok(found);
        }
        let state = lock(&self.inner.state);
        match (&state.last_error, state.keys.is_empty()) {
            (Some(error), true) => Err(Rejection::Unavailable(format!(
                "no signing keys from {}: {error}",
                self.inner.source
            ))),
            _ => Err(Rejection::UnknownKey),
        }
    }

    fn matching(&self, kid: Option<&str>, alg: Algorithm) -> Vec<Arc<DecodingKey>> {
        let keys = Arc::clone(&lock(&self.inner.state).keys);
        keys.iter()
            .filter(|key| key.alg == alg)
            .filter(|key| kid.is_none() || key.kid.as_deref() == kid)
            .map(|key| Arc::clone(&key.key))
            .collect()
    }

    /// Fetches the keys unless a fetch started within the refresh interval
    /// (one fetch at a time; who waited for it uses its keys).
    async fn refresh(&self) {
        let due = |state: &State| {
            state
                .attempted
                .is_none_or(|at| at.elapsed() >= self.inner.refresh_interval)
        };
        if !due(&lock(&self.inner.state)) {
            return;
        }
        let _fetching = self.inner.fetching.lock().await;
        {
            let mut state = lock(&self.inner.state);
            if !due(&state) {
                return;
            }
            state.attempted = Some(Instant::now());
        }
        let result = (self.inner.fetch)().await.and_then(|bytes| parse(&bytes));
        match result {
            Ok(keys) => {
                tracing::debug!(source = %self.inner.source, keys = keys.len(), "fetched the JWKS");
                let mut state = lock(&self.inner.state);
                state.keys = Arc::new(keys);
                state.fetched = Some(Instant::now());
                state.last_error = None;
            }
            Err(error) => {
                tracing::warn!(source = %self.inner.source, %error, "fetching the JWKS failed; keeping the keys we had");
                lock(&self.inner.state).last_error = Some(error);
            }
        }
    }
}

/// The usable keys of a JWKS document: signing keys for RS256 and ES256.
/// Keys of other types are skipped (an identity provider may publish
/// encryption keys or other algorithms beside them).
fn parse(bytes: &[u8]) -> Result<Vec<Key>, String> {
    #[derive(serde::Deserialize)]
    struct Document {
        keys: Vec<Value>,
    }
    let document: Document = serde_json::from_slice(bytes)
        .map_err(|err| format!("not a JWKS document (an object with \"keys\"): {err}"))?;
    let mut keys = Vec::new();
    for value in document.keys {
        let Ok(jwk) = serde_json::from_value::<Jwk>(value) else {
            continue;
        };
        if let Some(key) = usable(&jwk) {
            keys.push(key);
        }
    }
    Ok(keys)
}

/// A key of `jwk` for RS256 or ES256, if it is a signing key of that kind.
fn usable(jwk: &Jwk) -> Option<Key> {
    if matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
    ) {
        return None;
    }
    let alg = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Algorithm::RS256,
        AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => {
            Algorithm::ES256
        }
        _ => return None,
    };
    // A key that names its algorithm is used for that one only.
    match (jwk.common.key_algorithm, alg) {
        (None | Some(KeyAlgorithm::RS256), Algorithm::RS256)
        | (None | Some(KeyAlgorithm::ES256), Algorithm::ES256) => {}
        _ => return None,
    }
    let key = DecodingKey::from_jwk(jwk).ok()?;
    Some(Key {
        kid: jwk.common.key_id.clone(),
        alg,
        key: Arc::new(key),
    })
}

/// GET `uri` (plain HTTP/1.1) and return the body of a `200`.
async fn http_get(uri: &hyper::Uri) -> Result<Vec<u8>, String> {
    use http_body_util::BodyExt;
    let fail = |what: &str, err: &dyn fmt::Display| format!("fetching {uri}: {what}: {err}");
    let authority = uri
        .authority()
        .ok_or_else(|| format!("fetching {uri}: no host"))?;
    let port = authority.port_u16().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((authority.host(), port))
        .await
        .map_err(|err| fail("connecting", &err))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|err| fail("handshake", &err))?;
    tokio::spawn(async move {
        // Ends with the response; its errors show in the request's result.
        let _ = connection.await;
    });
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let request = hyper::Request::get(path)
        .header(hyper::header::HOST, authority.as_str())
        .header(hyper::header::ACCEPT, "application/json")
        .body(http_body_util::Empty::<bytes::Bytes>::new())
        .map_err(|err| fail("building the request", &err))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|err| fail("sending", &err))?;
    if response.status() != hyper::StatusCode::OK {
        return Err(format!("fetching {uri}: status {}", response.status()));
    }
    let body = http_body_util::Limited::new(response.into_body(), MAX_DOCUMENT)
        .collect()
        .await
        .map_err(|err| fail("reading the body", &err))?;
    Ok(body.to_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A P-256 public key (the RFC 7515 A.3 example key).
    const EC_JWK: &str = r#"{"kty":"EC","crv":"P-256","kid":"ec1","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#;

    fn counting(count: &Arc<AtomicUsize>, document: String) -> Jwks {
        let count = Arc::clone(count);
        Jwks::fetch_with("test", move || {
            count.fetch_add(1, Ordering::SeqCst);
            let document = document.clone();
            Box::pin(async move { Ok(document.into_bytes()) })
        })
    }

    #[test]
    fn only_signing_keys_for_rs256_and_es256_are_kept() {
        let document = format!(
            r#"{{"keys":[{EC_JWK},
            {{"kty":"EC","crv":"P-256","use":"enc","kid":"enc","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}},
            {{"kty":"oct","k":"c2VjcmV0","kid":"hmac"}},
            {{"kty":"weird"}}]}}"#
        );
        let keys = parse(document.as_bytes()).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].kid.as_deref(), Some("ec1"));
        assert_eq!(keys[0].alg, Algorithm::ES256);
        assert!(parse(b"[]").is_err());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn unknown_key_ids_refetch_at_most_once_per_interval() {
        let count = Arc::new(AtomicUsize::new(0));
        let jwks = counting(&count, format!(r#"{{"keys":[{EC_JWK}]}}"#))
            .refresh_interval(Duration::from_secs(3600));
        assert_eq!(
            jwks.keys_for(Some("ec1"), Algorithm::ES256)
                .await
                .unwrap()
                .len(),
            1
        );
        assert_eq!(count.load(Ordering::SeqCst), 1, "fetched on first use");
        for _ in 0..20 {
            assert_eq!(
                jwks.keys_for(Some("nope"), Algorithm::ES256).await.err(),
                Some(Rejection::UnknownKey)
            );
        }
        assert_eq!(count.load(Ordering::SeqCst), 1, "within the interval");
        let eager =
            counting(&count, format!(r#"{{"keys":[{EC_JWK}]}}"#)).refresh_interval(Duration::ZERO);
        count.store(0, Ordering::SeqCst);
        let _ = eager.keys_for(Some("nope"), Algorithm::ES256).await;
        assert_eq!(
            count.load(Ordering::SeqCst),
            2,
            "first use, then one refetch"
        );
        assert!(
            eager.keys_for(Some("ec1"), Algorithm::RS256).await.is_err(),
            "an EC key never verifies RS256"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_failed_first_fetch_is_unavailable_not_invalid() {
        let jwks = Jwks::fetch_with("down", || Box::pin(async { Err("refused".to_owned()) }));
        let err = jwks
            .keys_for(Some("a"), Algorithm::RS256)
            .await
            .unwrap_err();
        assert!(
            matches!(err, Rejection::Unavailable(ref m) if m.contains("refused")),
            "{err}"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn keys_are_fetched_over_plain_http() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let body = format!(r#"{{"keys":[{EC_JWK}]}}"#);
        let server = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = vec![0_u8; 4096];
            let n = stream.read(&mut request).await.unwrap();
            let head = String::from_utf8_lossy(&request[..n]).into_owned();
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(response.as_bytes()).await.unwrap();
            head
        });
        let jwks = Jwks::url(&format!("http://{addr}/jwks.json")).unwrap();
        assert_eq!(
            jwks.keys_for(Some("ec1"), Algorithm::ES256)
                .await
                .unwrap()
                .len(),
            1
        );
        let head = server.await.unwrap();
        assert!(head.starts_with("GET /jwks.json HTTP/1.1\r\n"), "{head}");
        assert!(Jwks::url("https://idp.example.com/jwks").is_err());
    }
}
