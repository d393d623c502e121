// A certified OpenID provider (oidc-provider, pinned in package.json) on a
// loopback port, for mcp-host's end-to-end OAuth tests
// (mcp-host/tests/suite/host_oidc.rs). Its own stock pages log the user in
// (any login and password) and ask for consent; the test plays the browser.
//
// Configured only where a deployment must be: dynamic registration and the
// device flow on, resource indicators (RFC 8707) that issue RS256 JWT access
// tokens for any loopback resource (the `everything` example), the key pair
// made here with its public half written as a JWKS file for the resource
// server, and the lifetimes of access tokens from the environment. The rest
// (refresh tokens only for `offline_access` asked with `prompt=consent`,
// rotation of public clients' refresh tokens and the revocation of the whole
// grant when one is used twice) is the provider's stock policy.
//
// Environment: OIDC_JWKS (where to write the public JWKS; required),
// OIDC_ACCESS_TTL (seconds, default 3600). Prints `issuer=URL` on stdout once
// listening, and one line per token issued or refused on stderr
// (`grant=TYPE`, `grant-error=ERROR`, `revoked`), for the test to count.

import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import Provider, { errors } from 'oidc-provider';
import { exportJWK, generateKeyPair } from 'jose';

const jwksPath = process.env.OIDC_JWKS;
if (!jwksPath) {
  console.error('provider.mjs: OIDC_JWKS (the path of the public JWKS) is required');
  process.exit(2);
}
const accessTtl = Number(process.env.OIDC_ACCESS_TTL || 3600);

const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
const kid = 'mcp-host-test';
const signing = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
const verifying = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
writeFileSync(jwksPath, JSON.stringify({ keys: [verifying] }));

// The resource server's scopes: what the `everything` example checks.
const RESOURCE_SCOPES = 'tools:read tools:admin';

/** Whether `resource` is an http URL on loopback (the test's servers). */
function loopback(resource) {
  try {
    const url = new URL(resource);
    return url.protocol === 'http:' && url.hostname === '127.0.0.1';
  } catch {
    return false;
  }
}

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks: { keys: [signing] },
  // Every login is a new account named as typed; nothing else is known.
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    deviceFlow: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // The client names its resource on each request (RFC 8707).
      defaultResource: (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => {
        if (!loopback(resource)) {
          throw new errors.InvalidTarget();
        }
        return {
          scope: RESOURCE_SCOPES,
          audience: resource,
          accessTokenTTL: accessTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
  scopes: ['openid', 'offline_access'],
  ttl: {
    AccessToken: accessTtl,
    RefreshToken: 24 * 60 * 60,
    Grant: 24 * 60 * 60,
    Session: 24 * 60 * 60,
    Interaction: 60 * 60,
    DeviceCode: 10 * 60,
  },
});
// Plain http on loopback: the provider must not expect a TLS proxy.
provider.proxy = false;

provider.on('grant.success', (ctx) => {
  console.error(`grant=${ctx.oidc.params.grant_type}`);
});
provider.on('grant.error', (ctx, error) => {
  console.error(`grant-error=${error.error} ${error.error_description ?? ''}`);
});
provider.on('grant.revoked', () => {
  console.error('revoked');
});
provider.on('server_error', (_ctx, error) => {
  console.error(`server_error=${error.stack}`);
});

server.on('request', provider.callback());
console.log(`issuer=${issuer}`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(0));
}
