// A real OAuth 2.1 authorization server for the sign-in tests: npm `oidc-provider` (installed by
// .ci/bootstrap.sh into .venvs/oidc), configured as the MCP authorization specs expect of one
// (2025-11-25 and 2026-07-28 basic/authorization):
//
// - dynamic client registration (RFC 7591), open (no initial access token);
// - authorization code with PKCE, S256 required of every client (oidc-provider supports no other method);
// - resource indicators (RFC 8707): every access token is a JWT (RFC 9068) whose `aud` is the one resource it
//   was asked for; a resource gets the scopes in AS_SCOPES (space-separated, default "mcp:tools");
// - refresh tokens for every client registered with the refresh_token grant (not only with offline_access);
// - access-token lifetime AS_ACCESS_TOKEN_TTL seconds (default 600), short for the expiry tests;
// - RFC 9207: `iss` in every authorization response (authorization_response_iss_parameter_supported);
// - metadata at /.well-known/openid-configuration (OpenID Connect discovery, which MCP clients try after
//   RFC 8414's path), keys at its jwks_uri.
//
// Sign-in is a test-only interaction WITHOUT a page: /interaction/<uid> signs in the fixed user
// AS_USER (default "test-user") and grants exactly the scopes and resources the client asked for, then
// redirects back into the authorization flow. A headless opener that follows redirects with cookies
// (tests/conformance/headless_opener.py) therefore completes a sign-in on its own. AS_DENY=1 makes the
// interaction deny instead (access_denied). AS_EVENT_LOG: see `event` below.
//
// Options for the gateway's upstream credentials (issue 34), off unless set:
// - AS_CLIENT_CREDENTIALS=1: the client credentials grant (RFC 6749 section 4.4) for clients registered with it;
//   with a `resource` the token is a JWT for that resource like every other (its `sub` is the client's id);
// - AS_TOKEN_EXCHANGE=1: the RFC 8693 token exchange grant: a `subject_token` this server issued (a JWT access token,
//   checked for signature, issuer and expiry) is exchanged for a JWT access token for the `resource` asked for, with
//   the same `sub` and an `act` claim naming the exchanging client (RFC 8693 section 4.1).
//
// Options for the resource-server tests (issue 34), off unless set:
// - AS_SIGNING_KEY: a file holding the private RSA JWK to sign with (its `kid`, default "test-key", names it), so
//   that a restart on the same AS_PORT keeps the key (another file: a key rotation); default a key made at start;
// - with AS_EVENT_LOG, a line "jwks" per request for the key set (for tests that count a verifier's refetches).
//
// Usage: AS_NODE_MODULES=<dir holding oidc-provider> node as_server.mjs
//   listens on 127.0.0.1, an ephemeral port (AS_PORT to choose one), and prints one line
//   `READY <issuer>` on stdout when it serves (and writes the issuer into AS_READY_FILE, if set).
//   Logs go to stderr. (An ES module resolves packages from
//   its own folder, not NODE_PATH: the package is loaded from AS_NODE_MODULES by path.)
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.AS_NODE_MODULES;
const { default: Provider, errors } = await import(
  modules ? pathToFileURL(path.join(modules, 'oidc-provider', 'lib', 'index.js')).href : 'oidc-provider');

const ttl = Number(process.env.AS_ACCESS_TOKEN_TTL || 600);
const scopes = (process.env.AS_SCOPES || 'mcp:tools').split(' ').filter(Boolean);
const user = process.env.AS_USER || 'test-user';
const deny = process.env.AS_DENY === '1';
// AS_EVENT_LOG: a file that gets one line per sign-in ("login") and per token issued ("grant <grant_type>"),
// for tests that count sign-ins and refreshes. Never a token.
const event = (line) => { if (process.env.AS_EVENT_LOG) appendFileSync(process.env.AS_EVENT_LOG, `${line}\n`); };

const keyFile = process.env.AS_SIGNING_KEY ? JSON.parse(readFileSync(process.env.AS_SIGNING_KEY, 'utf8')) : null;
const privateKey = keyFile
  ? createPrivateKey({ key: keyFile, format: 'jwk' })
  : generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: keyFile?.kid || 'test-key', use: 'sig', alg: 'RS256' };

const server = http.createServer();
await new Promise((resolve) => server.listen(Number(process.env.AS_PORT || 0), '127.0.0.1', resolve));
// The issuer ends in "/": mcp 1.x servers publish a path-less issuer URL with a trailing slash in their
// protected resource metadata, and issuers are compared as exact strings (RFC 8414 section 3.3).
const issuer = `http://127.0.0.1:${server.address().port}/`;

const provider = new Provider(issuer, {
  clients: [],
  jwks: { keys: [signingKey] },
  cookies: { keys: ['mcp-eras-test-only'] },
  scopes: ['openid', 'offline_access', ...scopes],
  claims: { openid: ['sub'] },
  findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: process.env.AS_CLIENT_CREDENTIALS === '1' },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // One resource per authorization (the MCP server's URL the client names, RFC 8707 section 2).
      defaultResource: (_ctx, _client, oneOf) => (oneOf ? oneOf[0] : undefined),
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({
        scope: scopes.join(' '),
        audience: resource,
        accessTokenTTL: ttl,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
  pkce: { required: () => true },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  ttl: { AccessToken: ttl, AuthorizationCode: 60, Interaction: 300, Session: 3600, Grant: 3600, RefreshToken: 86400 },
});
provider.proxy = false;

// RFC 8693 token exchange (AS_TOKEN_EXCHANGE=1): the JWTs are signed and checked here with the provider's own key.
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const b64url = (data) => Buffer.from(data).toString('base64url');
const publicKey = createPublicKey(privateKey);

function ownJwtClaims(token) {
  const parts = String(token || '').split('.');
  if (parts.length !== 3) return null;
  const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString());
  if (header.alg !== 'RS256' || header.kid !== signingKey.kid) return null;
  if (!verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, Buffer.from(parts[2], 'base64url'))) return null;
  const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
  return claims.iss === issuer && claims.exp > Date.now() / 1000 ? claims : null;
}

function signedJwt(payload) {
  const head = b64url(JSON.stringify({ alg: 'RS256', kid: signingKey.kid, typ: 'at+jwt' }));
  const body = b64url(JSON.stringify(payload));
  return `${head}.${body}.${sign('sha256', Buffer.from(`${head}.${body}`), privateKey).toString('base64url')}`;
}

if (process.env.AS_TOKEN_EXCHANGE === '1') {
  provider.registerGrantType(TOKEN_EXCHANGE, async (ctx) => {
    const { params, client } = ctx.oidc;
    if (params.subject_token_type !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest('unsupported subject_token_type');
    if (!params.resource) throw new errors.InvalidTarget('a resource is required');
    let claims = null;
    try { claims = ownJwtClaims(params.subject_token); } catch { claims = null; }
    if (!claims) throw new errors.InvalidGrant('subject_token is not a valid access token of this server');
    const now = Math.floor(Date.now() / 1000);
    const scope = scopes.join(' ');
    const token = signedJwt({ iss: issuer, sub: claims.sub, aud: params.resource, client_id: client.clientId, scope,
      iat: now, exp: now + ttl, jti: randomUUID(), act: { sub: client.clientId } });
    console.error(`as_server: exchanged a token of ${claims.sub} for ${params.resource}`);
    ctx.body = { access_token: token, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: ttl, scope };
  }, ['subject_token', 'subject_token_type', 'requested_token_type', 'resource', 'audience', 'scope']);
}

// The page-less interaction: sign the fixed user in, then consent to exactly what was asked.
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  console.error(`as_server: interaction ${prompt.name} for client ${params.client_id}`);
  if (deny) {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'test: denied' });
    return;
  }
  if (prompt.name === 'login') {
    event('login');
    await provider.interactionFinished(req, res, { login: { accountId: user } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  // Exactly what the consent prompt names as missing: scopes, and scopes per resource indicator.
  const missing = prompt.details || {};
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, wanted] of Object.entries(missing.missingResourceScopes || {})) {
    grant.addResourceScope(resource, wanted.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
server.on('request', (req, res) => {
  if (req.method === 'GET' && req.url.split('?')[0] === '/jwks') event('jwks');
  if (req.method === 'GET' && req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      console.error(`as_server: interaction failed: ${err}`);
      if (!res.headersSent) {
        res.statusCode = err instanceof errors.SessionNotFound ? 400 : 500;
        res.end(String(err));
      }
    });
    return;
  }
  callback(req, res);
});

provider.on('grant.success', (ctx) => event(`grant ${ctx.oidc.params.grant_type}`));
provider.on('server_error', (_ctx, err) => console.error(`as_server: server_error ${err}`));
provider.on('grant.error', (_ctx, err) => console.error(`as_server: grant.error ${err} ${err.error_description || ''}`));
provider.on('authorization.error', (_ctx, err) => console.error(`as_server: authorization.error ${err} ${err.error_description || ''}`));
provider.on('registration_create.error', (_ctx, err) => console.error(`as_server: registration error ${err} ${err.error_description || ''}`));

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
console.log(`READY ${issuer}`);
if (process.env.AS_READY_FILE) writeFileSync(process.env.AS_READY_FILE, issuer);
