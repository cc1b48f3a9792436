/**
 * Browser sessions: CSRF on changes, credential mixing, the caller's session list and
 * revocation, rotation at sign-in, idle and absolute expiry, logout, and session-only operations.
 */
import postgres from 'postgres';
import { randomUUID } from 'node:crypto';
import { startHerald, type Herald } from '../support/harness.js';
import { ADMIN, createKey, sessionClient, sessionFrom, setupAdmin, type SessionClient } from '../support/identity.js';

let h: Herald;
let sql: postgres.Sql;
let admin: SessionClient;
let adminKey: string;

beforeAll(async () => {
  h = await startHerald();
  sql = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
  admin = await setupAdmin(h);
  adminKey = (await createKey(admin, { name: 'sessions test key', scope: 'admin' })).token;
});
afterAll(async () => {
  await sql.end();
  await h.stop();
});

async function signInAdmin(ip: string, userAgent = 'HeraldTest/1.0'): Promise<SessionClient> {
  const res = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', ip).set('User-Agent', userAgent)
    .send({ email: ADMIN.email, password: ADMIN.password });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${res.text}`);
  return sessionClient(h, sessionFrom(res));
}

/** The id of the caller's own session, as the session list reports it. */
async function currentSessionId(client: SessionClient): Promise<string> {
  const res = await client.get('/api/v1/me/sessions');
  expect(res.status).toBe(200);
  const current = (res.body.items as Array<{ id: string; current: boolean }>).filter((s) => s.current);
  expect(current).toHaveLength(1);
  return current[0]!.id;
}

function setCookies(res: { headers: Record<string, unknown> }): string[] {
  const raw = res.headers['set-cookie'];
  return Array.isArray(raw) ? raw as string[] : typeof raw === 'string' ? [raw] : [];
}

function expectCleared(res: { headers: Record<string, unknown> }): void {
  const cookies = setCookies(res);
  for (const name of ['svc_session', 'svc_csrf']) {
    const line = cookies.find((c) => c.startsWith(`${name}=`));
    expect(line).toBeDefined();
    expect(line).toMatch(new RegExp(`^${name}=;`));
    expect(line).toMatch(/;\s*Max-Age=0(;|$)/i);
  }
}

describe('CSRF protection', () => {
  it('refuses a session change without X-CSRF-Token, or with a wrong one, with 403 auth.csrf_failed', async () => {
    const before = await admin.get('/api/v1/me');
    const version = before.body.version as number;
    const cookie = `svc_session=${admin.cookie}; svc_csrf=${admin.csrf}`;

    const missing = await h.http.patch('/api/v1/me').set('Cookie', cookie).send({ name: 'No Header', version });
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('auth.csrf_failed');

    const wrong = await h.http.patch('/api/v1/me').set('Cookie', cookie).set('X-CSRF-Token', `${admin.csrf.slice(0, -2)}xx`)
      .send({ name: 'Wrong Header', version });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('auth.csrf_failed');

    // The CSRF token is bound to its session: another session's valid token does not do.
    const other = await signInAdmin('198.51.100.1');
    const foreign = await h.http.patch('/api/v1/me').set('Cookie', cookie).set('X-CSRF-Token', other.csrf)
      .send({ name: 'Foreign Header', version });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('auth.csrf_failed');

    const unchanged = await admin.get('/api/v1/me');
    expect(unchanged.body).toMatchObject({ name: ADMIN.name, version });

    const right = await h.http.patch('/api/v1/me').set('Cookie', cookie).set('X-CSRF-Token', admin.csrf)
      .send({ name: 'Ada Renamed', version });
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ name: 'Ada Renamed', version: version + 1 });
  });

  it('lets a GET through without a CSRF header', async () => {
    const res = await h.http.get('/api/v1/me').set('Cookie', `svc_session=${admin.cookie}`);
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(ADMIN.email);
  });
});

describe('credentials', () => {
  it('answers a session cookie together with a bearer key with 400 auth.mixed_credentials', async () => {
    const res = await h.http.get('/api/v1/me').set('Cookie', `svc_session=${admin.cookie}`).set('Authorization', `Bearer ${adminKey}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('auth.mixed_credentials');
    // Each credential alone works.
    expect((await h.http.get('/api/v1/me').set('Authorization', `Bearer ${adminKey}`)).status).toBe(200);
    expect((await admin.get('/api/v1/me')).status).toBe(200);
  });

  it('ignores an Authorization header of another scheme beside a session cookie (a proxy\'s Basic), but not alone', async () => {
    const basic = `Basic ${Buffer.from('proxy:user').toString('base64')}`;
    const withSession = await h.http.get('/api/v1/me').set('Cookie', `svc_session=${admin.cookie}`).set('Authorization', basic);
    expect(withSession.status).toBe(200);
    const alone = await h.http.get('/api/v1/me').set('Authorization', basic);
    expect(alone.status).toBe(401);
    expect(alone.body.code).toBe('auth.unauthenticated');
  });

  it('answers no credential, a garbage cookie and a garbage key with 401 auth.unauthenticated', async () => {
    const none = await h.http.get('/api/v1/me');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('auth.unauthenticated');
    const garbage = await h.http.get('/api/v1/me').set('Cookie', 'svc_session=not-a-real-session-token-at-all');
    expect(garbage.status).toBe(401);
    expect(garbage.body.code).toBe('auth.unauthenticated');
    const badKey = await h.http.get('/api/v1/me').set('Authorization', 'Bearer hk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(badKey.status).toBe(401);
    expect(badKey.body.code).toBe('auth.unauthenticated');
  });

  it('refuses an API key on a session-only operation with 403 auth.session_required', async () => {
    const res = await h.http.get('/api/v1/me/sessions').set('Authorization', `Bearer ${adminKey}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('auth.session_required');
    const revokeAll = await h.http.post('/api/v1/me/sessions/revoke-all').set('Authorization', `Bearer ${adminKey}`);
    expect(revokeAll.status).toBe(403);
    expect(revokeAll.body.code).toBe('auth.session_required');
    expect((await admin.get('/api/v1/me')).status).toBe(200); // nothing was revoked
  });
});

describe('the session list', () => {
  let first: SessionClient;
  let second: SessionClient;

  it('lists each session with times, address and user agent, and marks only the caller current', async () => {
    first = await signInAdmin('203.0.113.5', 'HeraldTest/2.0 (first browser)');
    second = await signInAdmin('203.0.113.6', 'HeraldTest/3.0 (second browser)');
    const res = await first.get('/api/v1/me/sessions');
    expect(res.status).toBe(200);
    const items = res.body.items as Array<Record<string, unknown>>;
    const mine = items.filter((s) => s.ip === '203.0.113.5');
    const theirs = items.filter((s) => s.ip === '203.0.113.6');
    expect(mine).toHaveLength(1);
    expect(theirs).toHaveLength(1);
    expect(mine[0]).toMatchObject({ user_agent: 'HeraldTest/2.0 (first browser)', method: 'password', current: true });
    expect(theirs[0]).toMatchObject({ user_agent: 'HeraldTest/3.0 (second browser)', method: 'password', current: false });
    for (const s of [mine[0]!, theirs[0]!]) {
      expect(Date.parse(s.created_at as string)).toBeGreaterThan(Date.now() - 600_000);
      expect(Date.parse(s.last_seen_at as string)).toBeGreaterThanOrEqual(Date.parse(s.created_at as string));
      expect(Date.parse(s.expires_at as string)).toBeGreaterThan(Date.now());
    }
    expect(items.filter((s) => s.current)).toHaveLength(1);
    // Newest first.
    expect(items.indexOf(theirs[0]!)).toBeLessThan(items.indexOf(mine[0]!));
  });

  it('revokes another session of the caller: 204, and that session answers 401 from then on', async () => {
    const secondId = await currentSessionId(second);
    const res = await first.post(`/api/v1/me/sessions/${secondId}/revoke`);
    expect(res.status).toBe(204);
    const after = await second.get('/api/v1/me');
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('auth.unauthenticated');
    expect((await first.get('/api/v1/me')).status).toBe(200);
    const list = await first.get('/api/v1/me/sessions');
    expect((list.body.items as Array<{ id: string }>).map((s) => s.id)).not.toContain(secondId);
    // Revoking it again finds nothing.
    const again = await first.post(`/api/v1/me/sessions/${secondId}/revoke`);
    expect(again.status).toBe(404);
  });

  it('revokes the caller\'s own session by id, clearing its cookies', async () => {
    const own = await signInAdmin('203.0.113.7');
    const id = await currentSessionId(own);
    const res = await own.post(`/api/v1/me/sessions/${id}/revoke`);
    expect(res.status).toBe(204);
    expectCleared(res);
    expect((await own.get('/api/v1/me')).status).toBe(401);
    expect((await first.get('/api/v1/me')).status).toBe(200);
  });

  it('answers 404 for an unknown session id and for a session of another user', async () => {
    const unknown = await first.post(`/api/v1/me/sessions/${randomUUID()}/revoke`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');

    const created = await admin.post('/api/v1/users')
      .send({ name: 'Otto Other', email: 'otto@example.com', role: 'viewer', temporary_password: 'otto temporary pass 1' });
    expect(created.status).toBe(201);
    const login = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '203.0.113.9')
      .send({ email: 'otto@example.com', password: 'otto temporary pass 1' });
    expect(login.status).toBe(200);
    const otto = sessionClient(h, sessionFrom(login));
    const [row] = await sql<Array<{ id: string }>>`select id from sessions where user_id = ${created.body.user.id}`;
    const foreign = await first.post(`/api/v1/me/sessions/${row!.id}/revoke`);
    expect(foreign.status).toBe(404);
    expect((await otto.get('/api/v1/me')).status).toBe(200);
  });
});

describe('session lifetime', () => {
  it('revokes the session a browser already had when it signs in again (rotation)', async () => {
    const old = await signInAdmin('203.0.113.20');
    const res = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '203.0.113.20')
      .set('Cookie', `svc_session=${old.cookie}; svc_csrf=${old.csrf}`)
      .send({ email: ADMIN.email, password: ADMIN.password });
    expect(res.status).toBe(200);
    const fresh = sessionClient(h, sessionFrom(res));
    expect(fresh.cookie).not.toBe(old.cookie);
    const oldAfter = await old.get('/api/v1/me');
    expect(oldAfter.status).toBe(401);
    expect(oldAfter.body.code).toBe('auth.unauthenticated');
    expect((await fresh.get('/api/v1/me')).status).toBe(200);
  });

  it('ends a session idle for two days', async () => {
    const s = await signInAdmin('203.0.113.21');
    const id = await currentSessionId(s);
    await sql`update sessions set last_seen_at = now() - interval '2 hours' where id = ${id}`;
    // The store was changed behind Herald's back (no identity.changed), standing in for time passing: drop held principals as those seconds would.
    h.process.services.authenticator.forget();
    expect((await s.get('/api/v1/me')).status).toBe(200); // two hours idle is fine
    await sql`update sessions set last_seen_at = now() - interval '2 days' where id = ${id}`;
    h.process.services.authenticator.forget();
    const res = await s.get('/api/v1/me');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.unauthenticated');
  });

  it('ends a session past its absolute expiry even while it is in use', async () => {
    const s = await signInAdmin('203.0.113.22');
    const id = await currentSessionId(s);
    await sql`update sessions set expires_at = now() - interval '1 second', last_seen_at = now() where id = ${id}`;
    // The store was changed behind Herald's back (no identity.changed), standing in for time passing: drop held principals as those seconds would.
    h.process.services.authenticator.forget();
    const res = await s.get('/api/v1/me');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.unauthenticated');
  });

  it('logs out: 204, clears both cookies, and the session answers 401 afterwards', async () => {
    const s = await signInAdmin('203.0.113.23');
    const noCsrf = await h.http.post('/api/v1/auth/logout').set('Cookie', `svc_session=${s.cookie}`);
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('auth.csrf_failed');
    expect((await s.get('/api/v1/me')).status).toBe(200);

    const res = await s.post('/api/v1/auth/logout');
    expect(res.status).toBe(204);
    expectCleared(res);
    const after = await s.get('/api/v1/me');
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('auth.unauthenticated');
  });

  it('signs out everywhere with revoke-all, the calling session included', async () => {
    const a = await signInAdmin('203.0.113.24');
    const b = await signInAdmin('203.0.113.25');
    const res = await a.post('/api/v1/me/sessions/revoke-all');
    expect(res.status).toBe(204);
    expectCleared(res);
    for (const client of [a, b, admin]) {
      const after = await client.get('/api/v1/me');
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('auth.unauthenticated');
    }
    const [row] = await sql<Array<{ n: number }>>`
      select count(*)::int as n from sessions s join users u on u.id = s.user_id
      where lower(u.email) = lower(${ADMIN.email}) and s.revoked_at is null`;
    expect(row!.n).toBe(0);
    // API keys are not sessions: they keep working.
    expect((await h.http.get('/api/v1/me').set('Authorization', `Bearer ${adminKey}`)).status).toBe(200);
  });
});
