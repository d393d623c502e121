//! Who a quota counts a request against: the verified principal when
//! authorization is on (tokens of one subject share it wherever they come
//! from), else the peer's address (IPv6 by its /64, which one host or one
//! customer usually holds whole), else one bucket for every unidentified
//! client. And [`ClientQuota`], a count per client of what it holds open.

use crate::principal::Principal;
use hyper::http;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};

/// The client a request is counted against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ClientKey {
    /// A verified token's issuer (`iss`, empty when absent) and subject.
    Principal {
        /// The `iss` claim of the token.
        issuer: Box<str>,
        /// The token's subject.
        subject: Box<str>,
    },
    /// No authorization: the peer's IP address (IPv6 cut to its /64,
    /// IPv4-mapped IPv6 as IPv4).
    Address(IpAddr),
    /// Neither a principal nor a peer address (a service mounted by a
    /// router that puts no `SocketAddr` in the request's extensions).
    /// [`ClientQuota`] does not count it: one bucket for every such client
    /// would let one of them use up everyone's quota.
    Unknown,
}

impl ClientKey {
    /// The key of a request: its principal if any, else the peer address:
    /// `peer` (the listener's, handed over), else one in `extensions` (a
    /// [`SocketAddr`], which the listener puts there for the user's layers
    /// and a router mounting [`HttpService`](super::HttpService) may insert).
    pub(crate) fn of(
        principal: Option<&Principal>,
        peer: Option<SocketAddr>,
        extensions: &http::Extensions,
    ) -> ClientKey {
        if let Some(principal) = principal {
            let issuer = principal
                .claims()
                .get("iss")
                .and_then(|iss| iss.as_str())
                .unwrap_or_default();
            return ClientKey::Principal {
                issuer: issuer.into(),
                subject: principal.subject().into(),
            };
        }
        match peer.as_ref().or_else(|| extensions.get::<SocketAddr>()) {
            Some(peer) => ClientKey::Address(bucket(peer.ip())),
            None => ClientKey::Unknown,
        }
    }
}

impl ClientKey {
    /// The key as the session's per-client limits take it (run slots, open
    /// input requests: `Connection::client_key`); `None` for
    /// [`ClientKey::Unknown`], which those limits do not count either.
    pub(crate) fn label(&self) -> Option<Arc<str>> {
        match self {
            ClientKey::Principal { issuer, subject } => {
                Some(Arc::from(format!("sub:{issuer} {subject}")))
            }
            ClientKey::Address(IpAddr::V4(ip)) => Some(ipv4_label(*ip)),
            ClientKey::Address(ip) => Some(Arc::from(format!("ip:{ip}"))),
            ClientKey::Unknown => None,
        }
    }
}

/// `ip:` and the address in dotted decimal, as `format!("ip:{ip}")` writes
/// it, without the formatting machinery, which is a measurable share of an
/// HTTP call for a label made on every request (BENCHMARKS.md).
fn ipv4_label(ip: Ipv4Addr) -> Arc<str> {
    let mut text = [0u8; 18];
    text[..3].copy_from_slice(b"ip:");
    let mut len = 3;
    for (i, octet) in ip.octets().into_iter().enumerate() {
        if i > 0 {
            text[len] = b'.';
            len += 1;
        }
        let (hundreds, tens) = (octet / 100, octet / 10 % 10);
        if hundreds > 0 {
            text[len] = b'0' + hundreds;
            len += 1;
        }
        if hundreds > 0 || tens > 0 {
            text[len] = b'0' + tens;
            len += 1;
        }
        text[len] = b'0' + octet % 10;
        len += 1;
    }
    // Digits and dots only: always UTF-8.
    std::str::from_utf8(&text[..len]).map_or_else(|_| Arc::from(format!("ip:{ip}")), Arc::from)
}

/// The address a quota counts: IPv4 as is, IPv6 by its /64 (a host gets a
/// whole /64, so counting single addresses would let one host be many).
pub(super) fn bucket(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & !((1u128 << 64) - 1))),
        },
    }
}

/// How many of something (open event streams) each client holds, at most
/// `max` each. Only requests that open such a thing touch it, so its lock
/// is off the path of ordinary calls.
#[derive(Debug)]
pub(crate) struct ClientQuota {
    max: usize,
    held: Mutex<HashMap<ClientKey, usize>>,
}

impl ClientQuota {
    /// A quota of `max` per client.
    pub(crate) fn new(max: usize) -> Arc<ClientQuota> {
        Arc::new(ClientQuota {
            max,
            held: Mutex::new(HashMap::new()),
        })
    }

    /// The most one client may hold.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// One more for `key`, held until the slot is dropped; `None` when
    /// `key` holds `max` already. An unknown client is let through
    /// uncounted (see [`ClientKey::Unknown`]).
    pub(crate) fn enter(self: &Arc<Self>, key: ClientKey) -> Option<QuotaSlot> {
        if key == ClientKey::Unknown {
            return Some(QuotaSlot {
                quota: Arc::clone(self),
                key,
            });
        }
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let count = held.entry(key.clone()).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(QuotaSlot {
            quota: Arc::clone(self),
            key,
        })
    }
}

/// One unit of a client's quota; given back when dropped.
#[derive(Debug)]
pub(crate) struct QuotaSlot {
    quota: Arc<ClientQuota>,
    key: ClientKey,
}

impl Drop for QuotaSlot {
    fn drop(&mut self) {
        if self.key == ClientKey::Unknown {
            return;
        }
        let mut held = self.quota.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = held.get_mut(&self.key) {
            *count -= 1;
            // Forget clients that hold nothing, so the map stays as small
            // as what is open.
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_labels_are_what_format_writes() {
        for ip in [
            "0.0.0.0",
            "127.0.0.1",
            "10.20.30.40",
            "192.168.100.255",
            "255.255.255.255",
            "1.2.3.4",
            "100.9.10.99",
        ] {
            let ip: Ipv4Addr = ip.parse().unwrap();
            assert_eq!(&*ipv4_label(ip), format!("ip:{ip}"));
            let key = ClientKey::Address(IpAddr::V4(ip));
            assert_eq!(key.label().as_deref(), Some(&*format!("ip:{ip}")));
        }
    }

    fn with_peer(addr: &str) -> http::Extensions {
        let mut extensions = http::Extensions::new();
        extensions.insert(addr.parse::<SocketAddr>().unwrap());
        extensions
    }

    #[test]
    fn a_principal_wins_over_the_address() {
        let mut claims = serde_json::Map::new();
        claims.insert("iss".into(), "https://auth.example".into());
        let alice = Principal::new("alice", ["a"], claims);
        let key = ClientKey::of(Some(&alice), None, &with_peer("10.0.0.1:5"));
        assert_eq!(
            key,
            ClientKey::Principal {
                issuer: "https://auth.example".into(),
                subject: "alice".into()
            }
        );
    }

    #[test]
    fn addresses_are_counted_by_host_and_ipv6_by_its_slash_64() {
        let a = ClientKey::of(None, None, &with_peer("127.0.0.1:1000"));
        assert_eq!(a, ClientKey::of(None, None, &with_peer("127.0.0.1:2000")));
        let six = ClientKey::of(None, None, &with_peer("[2001:db8:1:2:aaaa::1]:1"));
        assert_eq!(
            six,
            ClientKey::of(None, None, &with_peer("[2001:db8:1:2:bbbb::9]:1"))
        );
        assert_ne!(
            six,
            ClientKey::of(None, None, &with_peer("[2001:db8:1:3::1]:1"))
        );
        let mapped = ClientKey::of(None, None, &with_peer("[::ffff:127.0.0.1]:1"));
        assert_eq!(mapped, a);
        assert_eq!(
            ClientKey::of(None, None, &http::Extensions::new()),
            ClientKey::Unknown
        );
        // The listener's peer, handed over, counts as one in the
        // extensions would, and before it.
        let peer = |addr: &str| Some(addr.parse::<SocketAddr>().unwrap());
        let empty = http::Extensions::new();
        assert_eq!(ClientKey::of(None, peer("127.0.0.1:9"), &empty), a);
        assert_eq!(
            ClientKey::of(None, peer("[2001:db8:1:2::7]:1"), &with_peer("10.0.0.1:1")),
            six
        );
    }

    #[test]
    fn a_quota_counts_per_client_and_gives_back_on_drop() {
        let quota = ClientQuota::new(2);
        let key = |ip: &str| ClientKey::Address(ip.parse().unwrap());
        let first = quota.enter(key("10.0.0.1")).unwrap();
        let _second = quota.enter(key("10.0.0.1")).unwrap();
        assert!(quota.enter(key("10.0.0.1")).is_none());
        assert!(quota.enter(key("10.0.0.2")).is_some());
        drop(first);
        assert!(quota.enter(key("10.0.0.1")).is_some());
        let unknown: Vec<_> = (0..5).map(|_| quota.enter(ClientKey::Unknown)).collect();
        assert!(unknown.iter().all(Option::is_some), "not counted");
    }
}
