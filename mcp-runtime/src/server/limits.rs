//! The builder's bounds: what one client, or all of them, can make the
//! server hold or spend (timeouts, run slots and queues, rates, message
//! and output sizes, the per-client quotas of request states, tasks,
//! handles and subscriptions). Defaults are in the parent module.

use super::Server;
use std::time::Duration;

impl Server {
    /// How many bytes of output a stdio (or [`Server::serve`]) connection
    /// may hold that the client has not read yet: 4 MiB by default. Past
    /// it, no more requests are read until the client reads, and the
    /// notifications running calls send (progress, log messages) are
    /// dropped and counted, with a warning in the log at most every ten
    /// seconds; responses and requests to the client are never dropped. A
    /// client that stops reading thus costs the server about this much,
    /// plus the responses of the calls already running. For HTTP event
    /// streams see `Server::max_sse_unwritten` (feature `http`).
    pub fn max_unwritten_output(mut self, bytes: usize) -> Server {
        self.max_unwritten_output = bytes;
        self
    }

    /// Ends calls that run longer than `timeout` with an `isError` result
    /// ("timed out after …"). Off by default; `#[tool(timeout = "…")]`
    /// overrides it per tool.
    pub fn call_timeout(mut self, timeout: Duration) -> Server {
        self.call_timeout = Some(timeout);
        self
    }

    /// How many calls run at once (256 by default); more wait for a slot, up to [`Server::max_pending_calls`] of them and
    /// each at most [`Server::queue_timeout`].
    pub fn max_concurrent_calls(mut self, calls: usize) -> Server {
        self.max_concurrent_calls = calls;
        self
    }

    /// How many run slots one client may hold at once (64 by default, a
    /// quarter of [`Server::max_concurrent_calls`]; at most that many): its
    /// further calls wait for one of its own slots (at most
    /// [`Server::queue_timeout`]), so a client holding long calls leaves
    /// the others their share. Over HTTP a client is the token's subject
    /// with authorization, else the peer's IP address; stdio serves one
    /// client and is not limited by this.
    pub fn max_concurrent_calls_per_client(mut self, calls: usize) -> Server {
        self.max_concurrent_calls_per_client = calls;
        self
    }

    /// How many calls may be in flight, running or waiting (65,536 by
    /// default); beyond it calls are refused with an
    /// `isError` result saying the server is busy. Over HTTP it also bounds
    /// the requests being answered at once, across all connections (more
    /// get `503` with `Retry-After`).
    pub fn max_pending_calls(mut self, calls: usize) -> Server {
        self.max_pending_calls = calls;
        self
    }

    /// How long a call may wait for a run slot (30 s by default, under the
    /// 60 s after which common clients give up) before it is answered with an `isError` result saying the
    /// server was busy for that long and to retry: calls that never end
    /// (say, tools stuck on an unanswered question) must not make every
    /// later call wait forever.
    pub fn queue_timeout(mut self, timeout: Duration) -> Server {
        self.queue_timeout = timeout;
        self
    }

    /// Rate-limits tool calls to `per_second` sustained with bursts of `burst`
    /// (by default 1,000 calls per second with bursts of 2,000), for each
    /// client: over HTTP the token's subject with authorization, else the
    /// peer's IP address, each with a bucket of its own, so one client
    /// spending its calls never spends another's; stdio's one client has
    /// one bucket. Calls over the limit get an `isError` result saying when
    /// to retry.
    pub fn rate_limit(mut self, per_second: u32, burst: u32) -> Server {
        self.rate_limit = Some((per_second, burst));
        self
    }

    /// Turns the rate limit off (for benchmarks and trusted local clients).
    pub fn no_rate_limit(mut self) -> Server {
        self.rate_limit = None;
        self
    }

    /// How long calls in flight may finish once input ends (30 s by
    /// default), their responses written included. Calls still running a
    /// tenth of it before the end (at most 250 ms before) are cancelled with
    /// an error response, which the rest of the time is left to write.
    pub fn drain_timeout(mut self, timeout: Duration) -> Server {
        self.drain_timeout = timeout;
        self
    }

    /// The largest message accepted, in bytes; longer lines are answered with
    /// an error and discarded. 8 MiB by default.
    pub fn max_message_size(mut self, bytes: usize) -> Server {
        self.max_message_size = bytes;
        self
    }

    /// How many entries the default in-memory store holds (10,000 by
    /// default): the single-use 2026-07-28 `requestState`s the server has
    /// issued and not yet seen expire (open or answered, to accept each
    /// once), and the values behind [`Handles`](crate::Handles). Each is
    /// kept until its state expires (plus a minute, for replicas' clocks).
    /// When the store is full and nothing has expired, a tool that asks for
    /// input gets an `isError` result saying the server cannot take more
    /// input requests and when to retry; answers to rounds already issued
    /// are always taken, and a used state is never forgotten early, as that
    /// would let it be replayed. No effect with a [`Server::store`] of your
    /// own.
    pub fn max_spent_request_states(mut self, states: usize) -> Server {
        self.max_spent_request_states = states;
        self
    }

    /// How many single-use 2026-07-28 input requests one client may have
    /// open (issued within [`Server::input_request_ttl`]) at once: 1,000
    /// by default, a tenth of the default store. A tool that asks for input
    /// past it gets an `isError` result saying so and when to retry, so one
    /// client cannot fill the store that every client's answers need. Over
    /// HTTP a client is the token's subject with authorization, else the
    /// peer's IP address; stdio serves one client and is not limited.
    pub fn max_open_request_states_per_client(mut self, states: usize) -> Server {
        self.max_open_request_states_per_client = states;
        self
    }

    /// How many tasks one client may make within a task TTL (default
    /// 100): the store holds every live task, so one client must not fill
    /// it. Counted per replica, like the other per-client quotas; a call
    /// over it is answered with an `isError` result saying when to retry.
    pub fn max_tasks_per_client(mut self, tasks: usize) -> Server {
        self.max_tasks_per_client = tasks.max(1);
        self
    }

    /// How many [`Handles`](crate::Handles) one client may create within
    /// their lifetime (1,000 by default, a tenth of the default store): past
    /// it, `Handles::create` fails with an error saying when to retry, so one
    /// client cannot fill the store that every client's handles and input
    /// requests need. Over HTTP a client is the token's subject with
    /// authorization, else the peer's IP address; stdio serves one client
    /// and is not limited.
    pub fn max_handles_per_client(mut self, handles: usize) -> Server {
        self.max_handles_per_client = handles;
        self
    }

    /// How many resources one client may subscribe to (1,000 by default):
    /// in a legacy session (`resources/subscribe`; one more is refused with
    /// `-32602` naming the limit), or on one 2026-07-28
    /// `subscriptions/listen` stream (a longer `resourceSubscriptions` list
    /// is refused the same way). A session is bounded by
    /// `Server::max_legacy_sessions_per_client` (HTTP), so a client's
    /// subscriptions are too.
    pub fn max_resource_subscriptions(mut self, resources: usize) -> Server {
        self.max_resource_subscriptions = resources;
        self
    }
}
