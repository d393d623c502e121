//! [`JwtVerifier`]: bearer tokens that are JWTs signed by the authorization
//! server (RS256 or ES256), checked against its [`Jwks`].

use super::jwks::Jwks;
use super::verifier::{Bearer, Rejection, TokenVerifier, VerifyFuture};
use crate::principal::Principal;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};
use std::time::Duration;

/// The clock skew allowed on `exp` and `nbf` by default: 30 s.
const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// Verifies JWT access tokens (RFC 9068 style) on
/// [`jsonwebtoken`](https://docs.rs/jsonwebtoken) with its RustCrypto
/// backend.
///
/// A token is accepted when: its header's `alg` is RS256 or ES256 (never
/// `none` or a shared-secret algorithm) and its signature verifies with a
/// key of the [`Jwks`] (the one its `kid` names); `iss` is the trusted
/// issuer; `aud` is the server's canonical URI, or an array containing it
/// (RFC 8707: a token for another resource is refused); `exp` is in the
/// future and `nbf`, if present, in the past, give or take the leeway; and
/// `sub` is a string that is not empty or only whitespace (one subject
/// shared by every token without one would share their sessions and
/// handles). Keys a token header carries (`jwk`, `jku`) are
/// ignored.
///
/// The [`Principal`]: `sub`; the scopes of `scope` (space-separated, RFC
/// 8693/9068) or else `scp` (an array or a space-separated string, as some
/// providers send); every claim.
#[derive(Debug)]
pub struct JwtVerifier {
    jwks: Jwks,
    issuer: String,
    audience: String,
    leeway: Duration,
}

impl JwtVerifier {
    /// Accepts tokens signed with a key of `jwks`, issued by `issuer` (the
    /// exact `iss`) for `audience` (this server's canonical URI, the same
    /// one given to [`Auth::new`](super::Auth::new)).
    pub fn new(jwks: Jwks, issuer: impl Into<String>, audience: impl Into<String>) -> JwtVerifier {
        JwtVerifier {
            jwks,
            issuer: issuer.into(),
            audience: audience.into(),
            leeway: DEFAULT_LEEWAY,
        }
    }

    /// The clock skew allowed on `exp` and `nbf` (30 s by default; whole
    /// seconds).
    pub fn leeway(mut self, leeway: Duration) -> JwtVerifier {
        self.leeway = leeway;
        self
    }

    async fn check(&self, token: &str) -> Result<Principal, Rejection> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| Rejection::Malformed)?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(Rejection::BadSignature);
        }
        let keys = self
            .jwks
            .keys_for(header.kid.as_deref(), header.alg)
            .await?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let mut last = Rejection::UnknownKey;
        for key in keys {
            match jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation) {
                Ok(data) => return principal(data.claims),
                Err(err) => {
                    last = rejection(err.kind());
                    // Only another key can fix a signature (a token without
                    // `kid` is tried with each key for its algorithm).
                    if last != Rejection::BadSignature {
                        break;
                    }
                }
            }
        }
        Err(last)
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, bearer: Bearer<'a>) -> VerifyFuture<'a> {
        Box::pin(self.check(bearer.token()))
    }
}

/// The rejection for one of jsonwebtoken's errors.
fn rejection(kind: &ErrorKind) -> Rejection {
    match kind {
        ErrorKind::InvalidSignature | ErrorKind::InvalidAlgorithm => Rejection::BadSignature,
        ErrorKind::ExpiredSignature => Rejection::Expired,
        ErrorKind::ImmatureSignature => Rejection::NotYetValid,
        ErrorKind::InvalidIssuer => Rejection::WrongIssuer,
        ErrorKind::InvalidAudience => Rejection::WrongAudience,
        ErrorKind::MissingRequiredClaim(claim) | ErrorKind::InvalidClaimFormat(claim) => {
            Rejection::MissingClaim(claim.clone())
        }
        ErrorKind::InvalidEcdsaKey | ErrorKind::InvalidRsaKey(_) | ErrorKind::InvalidKeyFormat => {
            Rejection::Invalid("the signing key cannot verify it".to_owned())
        }
        _ => Rejection::Malformed,
    }
}

/// The principal of verified claims: `sub`, the scopes, every claim.
fn principal(claims: Map<String, Value>) -> Result<Principal, Rejection> {
    let Some(Value::String(subject)) = claims.get("sub") else {
        return Err(Rejection::MissingClaim("sub".to_owned()));
    };
    if subject.trim().is_empty() {
        return Err(Rejection::Invalid(super::EMPTY_SUBJECT.to_owned()));
    }
    let subject = subject.clone();
    let scopes = scopes(&claims);
    Ok(Principal::new(subject, scopes, claims))
}

/// `scope` (space-separated), else `scp` (array or space-separated).
fn scopes(claims: &Map<String, Value>) -> Vec<String> {
    let split = |text: &str| text.split_whitespace().map(str::to_owned).collect();
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => split(scope),
        (_, Some(Value::String(scp))) => split(scp),
        (_, Some(Value::Array(scp))) => scp
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        assert_eq!(scopes(&claims(json!({"scope": "a  b"}))), ["a", "b"]);
        assert_eq!(scopes(&claims(json!({"scp": ["a", "b", 3]}))), ["a", "b"]);
        assert_eq!(scopes(&claims(json!({"scp": "a b"}))), ["a", "b"]);
        assert_eq!(
            scopes(&claims(json!({"scope": "x", "scp": ["y"]}))),
            ["x"],
            "scope wins"
        );
        assert!(scopes(&claims(json!({}))).is_empty());
    }

    #[test]
    fn a_principal_needs_a_string_subject() {
        let p = principal(claims(json!({"sub": "alice", "scope": "r w", "iss": "i"}))).unwrap();
        assert_eq!(p.subject(), "alice");
        assert_eq!(p.scopes(), ["r", "w"]);
        assert_eq!(p.claims()["iss"], "i");
        assert_eq!(
            principal(claims(json!({"sub": 7}))).unwrap_err(),
            Rejection::MissingClaim("sub".to_owned())
        );
        for blank in ["", " ", "\t \n"] {
            assert_eq!(
                principal(claims(json!({"sub": blank}))).unwrap_err(),
                Rejection::Invalid(super::super::EMPTY_SUBJECT.to_owned()),
                "{blank:?}"
            );
        }
    }

    #[test]
    fn library_errors_map_to_rejections() {
        assert_eq!(rejection(&ErrorKind::ExpiredSignature), Rejection::Expired);
        assert_eq!(
            rejection(&ErrorKind::ImmatureSignature),
            Rejection::NotYetValid
        );
        assert_eq!(
            rejection(&ErrorKind::InvalidAudience),
            Rejection::WrongAudience
        );
        assert_eq!(rejection(&ErrorKind::InvalidIssuer), Rejection::WrongIssuer);
        assert_eq!(
            rejection(&ErrorKind::InvalidSignature),
            Rejection::BadSignature
        );
        assert_eq!(rejection(&ErrorKind::InvalidToken), Rejection::Malformed);
    }

    /// A P-256 key made for these tests only (PKCS#8 DER, base64).
    const TEST_KEY: &str = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg3Byn/M3DIeJql1bY0cR76Wzd+Wn78SFuIOx5m8dAyk2hRANCAATsYqEK2cIRDF8OuUy2hLJTGmGIegBFn5TllFjTbk1UIDCNEFl0dmtUfkIwd6xHHpfZWeo4zeYsaf8yCNEuRbr1";

    fn signing_key() -> jsonwebtoken::EncodingKey {
        use base64::Engine;
        let der = base64::engine::general_purpose::STANDARD
            .decode(TEST_KEY)
            .unwrap();
        jsonwebtoken::EncodingKey::from_ec_der(&der)
    }

    /// A verifier trusting the test key as `k1`.
    fn verifier() -> JwtVerifier {
        let mut jwk =
            jsonwebtoken::jwk::Jwk::from_encoding_key(&signing_key(), Algorithm::ES256).unwrap();
        jwk.common.key_id = Some("k1".to_owned());
        let jwks = Jwks::from_json(&json!({"keys": [jwk]}).to_string()).unwrap();
        JwtVerifier::new(jwks, "https://as", "https://rs/mcp")
    }

    fn now() -> i64 {
        i64::try_from(jsonwebtoken::get_current_timestamp()).unwrap()
    }

    /// Valid claims, changed by `change`, signed with `kid`.
    fn token(kid: Option<&str>, change: impl FnOnce(&mut Map<String, Value>)) -> String {
        let mut claims = claims(json!({"iss": "https://as", "aud": "https://rs/mcp",
            "sub": "alice", "scope": "a b", "exp": now() + 60}));
        change(&mut claims);
        let mut header = jsonwebtoken::Header::new(Algorithm::ES256);
        header.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&header, &claims, &signing_key()).unwrap()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn every_claim_is_checked() {
        let v = verifier();
        let check = |t: String| {
            let v = &v;
            async move { v.check(&t).await }
        };
        let ok = check(token(Some("k1"), |_| {})).await.unwrap();
        assert_eq!(
            (ok.subject(), ok.scopes()),
            ("alice", &["a".to_owned(), "b".to_owned()][..])
        );
        type Change = fn(&mut Map<String, Value>);
        let refused = |change: Change| token(Some("k1"), change);
        let cases: [(Change, Rejection); 8] = [
            (
                |c| {
                    c.insert("exp".into(), json!(now() - 90));
                },
                Rejection::Expired,
            ),
            (
                |c| {
                    c.insert("nbf".into(), json!(now() + 90));
                },
                Rejection::NotYetValid,
            ),
            (
                |c| {
                    c.insert("iss".into(), json!("https://other"));
                },
                Rejection::WrongIssuer,
            ),
            (
                |c| {
                    c.insert("aud".into(), json!("https://rs"));
                },
                Rejection::WrongAudience,
            ),
            (
                |c| {
                    c.insert("aud".into(), json!(["https://x", "https://rs/mcp/"]));
                },
                Rejection::WrongAudience,
            ),
            (
                |c| {
                    c.remove("aud");
                },
                Rejection::MissingClaim("aud".into()),
            ),
            (
                |c| {
                    c.remove("exp");
                },
                Rejection::MissingClaim("exp".into()),
            ),
            (
                |c| {
                    c.remove("sub");
                },
                Rejection::MissingClaim("sub".into()),
            ),
        ];
        for (change, expected) in cases {
            assert_eq!(check(refused(change)).await.unwrap_err(), expected);
        }
        // Within the 30 s leeway; an array audience naming this server.
        let skewed = token(Some("k1"), |c| {
            c.insert("exp".into(), json!(now() - 20));
            c.insert("nbf".into(), json!(now() + 20));
            c.insert("aud".into(), json!(["https://x", "https://rs/mcp"]));
        });
        assert!(check(skewed.clone()).await.is_ok());
        let strict = verifier().leeway(Duration::ZERO);
        assert_eq!(strict.check(&skewed).await.unwrap_err(), Rejection::Expired);
        // No `kid`: every ES256 key is tried; an unknown `kid` is refused.
        assert!(check(token(None, |_| {})).await.is_ok());
        assert_eq!(
            check(token(Some("k2"), |_| {})).await.unwrap_err(),
            Rejection::UnknownKey
        );
        // A signature over other claims does not verify.
        let good = token(Some("k1"), |_| {});
        let other = token(Some("k1"), |c| {
            c.insert("sub".into(), json!("mallory"));
        });
        let spliced = format!(
            "{}.{}",
            other.rsplit_once('.').unwrap().0,
            good.rsplit_once('.').unwrap().1
        );
        assert_eq!(check(spliced).await.unwrap_err(), Rejection::BadSignature);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn garbage_and_unsigned_tokens_are_refused() {
        use base64::Engine;
        // The verifier that accepts `token(..)`: what is refused below is
        // refused for its header or signature, never for its claims or keys.
        let verifier = verifier();
        assert!(verifier.check(&token(Some("k1"), |_| {})).await.is_ok());
        assert_eq!(
            verifier.check("garbage").await.unwrap_err(),
            Rejection::Malformed
        );
        // Valid claims under {"alg":"none"} (with the trusted key's `kid`),
        // without a signature, and with the signature of the same claims
        // under ES256.
        let signed = token(Some("k1"), |_| {});
        let (_, rest) = signed.split_once('.').unwrap();
        let (claims, signature) = rest.split_once('.').unwrap();
        let none = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(r#"{"alg":"none","typ":"JWT","kid":"k1"}"#);
        for unsigned in [
            format!("{none}.{claims}."),
            format!("{none}.{claims}.{signature}"),
        ] {
            assert_eq!(
                verifier.check(&unsigned).await.unwrap_err(),
                Rejection::Malformed,
                "{unsigned}"
            );
        }
        // {"alg":"HS256"}: a shared-secret algorithm is never accepted.
        let hs = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln";
        assert_eq!(
            verifier.check(hs).await.unwrap_err(),
            Rejection::BadSignature
        );
    }
}
