//! The decoder and dispatcher on one message: the first byte picks how the
//! rest is read (see `mcp_fuzz::generate::decode_input`): arbitrary bytes as
//! a single line after a fixed `initialize` prelude, as the first line of a
//! fresh connection, as a last line without a newline, or as the choices of a
//! structure-aware generator of MCP messages.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcp_fuzz::fuzz_decode(data);
});
