//! The bearer token on each request, and a request sent again after the
//! authorizer was asked for a better one (401, or 403 `insufficient_scope`).

use super::Shared;
use crate::error::ClientError;
use bytes::Bytes;
use http_body_util::Full;
use hyper::Request;
#[cfg(feature = "oauth")]
use hyper::{StatusCode, header::HeaderValue};

/// How many times one request is sent again after the authorizer was
/// asked for a better token: on 401 (a stored token, a refreshed one, a
/// new login), and on 403 `insufficient_scope` (step-up).
#[cfg(feature = "oauth")]
#[derive(Debug, Default)]
pub(super) struct AuthRetries {
    unauthorized: u8,
    step_ups: u8,
}

#[cfg(not(feature = "oauth"))]
pub(super) type AuthRetries = ();

/// The most 401s one request goes through before it fails.
#[cfg(feature = "oauth")]
const MAX_UNAUTHORIZED: u8 = 3;
/// The most step-ups one request asks for before it fails.
#[cfg(feature = "oauth")]
const MAX_STEP_UPS: u8 = 2;

/// The token a request carried.
#[cfg(feature = "oauth")]
pub(super) type SentToken = Option<crate::bearer::Secret>;
#[cfg(not(feature = "oauth"))]
pub(super) type SentToken = ();

impl Shared {
    /// Puts the authorizer's token on `request` (which always goes to the
    /// endpoint, on the resource's origin: checked at connect).
    #[cfg(feature = "oauth")]
    pub(super) async fn authorize(
        &self,
        request: &mut Request<Full<Bytes>>,
    ) -> Result<SentToken, ClientError> {
        let Some(authorizer) = &self.authorizer else {
            return Ok(None);
        };
        let token = authorizer.bearer().await?;
        if let Some(token) = &token {
            let mut value =
                HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
                    ClientError::Unauthorized {
                        server: self.name.clone(),
                        reason: "the access token is not valid in an HTTP header".into(),
                    }
                })?;
            value.set_sensitive(true);
            request
                .headers_mut()
                .insert(hyper::header::AUTHORIZATION, value);
        }
        Ok(token)
    }

    #[cfg(not(feature = "oauth"))]
    pub(super) async fn authorize(
        &self,
        _request: &mut Request<Full<Bytes>>,
    ) -> Result<SentToken, ClientError> {
        Ok(())
    }

    /// Whether `response` asks for authorization the authorizer can still
    /// give: it is then asked (a login may happen here) and the request
    /// is sent again.
    #[cfg(feature = "oauth")]
    pub(super) async fn reauthorize(
        &self,
        response: &hyper::Response<hyper::body::Incoming>,
        sent: SentToken,
        retries: &mut AuthRetries,
    ) -> Result<bool, ClientError> {
        let Some(authorizer) = &self.authorizer else {
            return Ok(false);
        };
        let status = response.status();
        if status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN {
            return Ok(false);
        }
        let challenge = crate::bearer::Challenge::from_headers(
            response
                .headers()
                .get_all(hyper::header::WWW_AUTHENTICATE)
                .iter()
                .filter_map(|v| v.to_str().ok()),
        );
        let refused = |reason: &str| ClientError::Unauthorized {
            server: self.name.clone(),
            reason: reason.to_owned(),
        };
        if status == StatusCode::UNAUTHORIZED {
            if retries.unauthorized >= MAX_UNAUTHORIZED {
                return Err(refused("it refused the token it was just given"));
            }
            retries.unauthorized += 1;
        } else if challenge.is_insufficient_scope() {
            if retries.step_ups >= MAX_STEP_UPS {
                return Err(refused(&format!(
                    "it still asks for more scope ({}) after {MAX_STEP_UPS} step-ups",
                    challenge.scope.as_deref().unwrap_or("unnamed")
                )));
            }
            retries.step_ups += 1;
        } else {
            return Ok(false);
        }
        authorizer.challenged(&challenge, sent.as_ref()).await?;
        Ok(true)
    }

    #[cfg(not(feature = "oauth"))]
    pub(super) async fn reauthorize(
        &self,
        _response: &hyper::Response<hyper::body::Incoming>,
        _sent: SentToken,
        _retries: &mut AuthRetries,
    ) -> Result<bool, ClientError> {
        Ok(false)
    }
}
