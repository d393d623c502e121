//! Opaque handles for stateful tools.
//!
//! There is no protocol session in the 2026-07-28 era, so a tool that keeps
//! state between calls hands the model a handle and takes it back as an
//! ordinary argument. The specification's guidance, which this follows:
//! unguessable ids (128 random bits, UUIDv4 strength), a bounded lifetime,
//! an authorization check on every use, and expiry reported as a tool error
//! that tells the model how to recover.
//!
//! The values live in the server's [`Store`](crate::store::Store) (reached
//! through the call's [`Context`]), serialized as JSON with their owner, so
//! replicas sharing a store share the handles.

use crate::context::Context;
use crate::outcome::ToolError;
use crate::util::human_duration;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

/// How many handles one client may create within their lifetime by
/// default (`Server::max_handles_per_client`): a tenth of the default store.
pub(crate) const DEFAULT_HANDLES_PER_CLIENT: usize = 1_000;

/// How many times an update is tried when other calls change the same value
/// between its read and its write (and a new id drawn, were one taken).
const UPDATE_ATTEMPTS: u32 = 16;

/// Waits before attempt `attempt` (from 1) of a contended update: a random
/// delay, doubling up to 32 ms, so writers that collided (on this server or
/// on replicas) do not collide again in lockstep.
async fn back_off(attempt: u32) {
    let mut random = [0u8; 2];
    // Without randomness, the full step is still a back-off.
    let jitter = getrandom::fill(&mut random).map_or(u16::MAX, |()| u16::from_le_bytes(random));
    let ceiling_us = 1_000u64 << attempt.min(5);
    let wait_us = ceiling_us * u64::from(jitter) / u64::from(u16::MAX);
    tokio::time::sleep(Duration::from_micros(wait_us)).await;
}

/// Values behind opaque, expiring handles, kept in the server's store
/// ([`Server::store`](crate::Server::store)): in memory by default, shared
/// by replicas with a shared store. Clone it freely; put it in
/// [`State`](crate::State) to share it between tools.
///
/// Every operation takes the call's [`Context`]: it reaches the store
/// through it, and binds each handle to the caller. On HTTP with
/// authorization the owner is the verified principal's subject
/// ([`Context::principal`]), and another caller's handle gets the same
/// "unknown or expired" error as one that never existed (which does not
/// reveal that it does). Where there is no principal (stdio), handles are
/// the process's client's; [`Handles::owned_by`] names an owner instead.
///
/// A value's lifetime is renewed each time it is used. Updates are
/// compare-and-set on the store, retried on conflict, so two replicas
/// changing one value lose neither change. While the store fails, each
/// operation returns an error starting "state store unavailable".
///
/// ```
/// use mcpfn_runtime::{Context, Handles};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcpfn_runtime::ToolError> {
/// let baskets: Handles<Vec<String>> = Handles::new("basket", "create_basket", Duration::from_secs(3600));
/// let ctx = Context::for_test();
/// let id = baskets.create(&ctx, Vec::new()).await?;
/// baskets.update(&ctx, &id, |basket| basket.push("apple".into())).await?;
/// assert_eq!(baskets.get(&ctx, &id).await?, ["apple"]);
/// let err = baskets.get(&ctx, "basket_0000").await.unwrap_err();
/// assert!(err.message().contains("call `create_basket`"));
/// # Ok(())
/// # }
/// ```
pub struct Handles<T> {
    kind: Arc<str>,
    creator: Arc<str>,
    ttl: Duration,
    /// Set by [`Handles::owned_by`]; else the caller's principal.
    owner: Option<Arc<str>>,
    values: PhantomData<fn(T) -> T>,
}

impl<T> Clone for Handles<T> {
    fn clone(&self) -> Self {
        Handles {
            kind: Arc::clone(&self.kind),
            creator: Arc::clone(&self.creator),
            ttl: self.ttl,
            owner: self.owner.clone(),
            values: PhantomData,
        }
    }
}

impl<T> fmt::Debug for Handles<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handles")
            .field("kind", &self.kind)
            .field("creator", &self.creator)
            .field("ttl", &self.ttl)
            .field("owner", &self.owner)
            .finish()
    }
}

/// What the store holds for a handle.
#[derive(Serialize, Deserialize)]
struct Entry<V> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
    value: V,
}

impl<T: Serialize + DeserializeOwned> Handles<T> {
    /// Handles of `kind` (the id's prefix, e.g. `basket`), made by the tool
    /// `creator` (named in expiry messages), each valid for `ttl` after its
    /// last use.
    pub fn new(kind: &str, creator: &str, ttl: Duration) -> Handles<T> {
        Handles {
            kind: kind.into(),
            creator: creator.into(),
            ttl,
            owner: None,
            values: PhantomData,
        }
    }

    /// These handles for `owner` whoever the caller is: the same values,
    /// bound to an owner the application chose instead of the caller's
    /// principal (e.g. a user known from the tool's own login, over stdio).
    ///
    /// ```
    /// use mcpfn_runtime::{Context, Handles};
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let notes: Handles<String> = Handles::new("note", "new_note", Duration::from_secs(60));
    /// let ctx = Context::for_test();
    /// let id = notes.owned_by("alice").create(&ctx, "hi".into()).await.unwrap();
    /// assert_eq!(notes.owned_by("alice").get(&ctx, &id).await.unwrap(), "hi");
    /// assert!(notes.owned_by("bob").get(&ctx, &id).await.is_err());
    /// # }
    /// ```
    #[must_use]
    pub fn owned_by(&self, owner: &str) -> Handles<T> {
        Handles {
            owner: Some(owner.into()),
            ..self.clone()
        }
    }

    /// Stores `value` for the caller and returns its new handle.
    pub async fn create(&self, ctx: &Context, value: T) -> Result<String, ToolError> {
        let bytes = self.encode(&Entry {
            owner: self.owner(ctx),
            value: &value,
        })?;
        // One client's handles take at most its share of the store.
        let place = match ctx.handle_quota() {
            (quota, Some(client)) => Some(quota.admit(client, self.ttl).map_err(|wait| {
                ToolError::new(format!(
                    "this client already holds as many {} handles as the server allows; \
                     remove some or retry in {}",
                    self.kind,
                    human_duration(wait)
                ))
            })?),
            (_, None) => None,
        };
        for _ in 0..UPDATE_ATTEMPTS {
            let id = self.new_id();
            // Set only if absent: a collision of 128 random bits will not
            // happen, but if it did it must not hand over another's value.
            let stored = ctx
                .store()
                .put_if_absent(&key(&id), bytes.clone(), self.ttl)
                .await;
            match stored {
                Ok(true) => return Ok(id),
                Ok(false) => {}
                Err(err) => {
                    if let Some(place) = place {
                        place.release();
                    }
                    return Err(err.into());
                }
            }
        }
        Err(ToolError::new(format!(
            "the state store refused {UPDATE_ATTEMPTS} new {} handles in a row; retry the call",
            self.kind
        )))
    }

    /// A copy of the value behind `id`; renews its lifetime.
    pub async fn get(&self, ctx: &Context, id: &str) -> Result<T, ToolError> {
        let (bytes, value) = self.read(ctx, id).await?;
        // Renewal rewrites the same bytes only if nobody changed them
        // meanwhile; a change renewed the value anyway.
        ctx.store()
            .compare_and_set(&key(id), &bytes, bytes.clone(), self.ttl)
            .await?;
        Ok(value)
    }

    /// Runs `f` on the value behind `id`, stores the result and renews its
    /// lifetime; returns what `f` returned. When another call changed the
    /// value meanwhile (on this server or a replica), `f` runs again on the
    /// new value, so `f` should only compute from its argument.
    pub async fn update<R>(
        &self,
        ctx: &Context,
        id: &str,
        mut f: impl FnMut(&mut T) -> R,
    ) -> Result<R, ToolError> {
        for attempt in 0..UPDATE_ATTEMPTS {
            if attempt > 0 {
                back_off(attempt).await;
            }
            let (bytes, mut value) = self.read(ctx, id).await?;
            let result = f(&mut value);
            let updated = self.encode(&Entry {
                owner: self.owner(ctx),
                value: &value,
            })?;
            if ctx
                .store()
                .compare_and_set(&key(id), &bytes, updated, self.ttl)
                .await?
            {
                return Ok(result);
            }
        }
        Err(ToolError::new(format!(
            "the {} handle {id:?} was changed by other calls {UPDATE_ATTEMPTS} times while \
             this one tried to change it; retry the call",
            self.kind
        )))
    }

    /// Removes the value behind `id` and returns it; the handle is unknown
    /// from then on.
    pub async fn remove(&self, ctx: &Context, id: &str) -> Result<T, ToolError> {
        for attempt in 0..UPDATE_ATTEMPTS {
            if attempt > 0 {
                back_off(attempt).await;
            }
            let (bytes, value) = self.read(ctx, id).await?;
            // Removed only as read: a change that lands meanwhile is not
            // lost with a stale copy returned.
            if ctx.store().compare_and_delete(&key(id), &bytes).await? {
                return Ok(value);
            }
        }
        Err(ToolError::new(format!(
            "the {} handle {id:?} was changed by other calls {UPDATE_ATTEMPTS} times while \
             this one tried to remove it; retry the call",
            self.kind
        )))
    }

    /// The stored bytes and value of the caller's `id`.
    async fn read(&self, ctx: &Context, id: &str) -> Result<(Vec<u8>, T), ToolError> {
        // Ids are made here; anything else cannot name a value (and must
        // not reach into the store's other keys).
        if !self.is_id(id) {
            return Err(self.unknown(id));
        }
        let Some(bytes) = ctx.store().get(&key(id)).await? else {
            return Err(self.unknown(id));
        };
        let entry: Entry<T> = serde_json::from_slice(&bytes).map_err(|err| {
            ToolError::new(format!(
                "the {} handle {id:?} holds a value this server cannot read ({err}); \
                 call `{}` to get a new one",
                self.kind, self.creator
            ))
        })?;
        if entry.owner != self.owner(ctx) {
            return Err(self.unknown(id));
        }
        Ok((bytes, entry.value))
    }

    /// Who owns the handles this caller makes and may use.
    fn owner(&self, ctx: &Context) -> Option<String> {
        match &self.owner {
            Some(owner) => Some(owner.to_string()),
            None => ctx.principal().map(|p| p.subject().to_owned()),
        }
    }

    fn encode(&self, entry: &Entry<&T>) -> Result<Vec<u8>, ToolError> {
        serde_json::to_vec(entry).map_err(|err| {
            ToolError::new(format!(
                "the {} value cannot be stored as JSON: {err}",
                self.kind
            ))
        })
    }

    fn new_id(&self) -> String {
        let mut random = [0u8; 16];
        // Guessable handles would let one caller reach another's state.
        getrandom::fill(&mut random).expect("the operating system provides randomness");
        let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
        format!("{}_{hex}", self.kind)
    }

    fn is_id(&self, id: &str) -> bool {
        id.strip_prefix(&*self.kind)
            .and_then(|rest| rest.strip_prefix('_'))
            .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
    }

    fn unknown(&self, id: &str) -> ToolError {
        ToolError::new(format!(
            "unknown or expired {kind} handle {id:?} ({kind} handles expire {} after their \
             last use); call `{}` to get a new one",
            human_duration(self.ttl),
            self.creator,
            kind = self.kind,
        ))
    }
}

/// The store key of handle `id` (whose kind is its prefix).
fn key(id: &str) -> String {
    format!("handle:{id}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::principal::Principal;
    use crate::store::{MemoryStore, Store, StoreError, StoreFuture};

    #[tokio::test]
    async fn handles_are_random_renewed_and_expire() {
        // Three uses 0.7 s apart outlast the 2 s a handle has without one,
        // however slow the machine; only a stall of 1.3 s between two uses
        // (not 40 ms, as with 80 ms and 40 ms) could expire it in between.
        let handles: Handles<u32> = Handles::new("cart", "new_cart", Duration::from_secs(2));
        let ctx = Context::for_test();
        let a = handles.create(&ctx, 1).await.unwrap();
        let b = handles.create(&ctx, 2).await.unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("cart_") && a.len() == "cart_".len() + 32);
        assert_eq!(handles.update(&ctx, &a, |v| *v += 10).await, Ok(()));
        assert_eq!(handles.get(&ctx, &a).await, Ok(11));
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(700));
            handles.get(&ctx, &a).await.expect("renewed by use");
        }
        let expired = handles.get(&ctx, &b).await.unwrap_err();
        assert!(expired.message().contains("expired"), "{expired}");
        assert!(expired.message().contains("`new_cart`"), "{expired}");
        assert_eq!(handles.remove(&ctx, &a).await, Ok(11));
        let gone = handles.get(&ctx, &a).await.unwrap_err();
        assert!(
            gone.message().starts_with("unknown or expired cart handle"),
            "{gone}"
        );
        let other_kind: Handles<u32> = Handles::new("bag", "new_bag", Duration::from_secs(1));
        assert!(other_kind.get(&ctx, &b).await.is_err(), "kinds do not mix");
    }

    /// A context whose connection carries `subject` as its principal.
    fn as_caller(subject: Option<&str>, store: &MemoryStore) -> Context {
        let principal = subject.map(|s| Principal::new(s, ["cart"], Default::default()));
        Context::test_builder()
            .store(store.clone())
            .test_principal(principal)
            .build()
            .0
    }

    #[tokio::test]
    async fn another_callers_handle_is_unknown() {
        let store = MemoryStore::new();
        let handles: Handles<u32> = Handles::new("cart", "new_cart", Duration::from_secs(60));
        let alice = as_caller(Some("alice"), &store);
        let id = handles.create(&alice, 3).await.unwrap();
        assert_eq!(handles.get(&alice, &id).await, Ok(3));
        let unknown = handles.get(&alice, "cart_0123").await.unwrap_err();
        for stranger in [as_caller(Some("bob"), &store), as_caller(None, &store)] {
            let err = handles.get(&stranger, &id).await.unwrap_err();
            assert_eq!(
                err.message().replace(&id, "ID"),
                unknown.message().replace("cart_0123", "ID"),
                "the same answer as for a handle that never existed"
            );
            assert!(handles.update(&stranger, &id, |v| *v = 0).await.is_err());
            assert!(handles.remove(&stranger, &id).await.is_err());
        }
        assert_eq!(handles.remove(&alice, &id).await, Ok(3), "untouched");
        // An explicit owner replaces the principal.
        let carol = handles.owned_by("carol").create(&alice, 5).await.unwrap();
        assert!(handles.get(&alice, &carol).await.is_err());
        assert_eq!(handles.owned_by("carol").get(&alice, &carol).await, Ok(5));
    }

    #[tokio::test]
    async fn concurrent_updates_are_not_lost() {
        let store = MemoryStore::new();
        let handles: Handles<Vec<u32>> = Handles::new("list", "new_list", Duration::from_secs(60));
        let ctx = Context::test_builder().store(store.clone()).build().0;
        let id = handles.create(&ctx, Vec::new()).await.unwrap();
        let mut runs = 0;
        let result = handles
            .update(&ctx, &id, |list| {
                runs += 1;
                if runs == 1 {
                    // Another replica's write lands between this update's
                    // read and its write.
                    let other = serde_json::to_vec(&serde_json::json!({"value": [1]})).unwrap();
                    ready(store.put(&key(&id), other, Duration::from_secs(60))).unwrap();
                }
                list.push(2);
                list.len()
            })
            .await;
        assert_eq!(result, Ok(2), "run again on the new value");
        assert_eq!(runs, 2);
        assert_eq!(handles.get(&ctx, &id).await, Ok(vec![1, 2]));
    }

    /// The output of a memory store's future, which is ready at once.
    fn ready<T>(future: impl std::future::Future<Output = T>) -> T {
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(value) => value,
            std::task::Poll::Pending => panic!("the memory store answers at once"),
        }
    }

    /// A store that is down.
    #[derive(Debug)]
    struct Down;

    impl Store for Down {
        fn put<'a>(&'a self, _: &'a str, _: Vec<u8>, _: Duration) -> StoreFuture<'a, ()> {
            Box::pin(async { Err(StoreError::unavailable("down")) })
        }
        fn get<'a>(&'a self, _: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
            Box::pin(async { Err(StoreError::unavailable("down")) })
        }
        fn delete<'a>(&'a self, _: &'a str) -> StoreFuture<'a, bool> {
            Box::pin(async { Err(StoreError::unavailable("down")) })
        }
        fn put_if_absent<'a>(
            &'a self,
            _: &'a str,
            _: Vec<u8>,
            _: Duration,
        ) -> StoreFuture<'a, bool> {
            Box::pin(async { Err(StoreError::unavailable("down")) })
        }
        fn compare_and_set<'a>(
            &'a self,
            _: &'a str,
            _: &'a [u8],
            _: Vec<u8>,
            _: Duration,
        ) -> StoreFuture<'a, bool> {
            Box::pin(async { Err(StoreError::unavailable("down")) })
        }
        fn compare_and_delete<'a>(&'a self, _: &'a str, _: &'a [u8]) -> StoreFuture<'a, bool> {
            Box::pin(async { Err(StoreError::unavailable("down")) })
        }
        fn publish<'a>(&'a self, _: &'a str, _: Vec<u8>) -> StoreFuture<'a, ()> {
            Box::pin(async { Err(StoreError::unavailable("down")) })
        }
        fn listen<'a>(
            &'a self,
            _: &'a str,
            to: tokio::sync::mpsc::Sender<Vec<u8>>,
        ) -> StoreFuture<'a, ()> {
            // Down for good: nothing ever arrives.
            Box::pin(async move {
                to.closed().await;
                Ok(())
            })
        }
    }

    #[tokio::test]
    async fn a_store_failure_is_a_clear_tool_error() {
        let handles: Handles<u32> = Handles::new("cart", "new_cart", Duration::from_secs(60));
        let ctx = Context::test_builder().store(Down).build().0;
        let err = handles.create(&ctx, 1).await.unwrap_err();
        assert_eq!(err.message(), "state store unavailable: down");
        let id = format!("cart_{}", "0".repeat(32));
        let err = handles.get(&ctx, &id).await.unwrap_err();
        assert!(
            err.message().starts_with("state store unavailable"),
            "{err}"
        );
    }
}
