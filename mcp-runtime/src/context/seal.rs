//! Sealing `requestState` (HMAC-SHA256, base64url) and the set of spent
//! states, so the answers of a 2026-07-28 retry can be trusted. The
//! refusals are in `refusal`, the arguments digest a state is bound to in
//! `digest`.

use crate::quota::WindowQuota;
use crate::store::{Store, StoreError};
use crate::util::BoxFuture;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::Sha256;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

mod digest;
mod refusal;
pub(crate) use digest::{ArgumentsDigest, arguments_digest};
pub(crate) use refusal::{ALREADY_USED, IssueRefusal, SpendRefusal, StateRefusal, UNKNOWN_STATE};
use refusal::{EXPIRED, INVALID, NO_STATE, OTHER_CALL};

/// The store entry of an issued, unanswered state, and of an answered one.
const OPEN: &[u8] = b"open";
const SPENT: &[u8] = b"spent";

/// The store key of the state with `id`.
fn state_key(id: &str) -> String {
    format!("state:{id}")
}

/// Seals and opens `requestState`: HMAC-SHA256 over the tool's name, a digest
/// of its arguments, an expiry, a random id, the keys asked in this round and
/// the answers gathered before it. The client holds it between rounds and
/// cannot forge it, move it onto other arguments, keep it past its expiry,
/// or change the answers it seals. Single use is enforced here too: the ids
/// of answered states are kept in the server's [`Store`] until they expire
/// (shared by replicas when the store is), each set only if absent. On the wire a state
/// is the JSON payload and its tag, each in unpadded base64url, joined by a
/// dot; only the canonical spelling opens.
#[derive(Clone)]
pub(crate) struct StateSealer {
    key: [u8; 32],
    ttl: Duration,
    store: Arc<dyn Store>,
    quota: Arc<WindowQuota>,
}

impl std::fmt::Debug for StateSealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateSealer")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// A verified state whose answers are about to be used: its id and expiry,
/// to mark it spent once the call is admitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StateTicket {
    id: String,
    expires: u64,
}

/// What a 2026-07-28 call starts with: the answers it may use, and the state
/// to spend before it runs (`None`: no state, or a replayable tool).
#[derive(Debug, Default)]
pub(crate) struct Resumed {
    pub(crate) answers: Map<String, Value>,
    pub(crate) ticket: Option<StateTicket>,
}

/// How much longer than its state a spent id is kept: replicas' clocks
/// disagree a little, and one whose clock is behind would still take a
/// state whose id another replica's store had already let expire.
const SPENT_GRACE: Duration = Duration::from_secs(60);

impl StateSealer {
    /// A sealer with `key`, or a fresh random key for this process,
    /// keeping the ids of answered states in `store`.
    #[cfg(test)]
    pub(crate) fn new(key: Option<[u8; 32]>, ttl: Duration, store: Arc<dyn Store>) -> StateSealer {
        StateSealer::with_quota(key, ttl, store, DEFAULT_OPEN_STATES_PER_CLIENT)
    }

    /// As [`StateSealer::new`], each client holding at most `per_client`
    /// open states at once.
    pub(crate) fn with_quota(
        key: Option<[u8; 32]>,
        ttl: Duration,
        store: Arc<dyn Store>,
        per_client: usize,
    ) -> StateSealer {
        let key = key.unwrap_or_else(random_bytes::<32>);
        StateSealer {
            key,
            ttl,
            store,
            quota: Arc::new(WindowQuota::new(per_client)),
        }
    }

    /// HMAC-SHA256 under this sealer's key, ready for the payload.
    fn mac(&self) -> Hmac<Sha256> {
        <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key)
            .expect("HMAC accepts keys of any length")
    }

    /// The tag that seals `payload`.
    fn tag(&self, payload: &[u8]) -> [u8; 32] {
        self.mac()
            .chain_update(payload)
            .finalize()
            .into_bytes()
            .into()
    }

    /// Issues the state of a call of `tool` (arguments digest `digest`)
    /// that now asks the keys `asked`, having gathered `answers` so far, for the
    /// client `client` (its quota key; `None` on stdio, whose one client
    /// has no other to crowd out).
    ///
    /// A single-use state (`single_use`: the tool is not replayable) is
    /// recorded in the store as open before it is handed out, so that
    /// answering it later only changes that entry and never needs room the
    /// store may no longer have: when the store is full, or the client has
    /// as many open states as its quota allows, *this* is refused (the tool
    /// is not asked), never an answer to a state already issued. A state
    /// the store does not hold as open (spent, or issued before the store
    /// was emptied: a Redis restart without persistence, a restarted
    /// process with the same key) is refused when answered.
    pub(crate) fn issue(
        &self,
        tool: &str,
        digest: &str,
        asked: &[&str],
        answers: &Map<String, Value>,
        client: Option<&str>,
        single_use: bool,
    ) -> BoxFuture<Result<String, IssueRefusal>> {
        let (state, ticket) = self.seal_ticket(tool, digest, asked, answers);
        if !single_use {
            return Box::pin(std::future::ready(Ok(state)));
        }
        let quota = match client {
            Some(client) => match self.quota.admit(client, self.ttl) {
                Ok(held) => Some(held),
                Err(wait) => return Box::pin(std::future::ready(Err(IssueRefusal::Quota(wait)))),
            },
            None => None,
        };
        let store = Arc::clone(&self.store);
        Box::pin(async move {
            let left = Duration::from_millis(ticket.expires.saturating_sub(now_ms()));
            let refusal = match store
                .put_if_absent(&state_key(&ticket.id), OPEN.to_vec(), left + SPENT_GRACE)
                .await
            {
                Ok(true) => return Ok(state),
                // A random 128-bit id already there: never in practice, and
                // never handed out twice.
                Ok(false) => StoreError::unavailable("a new requestState id collided"),
                Err(err) => err,
            };
            // Not issued: the quota's place is given back.
            if let Some(held) = quota {
                held.release();
            }
            Err(IssueRefusal::Store(refusal))
        })
    }

    /// The sealed state for a call of `tool` with arguments digest `digest`
    /// that now asks `asked`, having gathered `answers` so far (not
    /// recorded in the store: [`StateSealer::issue`] does that).
    #[cfg(test)]
    pub(crate) fn seal(
        &self,
        tool: &str,
        digest: &str,
        asked: &str,
        answers: &Map<String, Value>,
    ) -> String {
        self.seal_ticket(tool, digest, &[asked], answers).0
    }

    /// A sealed state and the ticket that spends it.
    fn seal_ticket(
        &self,
        tool: &str,
        digest: &str,
        asked: &[&str],
        answers: &Map<String, Value>,
    ) -> (String, StateTicket) {
        let expires =
            now_ms().saturating_add(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX));
        let id = URL_SAFE_NO_PAD.encode(random_bytes::<16>());
        let sealed = Sealed {
            a: Cow::Borrowed(digest),
            e: expires,
            n: Cow::Borrowed(&id),
            q: asked.iter().map(|key| Cow::Borrowed(*key)).collect(),
            r: Cow::Borrowed(answers),
            t: Cow::Borrowed(tool),
            v: LAYOUT,
        };
        // Plain data with string keys: it always serializes.
        let payload = serde_json::to_string(&sealed).unwrap_or_default();
        let tag = self.tag(payload.as_bytes());
        let state = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(tag)
        );
        (state, StateTicket { id, expires })
    }

    /// The answers a 2026-07-28 call of `tool` (arguments digest `digest`)
    /// may use, from the request's `requestState` and `inputResponses`.
    ///
    /// Answers come only with a state this server sealed for this tool and
    /// these arguments and unexpired; unless `replayable`, the returned
    /// ticket must then be [spent](StateSealer::spend) before they are used.
    /// The answers sealed in it stand; of `inputResponses` only the keys the
    /// state's round asked are taken, and only when not sealed already; the
    /// rest are ignored, as the specification says of extras.
    pub(crate) fn resume(
        &self,
        tool: &str,
        digest: &ArgumentsDigest,
        state: Option<&str>,
        responses: Option<Map<String, Value>>,
        replayable: bool,
    ) -> Result<Resumed, StateRefusal> {
        let responses = responses.unwrap_or_default();
        let Some(state) = state else {
            // An empty map carries no answers, so it is harmless to accept.
            if !responses.is_empty() {
                return Err(NO_STATE);
            }
            return Ok(Resumed::default());
        };
        let payload = self.open(state, tool, &digest.get())?;
        let ticket = StateTicket {
            id: payload.id,
            expires: payload.expires,
        };
        let mut answers = payload.answers;
        for key in payload.asked {
            if answers.contains_key(&key) {
                continue;
            }
            if let Some(answer) = responses.get(&key) {
                answers.insert(key, answer.clone());
            }
        }
        Ok(Resumed {
            answers,
            ticket: (!replayable).then_some(ticket),
        })
    }

    /// Marks a state used, once across every server sharing the store: a
    /// second use is refused from then on. The future owns what it needs,
    /// so a call can poll it inline and finish it on a task.
    ///
    /// Spending turns the state's open entry (written when it was issued)
    /// into a spent one: it takes no new room in the store, so a full store
    /// never refuses an answer to a state it issued.
    pub(crate) fn spend(&self, ticket: StateTicket) -> BoxFuture<Result<(), SpendRefusal>> {
        let store = Arc::clone(&self.store);
        Box::pin(async move {
            let left = Duration::from_millis(ticket.expires.saturating_sub(now_ms()));
            let key = state_key(&ticket.id);
            match store
                .compare_and_set(&key, OPEN, SPENT.to_vec(), left + SPENT_GRACE)
                .await
            {
                Ok(true) => Ok(()),
                Ok(false) => match store.get(&key).await {
                    Ok(Some(_)) => Err(SpendRefusal::AlreadyUsed),
                    Ok(None) => Err(SpendRefusal::Unknown),
                    Err(err) => Err(SpendRefusal::Store(err)),
                },
                Err(err) => Err(SpendRefusal::Store(err)),
            }
        })
    }

    /// The payload of `state`, if it is ours, unexpired, and for this tool
    /// and these arguments.
    fn open(&self, state: &str, tool: &str, digest: &str) -> Result<Payload, StateRefusal> {
        let (payload, tag) = state.split_once('.').ok_or(INVALID)?;
        // The engine refuses padding and non-zero unused bits, so each state
        // has exactly one spelling.
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| INVALID)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| INVALID)?;
        // `verify_slice` compares in constant time, so timing does not tell
        // a forger how much of a guessed tag was right.
        self.mac()
            .chain_update(&payload)
            .verify_slice(&tag)
            .map_err(|_| INVALID)?;
        let sealed: Sealed<'_> = serde_json::from_slice(&payload).map_err(|_| INVALID)?;
        // Only states of this layout are sealed by this code; an older
        // layout (without an id) could not be spent once.
        if sealed.v != LAYOUT {
            return Err(INVALID);
        }
        if sealed.e < now_ms() {
            return Err(EXPIRED);
        }
        if sealed.t != tool || sealed.a != digest {
            return Err(OTHER_CALL);
        }
        Ok(Payload {
            id: sealed.n.into_owned(),
            expires: sealed.e,
            asked: sealed.q.into_iter().map(Cow::into_owned).collect(),
            answers: sealed.r.into_owned(),
        })
    }
}

/// How many single-use states one client may have issued within a
/// state's lifetime, by default (`Server::max_open_request_states_per_client`):
/// a tenth of the default store, so one client cannot take the room that
/// every other client's input rounds need.
pub(crate) const DEFAULT_OPEN_STATES_PER_CLIENT: usize = 1_000;

/// The layout of [`Sealed`] this code writes and reads.
const LAYOUT: u8 = 2;

/// The JSON sealed in a `requestState`: short keys, since the client
/// carries it on every retry (in key order, as it has always been written).
#[derive(Serialize, Deserialize)]
struct Sealed<'a> {
    /// Digest of the call's arguments.
    #[serde(borrow)]
    a: Cow<'a, str>,
    /// Expiry, in milliseconds since the Unix epoch.
    e: u64,
    /// A random id, to spend the state once.
    #[serde(borrow)]
    n: Cow<'a, str>,
    /// The input request keys this round asked.
    #[serde(borrow)]
    q: Vec<Cow<'a, str>>,
    /// The answers gathered before this round.
    #[serde(default)]
    r: Cow<'a, Map<String, Value>>,
    /// The tool's name.
    #[serde(borrow)]
    t: Cow<'a, str>,
    /// [`LAYOUT`].
    v: u8,
}

/// The verified contents of a `requestState`.
struct Payload {
    id: String,
    expires: u64,
    asked: Vec<String>,
    answers: Map<String, Value>,
}

/// `N` bytes from the operating system.
fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // Without OS randomness states could be forged or collide; refuse to run that way.
    getrandom::fill(&mut bytes).expect("the operating system provides randomness");
    bytes
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use serde_json::json;

    fn memory() -> Arc<dyn Store> {
        Arc::new(MemoryStore::with_capacity(16))
    }

    fn known(digest: &str) -> ArgumentsDigest {
        ArgumentsDigest::Known(digest.to_owned())
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn state_encoding_is_unpadded_canonical_base64url() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "\u{1F600}"] {
            let encoded = URL_SAFE_NO_PAD.encode(text);
            assert_eq!(URL_SAFE_NO_PAD.decode(&encoded).unwrap(), text.as_bytes());
        }
        assert_eq!(URL_SAFE_NO_PAD.encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(URL_SAFE_NO_PAD.encode(b"fo"), "Zm8");
        assert_eq!(URL_SAFE_NO_PAD.encode([0xfb, 0xff]), "-_8");
        // "Zm9" is "fo" with an unused bit set; padding and a lone final
        // character are not base64url of anything this server wrote.
        for refused in ["Zm9", "Zm8=", "Zm9vY", "Zm+8", "Zm/8"] {
            assert!(URL_SAFE_NO_PAD.decode(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn seal_tags_with_hmac_sha256() {
        // RFC 4231 test case 2. HMAC pads a short key with zeros to the
        // block size, so "Jefe" and "Jefe" padded to 32 bytes are one key.
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        let sealer = StateSealer::new(Some(key), Duration::from_secs(60), memory());
        assert_eq!(
            hex(&sealer.tag(b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // And that is the tag a sealed state carries.
        let state = sealer.seal("t", "d", "k", &Map::new());
        let (payload, tag) = state.split_once('.').unwrap();
        let payload = URL_SAFE_NO_PAD.decode(payload).unwrap();
        assert_eq!(URL_SAFE_NO_PAD.decode(tag).unwrap(), sealer.tag(&payload));
    }

    #[test]
    fn the_typed_layout_writes_what_the_json_one_did() {
        let sealer = StateSealer::new(Some([7; 32]), Duration::from_secs(60), memory());
        let state = sealer.seal("t", "d", "k", &Map::new());
        let payload = URL_SAFE_NO_PAD
            .decode(state.split_once('.').unwrap().0)
            .unwrap();
        let value: Value = serde_json::from_slice(&payload).unwrap();
        let before =
            json!({"v": 2, "t": "t", "a": "d", "e": value["e"], "n": value["n"], "q": ["k"], "r": {}})
                .to_string();
        assert_eq!(String::from_utf8(payload).unwrap(), before);
    }

    #[test]
    fn a_tampered_tag_is_refused() {
        let sealer = StateSealer::new(None, Duration::from_secs(60), memory());
        let state = sealer.seal("t", "d", "k", &Map::new());
        let (payload, tag) = state.split_once('.').unwrap();
        let tag = URL_SAFE_NO_PAD.decode(tag).unwrap();
        let resume = |tag: &[u8]| {
            let state = format!("{payload}.{}", URL_SAFE_NO_PAD.encode(tag));
            sealer.resume("t", &known("d"), Some(&state), None, true)
        };
        assert!(resume(&tag).is_ok());
        for byte in [0, 31] {
            let mut flipped = tag.clone();
            flipped[byte] ^= 0x01;
            assert_eq!(resume(&flipped).unwrap_err(), INVALID);
        }
        assert_eq!(resume(&tag[..31]).unwrap_err(), INVALID, "truncated");
        assert_eq!(resume(&[]).unwrap_err(), INVALID, "empty");
    }

    #[test]
    fn a_deferred_digest_is_the_digest_of_its_arguments() {
        let text = r#"{"b":1,"a":[1,{"y":2,"x":1}]}"#;
        assert_eq!(
            ArgumentsDigest::Of(Some(Arc::from(text))).get(),
            arguments_digest(Some(text))
        );
        assert_eq!(ArgumentsDigest::Of(None).get(), arguments_digest(None));
    }

    #[test]
    fn arguments_digest_is_sha256_of_the_canonical_form() {
        assert_eq!(
            arguments_digest(None),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
        assert_eq!(arguments_digest(Some("{ }")), arguments_digest(None));
    }

    fn answer(name: &str) -> Value {
        json!({"action": "accept", "content": {"name": name}})
    }

    fn responses(pairs: &[(&str, Value)]) -> Option<Map<String, Value>> {
        Some(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn sealed_state_opens_only_untampered_and_bound() {
        let sealer = StateSealer::new(None, Duration::from_secs(60), memory());
        let digest = arguments_digest(Some(r#"{"b":1,"a":[1,{"y":2,"x":1}]}"#));
        assert_eq!(
            digest,
            arguments_digest(Some(r#"{ "a":[1,{"x":1,"y":2}], "b":1 }"#))
        );
        let state = sealer.seal("greet", &digest, "name", &Map::new());
        let given = responses(&[("name", answer("Ada"))]);
        let resumed = sealer
            .resume("greet", &known(&digest), Some(&state), given.clone(), false)
            .unwrap();
        assert_eq!(resumed.answers["name"], answer("Ada"));
        let resume = |state: &str, tool: &str, digest: &str| {
            sealer
                .resume(tool, &known(digest), Some(state), given.clone(), false)
                .unwrap_err()
        };
        assert_eq!(resume(&state, "other", &digest), OTHER_CALL);
        assert_eq!(resume(&state, "greet", "00"), OTHER_CALL);
        let mut tampered = state.clone();
        tampered.insert(3, 'x');
        assert_eq!(resume(&tampered, "greet", &digest), INVALID);
        let other_key = StateSealer::new(None, Duration::from_secs(60), memory());
        assert_eq!(
            other_key
                .resume("greet", &known(&digest), Some(&state), None, false)
                .unwrap_err(),
            INVALID
        );
        let expired = StateSealer {
            ttl: Duration::ZERO,
            ..sealer.clone()
        };
        let old = expired.seal("greet", &digest, "name", &Map::new());
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(resume(&old, "greet", &digest), EXPIRED);
    }

    /// The last character of an unpadded base64url text whose length is
    /// 2 or 3 mod 4 carries unused low bits; setting one of them gives a
    /// different text that a lenient decoder maps to the same bytes.
    fn non_canonical(text: &str) -> String {
        const URL_SAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        assert_ne!(text.len() % 4, 0, "no unused bits to set");
        let last = text.chars().last().unwrap();
        let index = URL_SAFE.find(last).unwrap();
        assert_eq!(
            index & 1,
            0,
            "a canonical encoding leaves the unused bits zero"
        );
        let mut out = text[..text.len() - 1].to_owned();
        out.push(URL_SAFE.as_bytes()[index | 1] as char);
        out
    }

    #[test]
    fn a_non_canonical_encoding_of_a_valid_state_is_refused() {
        let sealer = StateSealer::new(None, Duration::from_secs(60), memory());
        let state = sealer.seal("t", "d", "k", &Map::new());
        assert!(
            sealer
                .resume("t", &known("d"), Some(&state), None, true)
                .is_ok()
        );
        let (payload, tag) = state.split_once('.').unwrap();
        // 32 bytes of tag are 43 characters, the last one with 2 unused bits.
        let respelled = format!("{payload}.{}", non_canonical(tag));
        assert_ne!(respelled, state);
        assert_eq!(
            sealer
                .resume("t", &known("d"), Some(&respelled), None, true)
                .unwrap_err(),
            INVALID,
            "the same tag spelled differently is not the state this server issued"
        );
    }

    #[test]
    fn answers_need_a_state_and_sealed_ones_stand() {
        let sealer = StateSealer::new(None, Duration::from_secs(60), memory());
        let forged = responses(&[("name", answer("Mallory"))]);
        assert_eq!(
            sealer
                .resume("t", &known("d"), None, forged.clone(), false)
                .unwrap_err(),
            NO_STATE
        );
        // Nothing to take, nothing to refuse.
        let none = sealer
            .resume("t", &known("d"), None, Some(Map::new()), false)
            .unwrap();
        assert!(none.answers.is_empty() && none.ticket.is_none());
        let mut sealed = Map::new();
        sealed.insert("name".into(), answer("Alan"));
        let state = sealer.seal("t", "d", "deposit", &sealed);
        let sent = responses(&[
            ("name", answer("Mallory")),
            ("deposit", json!({"action": "decline"})),
            ("unasked", json!({"action": "accept"})),
        ]);
        let resumed = sealer
            .resume("t", &known("d"), Some(&state), sent, false)
            .unwrap();
        assert_eq!(resumed.answers.len(), 2);
        assert_eq!(resumed.answers["name"], answer("Alan"));
        assert_eq!(resumed.answers["deposit"], json!({"action": "decline"}));
    }

    /// A single-use state issued for `client`.
    async fn issued(sealer: &StateSealer, client: Option<&str>) -> Result<String, IssueRefusal> {
        sealer
            .issue("t", "d", &["k"], &Map::new(), client, true)
            .await
    }

    fn ticket_of(sealer: &StateSealer, state: &str) -> StateTicket {
        sealer
            .resume("t", &known("d"), Some(state), None, false)
            .unwrap()
            .ticket
            .unwrap()
    }

    #[tokio::test]
    async fn a_state_is_spent_once_unless_replayable() {
        let sealer = StateSealer::new(None, Duration::from_secs(60), memory());
        let state = issued(&sealer, None).await.unwrap();
        let ticket = ticket_of(&sealer, &state);
        assert_eq!(sealer.spend(ticket.clone()).await, Ok(()));
        assert_eq!(
            sealer.spend(ticket.clone()).await,
            Err(SpendRefusal::AlreadyUsed)
        );
        // Another sealer on the same store (a replica) refuses it too.
        let replica = StateSealer {
            key: sealer.key,
            ..StateSealer::new(None, Duration::from_secs(60), Arc::clone(&sealer.store))
        };
        let again = replica
            .resume("t", &known("d"), Some(&state), None, false)
            .unwrap();
        assert_eq!(
            replica.spend(again.ticket.unwrap()).await,
            Err(SpendRefusal::AlreadyUsed)
        );
        let replayable = sealer
            .resume("t", &known("d"), Some(&state), None, true)
            .unwrap();
        assert!(
            replayable.ticket.is_none(),
            "a replayable tool spends nothing"
        );
    }

    #[tokio::test]
    async fn a_full_store_refuses_to_issue_never_to_answer() {
        let sealer = StateSealer::new(
            None,
            Duration::from_secs(60),
            Arc::new(MemoryStore::with_capacity(1)),
        );
        let first = issued(&sealer, None).await.unwrap();
        let Err(IssueRefusal::Store(StoreError::Full(wait))) = issued(&sealer, None).await else {
            panic!("a second state does not fit");
        };
        assert!(
            wait > Duration::from_secs(60),
            "kept past the state's expiry: {wait:?}"
        );
        // The state already issued is still answered, once.
        assert_eq!(sealer.spend(ticket_of(&sealer, &first)).await, Ok(()));
        assert_eq!(
            sealer.spend(ticket_of(&sealer, &first)).await,
            Err(SpendRefusal::AlreadyUsed)
        );
    }

    #[tokio::test]
    async fn a_state_issued_before_the_store_was_emptied_is_refused() {
        let key = Some([9; 32]);
        let ttl = Duration::from_secs(60);
        let before = StateSealer::new(key, ttl, memory());
        let state = issued(&before, None).await.unwrap();
        // The same key, a new (empty) store: a restarted process, or Redis
        // restarted without persistence.
        let after = StateSealer::new(key, ttl, memory());
        assert_eq!(
            after.spend(ticket_of(&after, &state)).await,
            Err(SpendRefusal::Unknown)
        );
        // Unsealed states were never issued: they are unknown too.
        let unsealed = before.seal("t", "d", "k", &Map::new());
        assert_eq!(
            before.spend(ticket_of(&before, &unsealed)).await,
            Err(SpendRefusal::Unknown)
        );
    }

    #[tokio::test]
    async fn each_client_has_its_quota_of_open_states() {
        let sealer = StateSealer::with_quota(None, Duration::from_secs(60), memory(), 2);
        for _ in 0..2 {
            issued(&sealer, Some("mallory")).await.unwrap();
        }
        let Err(IssueRefusal::Quota(wait)) = issued(&sealer, Some("mallory")).await else {
            panic!("over quota");
        };
        assert!(wait <= Duration::from_secs(60) && wait > Duration::from_secs(50));
        // Others are not affected, nor is stdio's one client.
        issued(&sealer, Some("alice")).await.unwrap();
        issued(&sealer, None).await.unwrap();
        // A replayable tool's state takes no place.
        sealer
            .issue("t", "d", &["k"], &Map::new(), Some("mallory"), false)
            .await
            .unwrap();
    }
}
