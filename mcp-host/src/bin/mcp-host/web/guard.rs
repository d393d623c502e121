//! Who may use the page, checked on every request as MCP Inspector does:
//! the `Host` must name this server (a DNS-rebinding page's name does
//! not), an `Origin`, when sent, must be the page's own (another site's
//! script is refused), and every request but the token's exchange must
//! carry the session cookie. The token printed at start is good once: it
//! is exchanged for the cookie (`HttpOnly`: no script reads it;
//! `SameSite=Strict`: no other site's request carries it) and a redirect
//! to `/`, so it leaves the address bar and the history.

use super::lock;
use hyper::StatusCode;
use hyper::header::{COOKIE, HOST, HeaderMap, ORIGIN};
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use subtle::ConstantTimeEq;

/// A refusal: its status and what it says.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) status: StatusCode,
    pub(crate) reason: String,
}

fn refuse(status: StatusCode, reason: impl Into<String>) -> Refusal {
    Refusal {
        status,
        reason: reason.into(),
    }
}

/// The page's secrets and where it is served.
pub(crate) struct Guard {
    bound: SocketAddr,
    /// The one-time token; `None` once exchanged.
    token: Mutex<Option<String>>,
    /// The session the token was exchanged for.
    session: Mutex<Option<String>>,
}

/// 32 bytes from the OS's randomness, as lowercase hex.
pub(crate) fn random_hex() -> String {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system provides randomness");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares secrets in constant time (RustCrypto's `subtle`), so the time
/// taken does not tell how much of a guess was right.
fn same_secret(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

impl Guard {
    /// A guard for a server bound at `bound`, with a new token.
    pub(crate) fn new(bound: SocketAddr) -> Guard {
        Guard {
            bound,
            token: Mutex::new(Some(random_hex())),
            session: Mutex::new(None),
        }
    }

    /// The URL printed at start: the page, with the token.
    pub(crate) fn url(&self) -> String {
        let token = lock(&self.token).clone().unwrap_or_default();
        format!("http://{}/?token={token}", self.bound)
    }

    /// The session cookie's name: one per port, so two programs on one
    /// host (cookies do not tell ports apart) do not overwrite each
    /// other's.
    pub(crate) fn cookie_name(&self) -> String {
        format!("mcp-host-{}", self.bound.port())
    }

    /// Checks `Host` and `Origin`; returns the page's origin.
    pub(crate) fn check_origin(&self, headers: &HeaderMap) -> Result<String, Refusal> {
        let host = headers
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .ok_or_else(|| refuse(StatusCode::FORBIDDEN, "no Host header"))?;
        if !self.is_own_host(host) {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                format!(
                    "Host `{host}` is not this server ({}): a page of another name is not served (DNS rebinding)",
                    self.bound
                ),
            ));
        }
        let own = format!("http://{host}");
        if let Some(origin) = headers.get(ORIGIN)
            && origin.as_bytes() != own.as_bytes()
        {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                format!(
                    "Origin `{}` is not this page's ({own}): another site's request is refused",
                    String::from_utf8_lossy(origin.as_bytes())
                ),
            ));
        }
        Ok(own)
    }

    /// Whether `host` (a `Host` header) names this server: its address
    /// and port, or `localhost` with its port. Bound to every address
    /// (`--bind 0.0.0.0`), any IP address with the port (a rebinding
    /// attack needs a name; an address is never one).
    fn is_own_host(&self, host: &str) -> bool {
        let port = self.bound.port();
        if host.eq_ignore_ascii_case(&format!("localhost:{port}")) {
            return true;
        }
        match host.parse::<SocketAddr>() {
            Ok(named) if named.port() == port => {
                named.ip() == self.bound.ip() || self.bound.ip().is_unspecified()
            }
            _ => false,
        }
    }

    /// Exchanges `token` for the session cookie's value (`Set-Cookie`):
    /// once.
    pub(crate) fn exchange(&self, token: &str) -> Result<String, Refusal> {
        let mut kept = lock(&self.token);
        match kept.as_deref() {
            Some(expected) if same_secret(expected, token) => {
                *kept = None;
                let session = random_hex();
                *lock(&self.session) = Some(session.clone());
                Ok(format!(
                    "{}={session}; HttpOnly; SameSite=Strict; Path=/",
                    self.cookie_name()
                ))
            }
            Some(_) => Err(refuse(StatusCode::FORBIDDEN, "wrong token")),
            None => Err(refuse(
                StatusCode::FORBIDDEN,
                "the token was already used: it is good once (restart mcp-host web for a new one)",
            )),
        }
    }

    /// Checks the session cookie.
    pub(crate) fn check_session(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let name = self.cookie_name();
        let sent = headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|h| h.to_str().ok())
            .flat_map(|h| h.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value);
        let Some(sent) = sent else {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                "no session: open the URL mcp-host web printed (with its token) first",
            ));
        };
        match lock(&self.session).as_deref() {
            Some(session) if same_secret(session, sent) => Ok(()),
            _ => Err(refuse(StatusCode::FORBIDDEN, "not this page's session")),
        }
    }

    /// Whether the address served is a loopback one.
    pub(crate) fn is_loopback(&self) -> bool {
        let ip: IpAddr = self.bound.ip();
        ip.is_loopback()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(pairs: &[(&hyper::header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn only_this_servers_names_are_its_host() {
        let guard = Guard::new("127.0.0.1:8417".parse().unwrap());
        for good in ["127.0.0.1:8417", "localhost:8417", "LocalHost:8417"] {
            assert!(
                guard.check_origin(&headers(&[(&HOST, good)])).is_ok(),
                "{good}"
            );
        }
        for bad in [
            "127.0.0.1:8418",
            "evil.example:8417",
            "127.0.0.2:8417",
            "localhost",
            "127.0.0.1",
        ] {
            let refused = guard.check_origin(&headers(&[(&HOST, bad)])).unwrap_err();
            assert_eq!(refused.status, StatusCode::FORBIDDEN, "{bad}");
        }
        let any = Guard::new("0.0.0.0:8417".parse().unwrap());
        assert!(
            any.check_origin(&headers(&[(&HOST, "192.168.1.5:8417")]))
                .is_ok()
        );
        assert!(
            any.check_origin(&headers(&[(&HOST, "rebind.example:8417")]))
                .is_err()
        );
    }

    #[test]
    fn the_cookie_is_found_among_others() {
        let guard = Guard::new("127.0.0.1:8417".parse().unwrap());
        let token = lock(&guard.token).clone().unwrap();
        let set = guard.exchange(&token).unwrap();
        let pair = set.split(';').next().unwrap();
        assert!(
            guard
                .check_session(&headers(&[(&COOKIE, &format!("a=b; {pair}; c=d"))]))
                .is_ok()
        );
        assert_eq!(
            guard
                .check_session(&headers(&[(&COOKIE, "mcp-host-8417=00")]))
                .unwrap_err()
                .status,
            StatusCode::FORBIDDEN
        );
    }
}
