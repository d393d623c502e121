//! Authorization for the HTTP tests: signing keys made in the test (RS256
//! with `rsa`, ES256 with `p256`), a JWKS file of their public halves in a
//! temporary directory, tokens signed with jsonwebtoken, and an example
//! server started with `MCP_AUTH_*` pointing at them.

use super::http::Server;
use super::services::temp_dir;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

pub const ISSUER: &str = "https://auth.example.test";
pub const RESOURCE: &str = "https://mcp.example.test/mcp";
pub const METADATA_URL: &str = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp";

/// The signing keys, made once per test run, and the JWKS file of their
/// public halves.
pub struct Keys {
    pub rsa: EncodingKey,
    pub ec: EncodingKey,
    /// Not in the JWKS: signs tokens whose signature must fail.
    pub stranger: EncodingKey,
    pub jwks: PathBuf,
}

pub fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        use p256::elliptic_curve::Generate;
        use p256::pkcs8::EncodePrivateKey;
        use rsa::pkcs1::EncodeRsaPrivateKey;
        let rsa_key = rsa::PrivateKey::new(&mut getrandom::SysRng, 2048).unwrap();
        let rsa = EncodingKey::from_rsa_der(rsa_key.to_pkcs1_der().unwrap().as_bytes());
        let ec_der = |key: p256::ecdsa::SigningKey| key.to_pkcs8_der().unwrap().as_bytes().to_vec();
        let new_ec =
            || p256::ecdsa::SigningKey::try_generate_from_rng(&mut getrandom::SysRng).unwrap();
        let ec = EncodingKey::from_ec_der(&ec_der(new_ec()));
        let stranger = EncodingKey::from_ec_der(&ec_der(new_ec()));
        let public = |key: &EncodingKey, alg, kid: &str| {
            let mut jwk = Jwk::from_encoding_key(key, alg).unwrap();
            jwk.common.key_id = Some(kid.to_owned());
            jwk
        };
        let document = json!({"keys": [
            public(&rsa, Algorithm::RS256, "rsa1"),
            public(&ec, Algorithm::ES256, "ec1"),
        ]});
        let jwks = temp_dir("auth").join("jwks.json");
        std::fs::write(&jwks, document.to_string()).unwrap();
        Keys {
            rsa,
            ec,
            stranger,
            jwks,
        }
    })
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Valid claims for `sub` with `scope`.
pub fn claims(sub: &str, scope: &str) -> Value {
    json!({"iss": ISSUER, "aud": RESOURCE, "sub": sub, "scope": scope,
        "iat": now(), "exp": now() + 600})
}

/// `claims` signed with the RSA key (RS256, kid `rsa1`).
pub fn rs256(claims: &Value) -> String {
    sign(Algorithm::RS256, "rsa1", &keys().rsa, claims)
}

/// `claims` signed with the EC key (ES256, kid `ec1`).
pub fn es256(claims: &Value) -> String {
    sign(Algorithm::ES256, "ec1", &keys().ec, claims)
}

pub fn sign(alg: Algorithm, kid: &str, key: &EncodingKey, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, key).unwrap()
}

/// The `Authorization` header value of `token`.
pub fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// The example `name` serving `--http` with authorization on, plus `extra`.
pub fn start_example(name: &str, extra: &[(&str, &str)]) -> Server {
    let jwks = keys().jwks.to_str().unwrap().to_owned();
    let mut env = vec![
        ("MCP_AUTH_JWKS", jwks.as_str()),
        ("MCP_AUTH_ISSUER", ISSUER),
        ("MCP_RESOURCE_URL", RESOURCE),
        ("MCP_AUTH_SERVER", ISSUER),
    ];
    env.extend_from_slice(extra);
    Server::start_example(name, &env)
}
