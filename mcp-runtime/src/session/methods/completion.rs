//! `completion/complete`: the completer found by reference
//! ([`crate::shared::Shared::completer`]), then run and answered from a
//! task of its own ([`crate::complete::run`]: it is the author's async fn).

use crate::complete::{self, CompletionContext};
use crate::protocol::model::{CompleteParams, CompleteResult};
use crate::protocol::outgoing::{self, Reply};
use crate::protocol::{ProtocolVersion, RpcError};
use crate::session::{Session, parse_params};
use serde_json::value::RawValue;
use std::sync::Arc;

/// Parses and checks request `id`'s params, then answers from a task.
pub(in crate::session) fn complete(
    session: &Session,
    id: &RawValue,
    version: ProtocolVersion,
    params: Option<&RawValue>,
) -> Result<(), RpcError> {
    let params: CompleteParams<'_> =
        parse_params(params, crate::protocol::model::method::COMPLETION_COMPLETE)?;
    let completer = session
        .shared
        .completer(&params.reference, &params.argument.name)?;
    let context = CompletionContext::new(
        params.argument.name,
        params.argument.value,
        params.context.map(|c| c.arguments).unwrap_or_default(),
    );
    let shared = Arc::clone(&session.shared);
    let connection = Arc::clone(&session.connection);
    let id = id.to_owned();
    tokio::spawn(async move {
        let frame = match complete::run(completer, context).await {
            Ok(completion) => {
                let result = CompleteResult {
                    completion,
                    meta: None,
                };
                Reply::new(&id, version, shared.identity.server_meta()).completion(&result)
            }
            Err(error) => outgoing::rpc_error(Some(&id), &error),
        };
        connection.send(frame);
    });
    Ok(())
}
