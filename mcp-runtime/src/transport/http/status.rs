//! The one mapping from a JSON-RPC error to the HTTP status of the response
//! that carries it. (The front door's own refusals, before any JSON-RPC is
//! read — Origin, path, media type, body size, bearer — have the statuses
//! HTTP gives them, in `checks.rs` and `auth/`.)

use crate::protocol::ErrorCode;
use crate::protocol::frame::FrameKind;
use hyper::StatusCode;

/// Where a POST's error was decided, which is part of what its status says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    /// Before the session routed it: the one parse of the body (its shape,
    /// its params) or the 2026-07-28 header ladder. The request as sent is
    /// refused: `400`, in either era.
    Refused,
    /// By the session of an `initialize`-era connection: JSON-RPC errors are
    /// `200` (a legacy client reads `404` as "session expired"), but a body
    /// that is not JSON-RPC.
    Legacy,
    /// By the session, for a 2026-07-28 request: the codes §8.3 fixes, else
    /// `200` (so a dual-era client never reads an ordinary error as "legacy
    /// server").
    Modern,
}

/// The status of an error response with `code`, decided at `stage`.
pub(super) fn status_of(code: ErrorCode, stage: Stage) -> StatusCode {
    let not_json_rpc = code == ErrorCode::PARSE_ERROR || code == ErrorCode::INVALID_REQUEST;
    match stage {
        Stage::Refused => StatusCode::BAD_REQUEST,
        Stage::Legacy if not_json_rpc => StatusCode::BAD_REQUEST,
        Stage::Legacy => StatusCode::OK,
        Stage::Modern if code == ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        Stage::Modern
            if not_json_rpc
                || code == ErrorCode::HEADER_MISMATCH
                || code == ErrorCode::MISSING_CLIENT_CAPABILITY
                || code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION =>
        {
            StatusCode::BAD_REQUEST
        }
        Stage::Modern => StatusCode::OK,
    }
}

/// The status of a JSON response of `kind` from the session of a legacy
/// connection (a result is `200`).
pub(super) fn legacy(kind: FrameKind) -> StatusCode {
    match kind {
        FrameKind::Error(code) => status_of(code, Stage::Legacy),
        _ => StatusCode::OK,
    }
}

/// The status of a JSON response of `kind` from the session, for a
/// 2026-07-28 request (a result is `200`).
pub(super) fn modern(kind: FrameKind) -> StatusCode {
    match kind {
        FrameKind::Error(code) => status_of(code, Stage::Modern),
        _ => StatusCode::OK,
    }
}

/// The status of any JSON response refused before the session routed it.
pub(super) fn refused(_: FrameKind) -> StatusCode {
    StatusCode::BAD_REQUEST
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_the_spec_for_json_responses() {
        assert_eq!(modern(FrameKind::Result), StatusCode::OK);
        let error = |code| FrameKind::Error(code);
        assert_eq!(
            modern(error(ErrorCode::METHOD_NOT_FOUND)),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            modern(error(ErrorCode::MISSING_CLIENT_CAPABILITY)),
            StatusCode::BAD_REQUEST
        );
        // An unknown tool is an ordinary error: 200.
        assert_eq!(modern(error(ErrorCode::INVALID_PARAMS)), StatusCode::OK);
    }

    #[test]
    fn legacy_errors_are_200_but_for_a_body_that_is_no_json_rpc() {
        let error = |code| FrameKind::Error(code);
        assert_eq!(legacy(error(ErrorCode::METHOD_NOT_FOUND)), StatusCode::OK);
        assert_eq!(legacy(error(ErrorCode::INVALID_PARAMS)), StatusCode::OK);
        assert_eq!(
            legacy(error(ErrorCode::PARSE_ERROR)),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            legacy(error(ErrorCode::INVALID_REQUEST)),
            StatusCode::BAD_REQUEST
        );
    }

    #[test]
    fn a_refusal_before_routing_is_400_whatever_its_code() {
        for code in [ErrorCode::INVALID_PARAMS, ErrorCode::HEADER_MISMATCH] {
            assert_eq!(status_of(code, Stage::Refused), StatusCode::BAD_REQUEST);
            assert_eq!(refused(FrameKind::Error(code)), StatusCode::BAD_REQUEST);
        }
    }
}
