//! The fuzz input is the bytes of a whole stdio session (client to server),
//! served by the real main loop: framing with a 4096-byte cap, the JSON-RPC
//! decoder, the dispatcher and tool tasks. See `mcp_fuzz::check` for the
//! invariants every session must keep.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcp_fuzz::fuzz_session(data);
});
