//! The behaviour every [`Store`] must have, as one check: the in-memory and
//! Redis stores run it in their tests, and a user's own store can too
//! ([`crate::testing::check_store`]).

use super::Store;
use std::time::Duration;
use tokio::sync::mpsc;

const MINUTE: Duration = Duration::from_secs(60);

/// Runs every operation of `store` on keys starting `contract:` and panics
/// at the first answer a [`Store`] must not give. The keys are left behind
/// with a one-minute TTL.
pub(crate) async fn check(store: &dyn Store) {
    let key = |name: &str| format!("contract:{name}");
    let (k, j) = (key("k"), key("j"));
    assert_eq!(store.get(&k).await, Ok(None), "a fresh key is absent");
    store.put(&k, b"a".to_vec(), MINUTE).await.unwrap();
    assert_eq!(store.get(&k).await, Ok(Some(b"a".to_vec())));
    assert_eq!(
        store.put_if_absent(&k, b"b".to_vec(), MINUTE).await,
        Ok(false),
        "put_if_absent keeps a present value"
    );
    assert_eq!(
        store.put_if_absent(&j, b"b".to_vec(), MINUTE).await,
        Ok(true)
    );
    assert_eq!(
        store.compare_and_set(&k, b"x", b"c".to_vec(), MINUTE).await,
        Ok(false),
        "compare_and_set with another expected value changes nothing"
    );
    assert_eq!(
        store.compare_and_set(&k, b"a", b"c".to_vec(), MINUTE).await,
        Ok(true)
    );
    assert_eq!(store.get(&k).await, Ok(Some(b"c".to_vec())));
    assert_eq!(
        store
            .compare_and_set(&key("absent"), b"", b"c".to_vec(), MINUTE)
            .await,
        Ok(false),
        "an absent key matches no expected value, not even an empty one"
    );
    assert_eq!(store.compare_and_delete(&k, b"a").await, Ok(false));
    assert_eq!(store.compare_and_delete(&k, b"c").await, Ok(true));
    assert_eq!(store.get(&k).await, Ok(None), "compare_and_delete deletes");
    assert_eq!(store.delete(&j).await, Ok(true));
    assert_eq!(
        store.delete(&j).await,
        Ok(false),
        "a second delete finds nothing"
    );
    // Bytes, not text: every byte value survives.
    let binary: Vec<u8> = (0..=255).collect();
    let bin = key("bin");
    store.put(&bin, binary.clone(), MINUTE).await.unwrap();
    assert_eq!(store.get(&bin).await, Ok(Some(binary.clone())));
    assert_eq!(
        store
            .compare_and_set(&bin, &binary, b"z".to_vec(), MINUTE)
            .await,
        Ok(true)
    );
    assert_eq!(store.get(&bin).await, Ok(Some(b"z".to_vec())));
    check_messages(store).await;
}

/// How long a published message may take to reach a listener.
const DELIVERY: Duration = Duration::from_secs(5);

/// `publish` reaches a listener of the channel, and only of that channel;
/// `listen` ends once its receiver is gone.
async fn check_messages(store: &dyn Store) {
    let (to, mut messages) = mpsc::channel(16);
    let (other, mut elsewhere) = mpsc::channel(16);
    let listening = async {
        let (a, b) = tokio::join!(
            store.listen("contract:channel", to),
            store.listen("contract:other", other)
        );
        assert_eq!(a, Ok(()), "listen ends with Ok once its receiver is gone");
        assert_eq!(b, Ok(()));
    };
    let talking = async {
        // A store may start listening after `listen` was first polled
        // (Redis subscribes over the network): publish until one arrives.
        let deadline = tokio::time::Instant::now() + DELIVERY;
        let received = loop {
            store
                .publish("contract:channel", vec![0, 255, b'm'])
                .await
                .expect("publish");
            let wait = tokio::time::timeout(Duration::from_millis(50), messages.recv()).await;
            if let Ok(received) = wait {
                break received;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no message published on the channel reached its listener within {DELIVERY:?}"
            );
        };
        assert_eq!(received, Some(vec![0, 255, b'm']), "bytes, as published");
        assert!(
            elsewhere.try_recv().is_err(),
            "a message reaches only its own channel's listeners"
        );
        drop(messages);
        drop(elsewhere);
    };
    let ((), ()) = tokio::time::timeout(DELIVERY * 2, async { tokio::join!(listening, talking) })
        .await
        .expect("listen ends once its receiver is dropped");
}
