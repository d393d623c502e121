//! `completion/complete`: the completer found by reference
//! ([`crate::prompt::complete::find`]), run on a task of its own (it is
//! the author's async fn), its values capped at 100 with `total` and
//! `hasMore`.

use crate::prompt::CompletionContext;
use crate::prompt::complete;
use crate::protocol::model::{CompleteParams, CompleteResult, Completion};
use crate::protocol::outgoing::{self, Reply};
use crate::protocol::{ProtocolVersion, RpcError};
use crate::session::{Session, parse_params};
use crate::util::human_duration;
use serde_json::value::RawValue;
use std::time::Duration;

/// How long a completer may take by default: completions are asked for
/// as the user types, so an answer later than this is of no use.
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(10);

/// Parses and checks request `id`'s params, then answers from a task.
pub(in crate::session) fn complete(
    session: &Session,
    id: &RawValue,
    version: ProtocolVersion,
    params: Option<&RawValue>,
) -> Result<(), RpcError> {
    let params: CompleteParams<'_> =
        parse_params(params, crate::protocol::model::method::COMPLETION_COMPLETE)?;
    let completer = complete::find(&session.shared, &params.reference, &params.argument.name)?;
    let shared = std::sync::Arc::clone(&session.shared);
    let connection = std::sync::Arc::clone(&session.connection);
    let id = id.to_owned();
    let context = CompletionContext::new(
        params.argument.name,
        params.argument.value,
        params.context.map(|c| c.arguments).unwrap_or_default(),
    );
    tokio::spawn(async move {
        let values = match completer {
            None => Ok(Vec::new()),
            Some(completer) => tokio::time::timeout(COMPLETION_TIMEOUT, completer(context))
                .await
                .map_err(|_| {
                    RpcError::internal_error(format!(
                        "The completer did not answer within {}",
                        human_duration(COMPLETION_TIMEOUT)
                    ))
                }),
        };
        let frame = match values {
            Ok(values) => {
                let result = CompleteResult {
                    completion: Completion::capped(values),
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
