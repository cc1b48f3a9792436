/**
 * The loopback OpenID Connect provider (tests/support/oidc-peer.ts) driven end to end by a real
 * relying party, openid-client v6: discovery over http, authorization code flow with PKCE, state
 * and nonce, the ID token's claims, userinfo, single-use codes, a state mismatch.
 */
import * as client from 'openid-client';
import { startOidcPeer, type OidcPeer } from '../support/oidc-peer.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const CLIENT = { client_id: 'herald', client_secret: 'herald-secret-of-enough-length', redirect_uris: [REDIRECT_URI] };

let peer: OidcPeer;

beforeAll(async () => {
  peer = await startOidcPeer({ clients: [CLIENT], extraClaims: { department: 'profile' } });
  peer.addAccount({
    sub: 'alice-1', email: 'alice@example.test', email_verified: true, name: 'Alice Example',
    groups: ['herald-admins', 'staff'], department: 'finance',
  });
  peer.addAccount({ sub: 'bob-2', email: 'bob@example.test', email_verified: false, name: 'Bob Example' });
});

afterAll(async () => {
  await peer.close();
});

async function discover(auth?: client.ClientAuth): Promise<client.Configuration> {
  return client.discovery(new URL(peer.issuer), CLIENT.client_id, CLIENT.client_secret, auth, {
    execute: [client.allowInsecureRequests],
  });
}

async function authorize(config: client.Configuration) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const callback = await peer.follow(url);
  return { callback, codeVerifier, state, nonce };
}

test('discovery over http finds the issuer and the endpoints; the hits are counted', async () => {
  const before = peer.discoveryHits;
  const config = await discover();
  const metadata = config.serverMetadata();
  expect(metadata.issuer).toBe(peer.issuer);
  expect(peer.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(peer.url).toBe(peer.issuer);
  expect(metadata.authorization_endpoint).toBe(`${peer.issuer}/auth`);
  expect(metadata.token_endpoint).toBe(`${peer.issuer}/token`);
  expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
  expect(metadata.response_types_supported).toEqual(['code']);
  expect(metadata.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'email_verified', 'name', 'groups', 'department']));
  expect(peer.discoveryHits).toBe(before + 1);
});

test('code flow with PKCE, state and nonce: the ID token carries the account; userinfo agrees', async () => {
  const config = await discover();
  peer.signInAs('alice-1');
  const { callback, codeVerifier, state, nonce } = await authorize(config);

  expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
  expect(callback.searchParams.get('state')).toBe(state);
  expect(callback.searchParams.get('iss')).toBe(peer.issuer);
  expect(callback.searchParams.get('code')).toEqual(expect.any(String));

  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true,
  });
  const claims = tokens.claims();
  expect(claims).toMatchObject({
    iss: peer.issuer, aud: CLIENT.client_id, sub: 'alice-1', nonce,
    email: 'alice@example.test', email_verified: true, name: 'Alice Example',
    groups: ['herald-admins', 'staff'], department: 'finance',
  });

  const userinfo = await client.fetchUserInfo(config, tokens.access_token, 'alice-1');
  expect(userinfo).toMatchObject({ sub: 'alice-1', email: 'alice@example.test', email_verified: true, groups: ['herald-admins', 'staff'] });
});

test('every follow is a new browser: the next sign-in is the account chosen now; client_secret_basic works too', async () => {
  const config = await discover(client.ClientSecretBasic(CLIENT.client_secret));
  peer.signInAs('bob-2');
  const { callback, codeVerifier, state, nonce } = await authorize(config);
  const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce });
  const claims = tokens.claims();
  expect(claims?.sub).toBe('bob-2');
  expect(claims?.email_verified).toBe(false);
  expect(claims).not.toHaveProperty('groups');
});

test('an authorization code is single use: a replay is refused with invalid_grant', async () => {
  const config = await discover();
  peer.signInAs('alice-1');
  const { callback, codeVerifier, state, nonce } = await authorize(config);
  const checks = { pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce };
  await client.authorizationCodeGrant(config, callback, checks);

  const replay = client.authorizationCodeGrant(config, callback, checks);
  await expect(replay).rejects.toBeInstanceOf(client.ResponseBodyError);
  await expect(replay).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });
});

test('a wrong code_verifier is refused by the provider (PKCE is enforced)', async () => {
  const config = await discover();
  peer.signInAs('alice-1');
  const { callback, state, nonce } = await authorize(config);
  const attempt = client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: state, expectedNonce: nonce,
  });
  await expect(attempt).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });
});

test('an authorization request without PKCE never reaches the client with a code', async () => {
  const config = await discover();
  peer.signInAs('alice-1');
  const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid', state: client.randomState() });
  const callback = await peer.follow(url);
  expect(callback.searchParams.get('code')).toBeNull();
  expect(callback.searchParams.get('error')).toBe('invalid_request');
});

test('a state that does not match is refused by openid-client before the token endpoint', async () => {
  const config = await discover();
  peer.signInAs('alice-1');
  const { callback, codeVerifier, nonce } = await authorize(config);
  const attempt = client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: codeVerifier, expectedState: client.randomState(), expectedNonce: nonce,
  });
  const err = await attempt.catch((e: unknown) => e);
  // openid-client v6: ClientError "invalid response encountered", code OAUTH_INVALID_RESPONSE,
  // its cause oauth4webapi's OperationProcessingError 'unexpected "state" response parameter value'.
  expect(err).toBeInstanceOf(client.ClientError);
  expect(err).toMatchObject({ code: 'OAUTH_INVALID_RESPONSE' });
  expect(((err as Error).cause as Error).message).toMatch(/unexpected "state"/);

  // Nothing reached the token endpoint: the code is still unused and works with the right state.
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: codeVerifier, expectedState: callback.searchParams.get('state') ?? '', expectedNonce: nonce,
  });
  expect(tokens.claims()?.sub).toBe('alice-1');
});

test('with no account chosen the login ends with access_denied at the redirect_uri', async () => {
  const config = await discover();
  peer.signInAs(null);
  const { callback, state } = await authorize(config);
  expect(callback.searchParams.get('error')).toBe('access_denied');
  expect(callback.searchParams.get('state')).toBe(state);
  expect(() => peer.signInAs('nobody')).toThrow(/no account nobody/);
});
