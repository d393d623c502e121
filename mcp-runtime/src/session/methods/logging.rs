//! `logging/setLevel` (legacy sessions; 2026-07-28 requests carry their
//! level in the envelope, see [`crate::session::era`]).

use crate::level::Level;
use crate::protocol::ProtocolVersion;
use crate::protocol::RpcError;
use crate::session::{Session, parse_params};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

impl Session {
    pub(in crate::session) fn set_level(
        &mut self,
        id: &RawValue,
        version: ProtocolVersion,
        params: Option<&RawValue>,
    ) -> Result<(), RpcError> {
        #[derive(Deserialize)]
        struct SetLevel<'a> {
            #[serde(borrow)]
            level: Cow<'a, str>,
        }
        let params: SetLevel<'_> = parse_params(params, "logging/setLevel")?;
        let level: Level =
            params
                .level
                .parse()
                .map_err(|message: crate::level::UnknownLevel| {
                    RpcError::invalid_params(format!("Invalid params: {message}"))
                })?;
        self.connection.set_log_level(level);
        self.connection.send(self.reply(id, version).empty());
        Ok(())
    }
}
