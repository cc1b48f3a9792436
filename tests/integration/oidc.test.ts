/**
 * Single sign-on against a real OpenID provider on loopback (oidc-provider, tests/support/oidc-peer.ts),
 * following the whole redirect flow with real HTTP: Herald's login redirect (PKCE S256, state,
 * nonce, the svc_oidc cookie), the provider's sign-in, the callback that signs in the user linked
 * to issuer and subject, links an existing account only by a verified email, creates one when
 * allowed with the role the groups claim maps to, and refuses a wrong state, a replayed code, an
 * unverified email, a disallowed domain, an unknown user when creating is off and a disabled
 * user, each with its reason in the audit trail. Also the settings (secret sealed, discovery
 * checked, outbound guard) and the policy that limits password sign-in to admins.
 */
import postgres from 'postgres';
import { startHerald, type Herald } from '../support/harness.js';
import { ADMIN, createSignedInUser, sessionClient, setupAdmin, signIn, type SessionClient } from '../support/identity.js';
import { startOidcPeer, type OidcPeer } from '../support/oidc-peer.js';

const PUBLIC_URL = 'http://localhost:8080';
const REDIRECT_URI = `${PUBLIC_URL}/api/v1/auth/oidc/callback`;
const CLIENT = { client_id: 'herald', client_secret: 'the provider gave us this secret 1' };

let h: Herald;
let peer: OidcPeer;
let sql: postgres.Sql;
let admin: SessionClient;

function cookieOf(res: { headers: Record<string, unknown> }, name: string): string | undefined {
  const list = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  for (const c of list) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(c);
    if (m) return m[1];
  }
  return undefined;
}

/** Starts a sign-in at Herald: the provider URL and the svc_oidc cookie. */
async function start(returnTo?: string): Promise<{ location: URL; flowCookie: string }> {
  const res = await h.http.get(`/api/v1/auth/oidc/login${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`);
  expect(res.status).toBe(302);
  const flowCookie = cookieOf(res, 'svc_oidc');
  expect(flowCookie).toBeTruthy();
  expect(String(res.headers['set-cookie'])).toMatch(/svc_oidc=[^;]+;.*Path=\/api\/v1\/auth\/oidc.*HttpOnly/i);
  return { location: new URL(res.headers.location as string), flowCookie: flowCookie! };
}

/** Herald's callback as the browser would call it (the path and query the provider redirected to). */
function callback(url: URL, flowCookie: string | undefined) {
  const req = h.http.get(`${url.pathname}${url.search}`);
  return flowCookie ? req.set('Cookie', `svc_oidc=${flowCookie}`) : req;
}

/** The whole flow as `sub`: Herald → provider → Herald. Answers the callback's response. */
async function signInAs(sub: string, returnTo?: string) {
  peer.signInAs(sub);
  const { location, flowCookie } = await start(returnTo);
  const back = await peer.follow(location);
  return callback(back, flowCookie);
}

const errorOf = (res: { headers: Record<string, unknown> }) => new URL(res.headers.location as string).searchParams.get('error');

async function oidcFailures() {
  const res = await admin.get('/api/v1/security-events?type=auth.oidc&limit=200');
  return (res.body.items as Array<{ reason: string }>).map((e) => e.reason);
}

async function enable(extra: Record<string, unknown> = {}) {
  const current = await admin.get('/api/v1/settings/oidc');
  const res = await admin.put('/api/v1/settings/oidc').send({
    enabled: true, issuer_url: peer.issuer, client_id: CLIENT.client_id, client_secret: { configured: true },
    scopes: ['openid', 'email', 'profile'], role_claim: 'groups', role_mapping: { 'herald-admins': 'admin', 'herald-editors': 'editor' },
    allowed_domains: ['example.com'], create_users: true, default_role: 'viewer', button_label: 'Sign in with Example ID',
    version: current.body.version, ...extra,
  });
  expect(res.status).toBe(200);
  return res;
}

beforeAll(async () => {
  h = await startHerald({ env: { SVC_PUBLIC_URL: PUBLIC_URL, SVC_OUTBOUND_ALLOW: '127.0.0.1' } });
  peer = await startOidcPeer({ clients: [{ ...CLIENT, redirect_uris: [REDIRECT_URI] }] });
  sql = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
  admin = await setupAdmin(h);
  peer.addAccount({ sub: 'alice-1', email: 'alice@example.com', email_verified: true, name: 'Alice Example', groups: ['herald-editors'] });
  peer.addAccount({ sub: 'bob-1', email: 'bob@example.com', email_verified: false, name: 'Bob Unverified' });
  peer.addAccount({ sub: 'carol-1', email: 'carol@elsewhere.org', email_verified: true, name: 'Carol Elsewhere' });
  peer.addAccount({ sub: 'dave-1', email: 'Dave@Example.com', email_verified: true, name: 'Dave at the provider', groups: ['herald-admins', 'herald-editors'] });
  peer.addAccount({ sub: 'erin-1', email: 'erin@example.com', email_verified: true, name: 'Erin' });
}, 60_000);
afterAll(async () => {
  await sql.end();
  await peer.close();
  await h.stop();
});

describe('settings', () => {
  it('starts off, and signing in through it is refused while off', async () => {
    const res = await admin.get('/api/v1/settings/oidc');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ enabled: false, client_secret: null, redirect_uri: REDIRECT_URI, version: 1 });
    // Settings never saved say so: no time (not the epoch), for each settings object.
    for (const path of ['/api/v1/settings', '/api/v1/settings/oidc', '/api/v1/settings/ai', '/api/v1/settings/alerts']) {
      expect([path, (await admin.get(path)).body.updated_at]).toEqual([path, null]);
    }
    const login = await h.http.get('/api/v1/auth/oidc/login');
    expect(login.status).toBe(409);
    expect(login.body.code).toBe('oidc.disabled');
    // The sign-in page's public question: single sign-on is off, everyone signs in with a password.
    const methods = await h.http.get('/api/v1/auth/methods');
    expect(methods.status).toBe(200);
    expect(methods.body).toEqual({ password_sign_in: 'everyone', single_sign_on: { enabled: false, button_label: 'Sign in with single sign-on' } });
  });

  it('the discovery test reads the provider and refuses what the outbound guard and https rule forbid', async () => {
    const ok = await admin.post('/api/v1/settings/oidc/test').send({ issuer_url: peer.issuer });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      issuer: peer.issuer, authorization_endpoint: `${peer.issuer}/auth`, token_endpoint: `${peer.issuer}/token`, jwks_uri: `${peer.issuer}/jwks`,
    });
    expect(ok.body.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email']));
    const hits = peer.discoveryHits;
    // Loopback by name is not in SVC_OUTBOUND_ALLOW's host names: plain http is refused before any request.
    const plain = await admin.post('/api/v1/settings/oidc/test').send({ issuer_url: peer.issuer.replace('127.0.0.1', 'localhost') });
    expect(plain.status).toBe(422);
    expect(plain.body.code).toBe('oidc.discovery_failed');
    expect(plain.body.detail).toMatch(/https/);
    // An address outside SVC_OUTBOUND_ALLOW is refused by the guard.
    const guarded = await admin.post('/api/v1/settings/oidc/test').send({ issuer_url: 'https://127.0.0.2:9/' });
    expect(guarded.status).toBe(422);
    expect(guarded.body.code).toBe('oidc.discovery_failed');
    expect(peer.discoveryHits).toBe(hits);
  });

  it('turning it on needs the issuer and client, and a provider that answers', async () => {
    const missing = await admin.put('/api/v1/settings/oidc').send({ enabled: true, version: 1 });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['client_id', 'issuer_url']);
    const dead = await admin.put('/api/v1/settings/oidc').send({ enabled: true, issuer_url: 'http://127.0.0.1:9', client_id: 'herald', version: 1 });
    expect(dead.status).toBe(422);
    // The detail says why, not just that something went wrong.
    expect(dead.body.detail).not.toMatch(/something went wrong/i);
    expect(dead.body.detail).toMatch(/ECONNREFUSED|refused/i);
    const pathed = await admin.post('/api/v1/settings/oidc/test').send({ issuer_url: 'http://127.0.0.1:9/realms/herald' });
    expect(pathed.body.detail).toContain('http://127.0.0.1:9/realms/herald could not be read');
    expect(dead.body.code).toBe('oidc.discovery_failed');
  });

  it('stores the client secret sealed, shows it as configured, and audits the change', async () => {
    const res = await admin.put('/api/v1/settings/oidc').send({
      enabled: true, issuer_url: peer.issuer, client_id: CLIENT.client_id, client_secret: CLIENT.client_secret,
      role_claim: 'groups', role_mapping: { 'herald-admins': 'admin', 'herald-editors': 'editor' },
      allowed_domains: ['Example.com'], create_users: true, version: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      enabled: true, issuer_url: peer.issuer, client_id: 'herald', client_secret: { configured: true },
      scopes: ['openid', 'email', 'profile'], allowed_domains: ['example.com'], default_role: 'viewer', version: 2,
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    const [row] = await sql<{ secrets_sealed: string; value: unknown }[]>`select secrets_sealed, value from workspace_settings where key = 'oidc'`;
    expect(row!.secrets_sealed).toMatch(/^v2:/);
    expect(JSON.stringify(row)).not.toContain(CLIENT.client_secret);
    const stale = await admin.put('/api/v1/settings/oidc').send({ enabled: false, version: 1 });
    expect(stale.body.code).toBe('conflict.version');
    const events = await admin.get('/api/v1/security-events?type=settings.oidc_updated');
    expect(events.body.items[0]).toMatchObject({ actor: { user_id: admin.userId }, details: { enabled: true, client_secret_changed: true } });
    const key = await admin.post('/api/v1/api-keys').send({ name: 'ops', scope: 'admin' });
    const viaKey = await h.http.get('/api/v1/settings/oidc').set('Authorization', `Bearer ${key.body.token}`);
    expect(viaKey.body.client_secret).toEqual({ configured: true });
  });
});

describe('the redirect flow', () => {
  beforeAll(async () => { await enable(); });

  it('the sign-in methods say single sign-on is on, with its label and nothing of the provider', async () => {
    const methods = await h.http.get('/api/v1/auth/methods');
    expect(methods.status).toBe(200);
    expect(methods.body).toEqual({ password_sign_in: 'everyone', single_sign_on: { enabled: true, button_label: 'Sign in with Example ID' } });
    expect(JSON.stringify(methods.body)).not.toContain(peer.issuer);
    expect(JSON.stringify(methods.body)).not.toContain(CLIENT.client_id);
  });

  it('redirects with the authorization code flow, PKCE S256, state and nonce', async () => {
    const { location } = await start('/reports');
    expect(location.origin).toBe(peer.issuer);
    const q = location.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe('herald');
    expect(q.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(q.get('scope')).toBe('openid email profile');
  });

  it('creates an unknown user with a verified email, with the role the groups claim maps to, and signs in', async () => {
    const res = await signInAs('alice-1', '/reports?tab=mine');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${PUBLIC_URL}/reports?tab=mine`);
    const session = cookieOf(res, 'svc_session');
    const csrf = cookieOf(res, 'svc_csrf');
    expect(session && csrf).toBeTruthy();
    expect(cookieOf(res, 'svc_oidc')).toBe('');
    const alice = sessionClient(h, { cookie: session!, csrf: csrf!, userId: '' });
    const me = await alice.get('/api/v1/me');
    expect(me.body).toMatchObject({ email: 'alice@example.com', name: 'Alice Example', role: 'editor', two_factor_enabled: false });
    const sessions = await alice.get('/api/v1/me/sessions');
    expect(sessions.body.items[0]).toMatchObject({ method: 'oidc', second_factor: null, current: true });
    const links = await sql<{ issuer: string; subject: string }[]>`select issuer, subject from user_identities where user_id = ${me.body.id}`;
    expect(links).toEqual([{ issuer: peer.issuer, subject: 'alice-1' }]);
    // Signing in again finds the same user through the link.
    const again = await signInAs('alice-1');
    expect(again.headers.location).toBe(`${PUBLIC_URL}/`);
    const [n] = await sql<{ n: number }[]>`select count(*)::int as n from users where lower(email) = 'alice@example.com'`;
    expect(n!.n).toBe(1);
    const created = await admin.get(`/api/v1/security-events?type=user.created&user_id=${me.body.id}`);
    expect(created.body.items[0]).toMatchObject({ details: { source: 'oidc', role: 'editor' } });
    const signIns = await admin.get(`/api/v1/security-events?type=auth.sign_in&user_id=${me.body.id}`);
    expect(signIns.body.items[0]).toMatchObject({ outcome: 'success', details: { method: 'oidc', issuer: peer.issuer } });
  });

  it('links an existing account by its verified email, and the highest mapped role applies', async () => {
    const dave = await createSignedInUser(h, admin, { name: 'Dave Local', email: 'dave@example.com', role: 'viewer' });
    const res = await signInAs('dave-1');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${PUBLIC_URL}/`);
    const client = sessionClient(h, { cookie: cookieOf(res, 'svc_session')!, csrf: cookieOf(res, 'svc_csrf')!, userId: dave.userId });
    const me = await client.get('/api/v1/me');
    expect(me.body).toMatchObject({ id: dave.userId, name: 'Dave Local', role: 'admin' });
    const linked = await admin.get(`/api/v1/security-events?type=oidc.linked&user_id=${dave.userId}`);
    expect(linked.body.items).toHaveLength(1);
    const role = await admin.get(`/api/v1/security-events?type=user.role_changed&user_id=${dave.userId}`);
    expect(role.body.items[0]).toMatchObject({ details: { source: 'oidc', from: 'viewer', to: 'admin' } });
  });

  it('refuses a wrong state, a missing flow cookie, and a replayed code', async () => {
    peer.signInAs('alice-1');
    const first = await start();
    const back = await peer.follow(first.location);
    const tampered = new URL(back);
    tampered.searchParams.set('state', 'x'.repeat(43));
    const wrongState = await callback(tampered, first.flowCookie);
    expect(wrongState.status).toBe(302);
    expect(wrongState.headers.location).toBe(`${PUBLIC_URL}/sign-in?error=oidc.flow_invalid`);
    expect(cookieOf(wrongState, 'svc_session')).toBeUndefined();
    // The flow was used up by the wrong state: the genuine answer no longer works either.
    expect(errorOf(await callback(back, first.flowCookie))).toBe('oidc.flow_invalid');
    expect(errorOf(await callback(back, undefined))).toBe('oidc.flow_invalid');

    // A code that was redeemed once, replayed into a new flow of this browser.
    const good = await start();
    const goodBack = await peer.follow(good.location);
    expect(cookieOf(await callback(goodBack, good.flowCookie), 'svc_session')).toBeTruthy();
    const replayFlow = await start();
    const replay = new URL(goodBack);
    replay.searchParams.set('state', replayFlow.location.searchParams.get('state')!);
    const replayed = await callback(replay, replayFlow.flowCookie);
    expect(errorOf(replayed)).toBe('oidc.exchange_failed');
    expect(cookieOf(replayed, 'svc_session')).toBeUndefined();
  });

  it('refuses an unverified email, a disallowed domain, an error from the provider', async () => {
    expect(errorOf(await signInAs('bob-1'))).toBe('oidc.email_unverified');
    expect(errorOf(await signInAs('carol-1'))).toBe('oidc.domain_not_allowed');
    const [n] = await sql<{ n: number }[]>`select count(*)::int as n from users where email in ('bob@example.com', 'carol@elsewhere.org')`;
    expect(n!.n).toBe(0);
    peer.signInAs(null);
    const { location, flowCookie } = await start();
    expect(errorOf(await callback(await peer.follow(location), flowCookie))).toBe('oidc.provider_error');
  });

  it('with creating accounts off, an unknown user is refused; a disabled user is refused', async () => {
    await enable({ create_users: false });
    expect(errorOf(await signInAs('erin-1'))).toBe('oidc.no_account');
    const dave = await sql<{ id: string; version: number }[]>`select id, version from users where lower(email) = 'dave@example.com'`;
    const off = await admin.patch(`/api/v1/users/${dave[0]!.id}`).send({ enabled: false, version: dave[0]!.version });
    expect(off.status).toBe(200);
    expect(errorOf(await signInAs('dave-1'))).toBe('auth.user_disabled');
    const reasons = await oidcFailures();
    expect(reasons).toEqual(expect.arrayContaining([
      'oidc.flow_invalid', 'oidc.exchange_failed', 'oidc.email_unverified', 'oidc.domain_not_allowed', 'oidc.provider_error', 'oidc.no_account', 'auth.user_disabled',
    ]));
  });
});

describe('password sign-in for admins only', () => {
  it('is refused for others while single sign-on is on, and comes back when it is off', async () => {
    const vic = await createSignedInUser(h, admin, { name: 'Vic Viewer', email: 'vic@example.com', role: 'viewer' });
    const settings = await admin.get('/api/v1/settings');
    const on = await admin.patch('/api/v1/settings').send({ password_sign_in: 'admins_only', version: settings.body.version });
    expect(on.status).toBe(200);
    expect(on.body.password_sign_in).toBe('admins_only');
    expect((await h.http.get('/api/v1/auth/methods')).body.password_sign_in).toBe('admins_only');
    const refused = await h.http.post('/api/v1/auth/login').send({ email: 'vic@example.com', password: vic.password });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('auth.password_sign_in_disabled');
    expect((await signIn(h, ADMIN.email, ADMIN.password)).cookie).toBeTruthy();
    const events = await admin.get(`/api/v1/security-events?type=auth.sign_in&user_id=${vic.userId}`);
    expect(events.body.items[0]).toMatchObject({ outcome: 'failure', reason: 'auth.password_sign_in_disabled' });
    await enable({ enabled: false });
    const back = await h.http.post('/api/v1/auth/login').send({ email: 'vic@example.com', password: vic.password });
    expect(back.status).toBe(200);
    // The policy stays stored but applies only while single sign-on is on: the page says so.
    expect((await h.http.get('/api/v1/auth/methods')).body).toEqual({ password_sign_in: 'everyone', single_sign_on: { enabled: false, button_label: 'Sign in with Example ID' } });
    const latest = await admin.get('/api/v1/settings');
    await admin.patch('/api/v1/settings').send({ password_sign_in: 'everyone', version: latest.body.version });
  });
});

it('no client secret, code, state or token reaches the logs or the audit trail', async () => {
  const events = await sql<{ details: unknown }[]>`select details, reason from security_events`;
  const text = JSON.stringify(events) + h.logs.join('');
  expect(text).not.toContain(CLIENT.client_secret);
  expect(text).not.toMatch(/[?&](code|state|nonce)=/);
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
});
