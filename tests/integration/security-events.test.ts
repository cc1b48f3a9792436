/**
 * The audit trail: a sequence of security-relevant actions, each from its own address and user
 * agent, must appear newest first with its actor, address and agent; filters and pagination
 * work; nothing secret is ever recorded; only admins (with an admin-scope credential) may read it.
 */
import postgres from 'postgres';
import { startHerald, type Herald } from '../support/harness.js';
import {
  ADMIN, createSignedInUser, keyClient, sessionClient, sessionFrom, type SessionClient,
} from '../support/identity.js';

interface EventBody {
  id: string;
  type: string;
  occurred_at: string;
  outcome: 'success' | 'failure';
  reason: string | null;
  actor: { type: 'user' | 'api_key' | 'anonymous'; user_id: string | null; api_key_id: string | null };
  target: { type: string; id: string } | null;
  user_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

let h: Herald;
let sql: postgres.Sql;
let admin: SessionClient;
/** Everything secret the test used; none of it may appear in the security_events table. */
const secrets: string[] = [];
/** Each action: the address and user agent it was sent with. */
const sent: Record<string, { ip: string; ua: string }> = {};
const ids: { adminKey?: string; revokedKey?: string; uma?: string; signInSession?: string } = {};

function from(action: string, n: number) {
  const where = { ip: `198.51.100.${n}`, ua: `HeraldAuditTest/${n} (${action})` };
  sent[action] = where;
  return where;
}

async function allEvents(query = ''): Promise<EventBody[]> {
  const res = await admin.get(`/api/v1/security-events?limit=200${query}`);
  expect(res.status).toBe(200);
  expect(res.body).not.toHaveProperty('next_cursor');
  return res.body.items;
}

beforeAll(async () => {
  h = await startHerald();
  sql = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });

  // 1. First-run setup.
  let w = from('setup', 1);
  const setup = await h.http.post('/api/v1/setup').set('X-Forwarded-For', w.ip).set('User-Agent', w.ua).send(ADMIN);
  if (setup.status !== 201) throw new Error(`setup answered ${setup.status}: ${setup.text}`);
  admin = sessionClient(h, sessionFrom(setup));
  secrets.push(ADMIN.password, admin.cookie, admin.csrf);
  const as = (c: SessionClient, ww: { ip: string; ua: string }) => ({
    get: (url: string) => c.get(url).set('X-Forwarded-For', ww.ip).set('User-Agent', ww.ua),
    post: (url: string) => c.post(url).set('X-Forwarded-For', ww.ip).set('User-Agent', ww.ua),
    patch: (url: string) => c.patch(url).set('X-Forwarded-For', ww.ip).set('User-Agent', ww.ua),
  });

  // 2. A failed sign-in with a wrong password.
  w = from('failed sign-in', 2);
  const wrong = 'not the right password at all';
  secrets.push(wrong);
  const failed = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', w.ip).set('User-Agent', w.ua)
    .send({ email: ADMIN.email, password: wrong });
  if (failed.status !== 401) throw new Error(`wrong password answered ${failed.status}`);

  // 3. A sign-in (a second session), 4. signed out again.
  w = from('sign-in', 3);
  const login = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', w.ip).set('User-Agent', w.ua)
    .send({ email: ADMIN.email, password: ADMIN.password });
  if (login.status !== 200) throw new Error(`sign-in answered ${login.status}`);
  const second = sessionClient(h, sessionFrom(login));
  secrets.push(second.cookie, second.csrf);
  const listed = await second.get('/api/v1/me/sessions');
  ids.signInSession = listed.body.items.find((s: { current: boolean }) => s.current).id;
  w = from('sign-out', 4);
  const out = await as(second, w).post('/api/v1/auth/logout');
  if (out.status !== 204) throw new Error(`logout answered ${out.status}`);

  // 5. A third session, revoked from the first.
  const third = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.99')
    .send({ email: ADMIN.email, password: ADMIN.password });
  const thirdSession = sessionClient(h, sessionFrom(third));
  secrets.push(thirdSession.cookie, thirdSession.csrf);
  const sessions = await admin.get('/api/v1/me/sessions');
  const thirdId = sessions.body.items.find((s: { ip: string | null }) => s.ip === '198.51.100.99').id;
  w = from('session revoke', 5);
  const revoked = await as(admin, w).post(`/api/v1/me/sessions/${thirdId}/revoke`);
  if (revoked.status !== 204) throw new Error(`session revoke answered ${revoked.status}`);

  // 6. A password change (the current session stays).
  w = from('password change', 6);
  const newPassword = 'an entirely new admin passphrase 9';
  secrets.push(newPassword);
  const changed = await as(admin, w).post('/api/v1/me/password').send({ current_password: ADMIN.password, new_password: newPassword });
  if (changed.status !== 204) throw new Error(`password change answered ${changed.status}: ${changed.text}`);

  // 7. API keys: one created and kept (admin scope), one created and revoked.
  w = from('key creation', 7);
  const adminKey = await as(admin, w).post('/api/v1/api-keys').send({ name: 'audit admin key', scope: 'admin' });
  if (adminKey.status !== 201) throw new Error(`key creation answered ${adminKey.status}`);
  ids.adminKey = adminKey.body.key.id;
  secrets.push(adminKey.body.token);
  const doomed = await admin.post('/api/v1/api-keys').send({ name: 'audit doomed key', scope: 'read' });
  ids.revokedKey = doomed.body.key.id;
  secrets.push(doomed.body.token);
  w = from('key revocation', 8);
  const revokedKey = await as(admin, w).post(`/api/v1/api-keys/${ids.revokedKey}/revoke`);
  if (revokedKey.status !== 200) throw new Error(`key revocation answered ${revokedKey.status}`);

  // 8. A user created with the admin key (actor api_key), then changed and reset by the session.
  w = from('user creation', 9);
  const key = keyClient(h, adminKey.body.token);
  const temporary = 'Uma temporary passphrase 3';
  secrets.push(temporary);
  const uma = await key.post('/api/v1/users').set('X-Forwarded-For', w.ip).set('User-Agent', w.ua)
    .send({ name: 'Uma User', email: 'uma@example.com', role: 'viewer', temporary_password: temporary });
  if (uma.status !== 201) throw new Error(`user creation answered ${uma.status}: ${uma.text}`);
  ids.uma = uma.body.user.id;
  w = from('role change', 10);
  const role = await as(admin, w).patch(`/api/v1/users/${ids.uma}`).send({ role: 'editor', version: uma.body.user.version });
  if (role.status !== 200) throw new Error(`role change answered ${role.status}`);
  w = from('enabled change', 11);
  const enabled = await as(admin, w).patch(`/api/v1/users/${ids.uma}`).send({ enabled: false, version: role.body.version });
  if (enabled.status !== 200) throw new Error(`enabled change answered ${enabled.status}`);
  w = from('admin password reset', 12);
  const reset = await as(admin, w).post(`/api/v1/users/${ids.uma}/reset-password`);
  if (reset.status !== 200) throw new Error(`password reset answered ${reset.status}`);
  secrets.push(reset.body.temporary_password);
});

afterAll(async () => {
  await sql?.end();
  await h?.stop();
});

describe('the security event list', () => {
  it('lists events newest first', async () => {
    const events = await allEvents();
    expect(events.length).toBeGreaterThanOrEqual(14);
    const idsInOrder = events.map((e) => e.id);
    expect(idsInOrder).toEqual([...idsInOrder].sort().reverse());
    const times = events.map((e) => Date.parse(e.occurred_at));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1]!);
    // The first action is the oldest event, the last action the newest.
    expect(events[events.length - 1]!.type).toMatch(/^(setup\.completed|user\.created)$/);
    expect(events[0]!.type).toBe('user.password_reset_by_admin');
  });

  it('records each action with its actor, address and user agent', async () => {
    const events = await allEvents();
    const one = (type: string, pick: (e: EventBody) => boolean = () => true) => {
      const found = events.filter((e) => e.type === type && pick(e));
      expect(found).toHaveLength(1);
      return found[0]!;
    };
    const byAdmin = { type: 'user', user_id: admin.userId, api_key_id: null };
    const at = (action: string) => ({ ip: sent[action]!.ip, user_agent: sent[action]!.ua });

    expect(one('setup.completed')).toMatchObject({ outcome: 'success', actor: byAdmin, user_id: admin.userId, ...at('setup') });
    expect(one('auth.sign_in', (e) => e.outcome === 'failure')).toMatchObject({
      reason: 'auth.invalid_credentials', actor: { type: 'anonymous', user_id: null, api_key_id: null }, user_id: admin.userId, ...at('failed sign-in'),
    });
    expect(one('auth.sign_in', (e) => e.ip === sent['sign-in']!.ip)).toMatchObject({
      outcome: 'success', reason: null, actor: byAdmin, user_id: admin.userId, target: { type: 'session', id: ids.signInSession }, ...at('sign-in'),
    });
    expect(one('auth.sign_out')).toMatchObject({ actor: byAdmin, target: { type: 'session', id: ids.signInSession }, ...at('sign-out') });
    expect(one('session.revoked')).toMatchObject({ actor: byAdmin, user_id: admin.userId, ...at('session revoke') });
    expect(one('auth.password_changed')).toMatchObject({ outcome: 'success', actor: byAdmin, user_id: admin.userId, ...at('password change') });
    expect(one('api_key.created', (e) => e.target?.id === ids.adminKey)).toMatchObject({
      actor: byAdmin, user_id: admin.userId, target: { type: 'api_key', id: ids.adminKey }, ...at('key creation'),
    });
    expect(one('api_key.revoked')).toMatchObject({ actor: byAdmin, target: { type: 'api_key', id: ids.revokedKey }, ...at('key revocation') });
    expect(one('user.created', (e) => e.user_id === ids.uma)).toMatchObject({
      actor: { type: 'api_key', user_id: admin.userId, api_key_id: ids.adminKey }, target: { type: 'user', id: ids.uma }, ...at('user creation'),
    });
    expect(one('user.role_changed')).toMatchObject({
      actor: byAdmin, user_id: ids.uma, details: { from: 'viewer', to: 'editor' }, ...at('role change'),
    });
    expect(one('user.enabled_changed')).toMatchObject({
      actor: byAdmin, user_id: ids.uma, details: { enabled: false }, ...at('enabled change'),
    });
    expect(one('user.password_reset_by_admin')).toMatchObject({ actor: byAdmin, user_id: ids.uma, ...at('admin password reset') });
  });

  it('filters by type', async () => {
    const res = await admin.get('/api/v1/security-events?type=auth.sign_in');
    expect(res.status).toBe(200);
    const types = res.body.items.map((e: EventBody) => e.type);
    expect(types.length).toBeGreaterThanOrEqual(3);
    expect(new Set(types)).toEqual(new Set(['auth.sign_in']));
    expect(new Set(res.body.items.map((e: EventBody) => e.outcome))).toEqual(new Set(['success', 'failure']));
    const none = await admin.get('/api/v1/security-events?type=no_such.type');
    expect(none.status).toBe(200);
    expect(none.body.items).toEqual([]);
  });

  it('filters by user: the events where the user acted or was acted on', async () => {
    const all = await allEvents();
    const expected = all.filter((e) => e.user_id === ids.uma || e.actor.user_id === ids.uma).map((e) => e.id);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    const filtered = await allEvents(`&user_id=${ids.uma}`);
    expect(filtered.map((e) => e.id)).toEqual(expected);
    expect(filtered.length).toBeLessThan(all.length);
    expect(new Set(filtered.map((e) => e.type))).toEqual(new Set([
      'user.created', 'user.role_changed', 'user.enabled_changed', 'user.password_reset_by_admin',
    ]));
    const byAdmin = await allEvents(`&user_id=${admin.userId}`);
    expect(byAdmin.map((e) => e.type)).toEqual(expect.arrayContaining(['user.role_changed', 'auth.sign_out', 'setup.completed']));
  });

  it('pages with limit=2 through every event once', async () => {
    const all = (await allEvents()).map((e) => e.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await admin.get(`/api/v1/security-events?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((e: EventBody) => e.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor && pages <= all.length);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(all);
  });

  it('answers 422 on field cursor for a malformed cursor', async () => {
    const res = await admin.get('/api/v1/security-events?cursor=certainly-not-a-cursor');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'cursor' })]));
  });

  it('answers 422 on field cursor for a well-formed cursor it did not make', async () => {
    const forged = Buffer.from(JSON.stringify(['not-an-event-id'])).toString('base64url');
    const res = await admin.get(`/api/v1/security-events?cursor=${forged}`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'cursor' })]));
  });
});

describe('what the trail keeps and who reads it', () => {
  it('records nothing secret', async () => {
    const rows = await sql<Array<{ row: string }>>`select e::text as row from security_events e`;
    expect(rows.length).toBeGreaterThanOrEqual(14);
    const dump = rows.map((r) => r.row).join('\n');
    expect(secrets.length).toBeGreaterThanOrEqual(13);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThanOrEqual(10);
      expect(dump).not.toContain(secret);
    }
    // Nor the random part of a key token, in case the prefix were stripped.
    for (const token of secrets.filter((s) => s.startsWith('hk_'))) expect(dump).not.toContain(token.slice(3));
  });

  it('refuses a viewer session and a read key with 403 auth.forbidden', async () => {
    const viewer = await createSignedInUser(h, admin, { name: 'Val Viewer', email: 'val@example.com', role: 'viewer' });
    const asViewer = await viewer.get('/api/v1/security-events');
    expect(asViewer.status).toBe(403);
    expect(asViewer.body.code).toBe('auth.forbidden');
    const readKey = await admin.post('/api/v1/api-keys').send({ name: 'audit read key', scope: 'read' });
    const asKey = await keyClient(h, readKey.body.token).get('/api/v1/security-events');
    expect(asKey.status).toBe(403);
    expect(asKey.body.code).toBe('auth.forbidden');
  });
});

describe('event times under concurrency', () => {
  it('keeps occurred_at in list order when a change had to wait for a lock', async () => {
    // Hold Uma's row so that a role change starts its transaction, then waits; meanwhile another
    // event is recorded. The role change is recorded after it, so it must not claim an earlier time.
    const current = await admin.get(`/api/v1/users/${ids.uma}`);
    const lockerIp = '198.51.100.77';
    let patch: Promise<{ status: number }> | undefined;
    await sql.begin(async (tx) => {
      await tx`select id from users where id = ${ids.uma!} for update`;
      patch = admin.patch(`/api/v1/users/${ids.uma}`).send({ role: 'viewer', version: current.body.version }).then((r) => r);
      await waitForLockWait();
      const failed = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', lockerIp)
        .send({ email: ADMIN.email, password: 'wrong while a change waits' });
      expect(failed.status).toBe(401);
    });
    expect((await patch!).status).toBe(200);

    const events = await allEvents();
    const change = events.findIndex((e) => e.type === 'user.role_changed' && e.details.to === 'viewer');
    const signIn = events.findIndex((e) => e.type === 'auth.sign_in' && e.ip === lockerIp);
    expect(change).toBeGreaterThanOrEqual(0);
    expect(signIn).toBeGreaterThan(change); // recorded later, so listed first
    expect(Date.parse(events[change]!.occurred_at)).toBeGreaterThanOrEqual(Date.parse(events[signIn]!.occurred_at));
  });
});

const setCookies = (res: { headers: Record<string, unknown> }) => (res.headers['set-cookie'] as string[] | undefined) ?? [];

describe('sign-in failures by reason, and signing out everywhere', () => {
  it('records an unknown address as auth.unknown_user and a disabled user as auth.user_disabled, and refuses both alike', async () => {
    const unknown = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.120')
      .send({ email: 'nobody.here@example.com', password: 'any long password 1' });
    // Uma is disabled (above); her right password still gets her nowhere.
    const reset = await admin.post(`/api/v1/users/${ids.uma}/reset-password`).send({ temporary_password: 'Uma right passphrase 21' });
    expect(reset.status).toBe(200);
    const disabled = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.121')
      .send({ email: 'uma@example.com', password: 'Uma right passphrase 21' });
    for (const res of [unknown, disabled]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('auth.invalid_credentials');
      expect(setCookies(res).some((c) => c.startsWith('svc_session='))).toBe(false);
    }
    const events = await allEvents('&type=auth.sign_in');
    expect(events.find((e) => e.ip === '198.51.100.120')).toMatchObject({ outcome: 'failure', reason: 'auth.unknown_user', user_id: null });
    expect(events.find((e) => e.ip === '198.51.100.121')).toMatchObject({ outcome: 'failure', reason: 'auth.user_disabled', user_id: ids.uma });
  });

  it('records signing out everywhere as session.revoked_all with the number of sessions ended', async () => {
    const signed = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.122')
      .send({ email: 'val@example.com', password: 'Val Viewer has a long password 42' });
    expect(signed.status).toBe(200);
    const val = sessionClient(h, sessionFrom(signed));
    const other = sessionClient(h, sessionFrom(await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.123')
      .send({ email: 'val@example.com', password: 'Val Viewer has a long password 42' })));
    const res = await val.post('/api/v1/me/sessions/revoke-all').set('X-Forwarded-For', '198.51.100.122');
    expect(res.status).toBe(204);
    expect((await other.get('/api/v1/me')).status).toBe(401);
    const [event] = await allEvents(`&type=session.revoked_all&user_id=${val.userId}`);
    expect(event).toMatchObject({
      type: 'session.revoked_all', outcome: 'success', actor: { type: 'user', user_id: val.userId }, user_id: val.userId, ip: '198.51.100.122',
    });
    expect((event!.details as { sessions_ended?: number }).sessions_ended).toBeGreaterThanOrEqual(2);
  });
});

/** Polls until some statement of this database waits for a lock. */
async function waitForLockWait(): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = await sql<Array<{ n: number }>>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    if ((row?.n ?? 0) > 0) return;
    if (Date.now() > deadline) throw new Error('no statement started waiting for the lock');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
