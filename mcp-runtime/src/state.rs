//! Application state shared with tools: registered once with
//! [`Server::state`](crate::Server::state), asked for as a `State<T>` parameter.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A shared value of type `T` registered on the server. As a `#[tool]`
/// parameter it is injected, not an argument, and never appears in the
/// inputSchema. A tool that asks for a `State<T>` that was never registered
/// stops the server at startup, not at call time.
///
/// ```
/// use mcpfn_runtime::{Server, State, tool, tools};
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// struct Counter {
///     hits: AtomicU64,
/// }
///
/// /// Count calls.
/// #[tool]
/// async fn hit(counter: State<Counter>) -> String {
///     (counter.hits.fetch_add(1, Ordering::Relaxed) + 1).to_string()
/// }
///
/// let server = Server::new("count", "1")
///     .state(Counter { hits: AtomicU64::new(0) })
///     .tools(tools![hit]);
/// # let _ = server;
/// ```
///
/// `State<T>` derefs to `T`: a `State<Mutex<Notes>>` is locked with
/// `notes.lock()`. Its `Arc` is private ([`State::into_arc`] hands it out)
/// so that a method call reaches `T`'s method, never the `Arc`'s.
pub struct State<T: ?Sized>(Arc<T>);

impl<T> State<T> {
    /// Wraps `value`, as the server does for a registered state: for
    /// calling a tool fn that takes a `State<T>` directly, in a unit test.
    ///
    /// ```
    /// use mcpfn_runtime::{State, tool};
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// struct Counter {
    ///     hits: AtomicU64,
    /// }
    ///
    /// /// Count calls.
    /// #[tool]
    /// async fn hit(counter: State<Counter>) -> String {
    ///     (counter.hits.fetch_add(1, Ordering::Relaxed) + 1).to_string()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let counter = State::new(Counter { hits: AtomicU64::new(0) });
    /// assert_eq!(hit(counter.clone()).await, "1");
    /// assert_eq!(hit(counter.clone()).await, "2");
    /// assert_eq!(counter.hits.load(Ordering::Relaxed), 2);
    /// # }
    /// ```
    pub fn new(value: T) -> State<T> {
        State(Arc::new(value))
    }
}

impl<T: ?Sized> State<T> {
    /// A state over a value already shared elsewhere (the same `Arc` a
    /// test or another part of the program holds).
    pub fn from_arc(value: Arc<T>) -> State<T> {
        State(value)
    }

    /// The shared value, to keep beyond the call (move it into a spawned
    /// task) or to compare with [`Arc::ptr_eq`].
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized> From<Arc<T>> for State<T> {
    fn from(value: Arc<T>) -> State<T> {
        State(value)
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// Registered states by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap {
    /// Each value is the `State<T>` of its `T`: reading it back needs only
    /// `T: 'static` (see [`StateMap::get`]).
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateMap")
            .field("len", &self.values.len())
            .finish()
    }
}

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.values
            .insert(TypeId::of::<T>(), Arc::new(State::new(value)));
    }

    pub(crate) fn contains(&self, type_id: TypeId) -> bool {
        self.values.contains_key(&type_id)
    }

    /// Only `Send + Sync` values are inserted, so `T` needs no such bound
    /// here: without one, the `#[tool]` glue that calls this through
    /// `__private::state` adds no error of its own when a `State<T>`
    /// parameter's `T` is not `Sync` (that is `__private::SharedState`'s one
    /// error).
    pub(crate) fn get<T: 'static>(&self) -> Option<State<T>> {
        let value = self.values.get(&TypeId::of::<T>())?;
        value.downcast_ref::<State<T>>().cloned()
    }
}

/// A state type a tool needs, checked at startup.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StateRequirement {
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
}
