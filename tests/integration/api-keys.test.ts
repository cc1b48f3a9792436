/**
 * API keys: created by admins for themselves or another user, shown once, stored as a hash,
 * used as Bearer tokens, revoked or expired at once, limited by scope and by the owner's
 * current role and enabled state, refused on session-only operations.
 */
import postgres from 'postgres';
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, keyClient, setupAdmin, type SessionClient } from '../support/identity.js';

const TOKEN = /^hk_[A-Za-z0-9_-]{32,}$/;
const NO_SUCH_ID = '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70';

let h: Herald;
let sql: postgres.Sql;
let admin: SessionClient;

async function createUser(name: string, email: string, role: 'viewer' | 'editor' | 'admin'): Promise<{ id: string; version: number }> {
  const res = await admin.post('/api/v1/users').send({ name, email, role, temporary_password: `${name} temporary pass 7` });
  if (res.status !== 201) throw new Error(`create user answered ${res.status}: ${res.text}`);
  return { id: res.body.user.id, version: res.body.user.version };
}

async function allKeys(query = ''): Promise<Array<Record<string, unknown>>> {
  const res = await admin.get(`/api/v1/api-keys?limit=200${query}`);
  expect(res.status).toBe(200);
  return res.body.items;
}

beforeAll(async () => {
  h = await startHerald();
  sql = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
  admin = await setupAdmin(h);
});

afterAll(async () => {
  await sql?.end();
  await h?.stop();
});

describe('creating keys', () => {
  it('creates a key for the caller and shows its token once', async () => {
    const res = await admin.post('/api/v1/api-keys').send({ name: 'ci pipeline', scope: 'read' });
    expect(res.status).toBe(201);
    const { key, token } = res.body;
    expect(token).toMatch(TOKEN);
    expect(key.prefix).toBe(token.slice(0, 8));
    expect(key).toMatchObject({
      name: 'ci pipeline', scope: 'read', owner_id: admin.userId, created_by: admin.userId,
      expires_at: null, last_used_at: null, revoked_at: null,
    });

    const listed = await admin.get('/api/v1/api-keys');
    expect(listed.status).toBe(200);
    const item = listed.body.items.find((k: { id: string }) => k.id === key.id);
    expect(item).toMatchObject({ id: key.id, prefix: key.prefix, name: 'ci pipeline', scope: 'read' });
    expect(item).not.toHaveProperty('token');
    expect(listed.text).not.toContain(token);
    expect(listed.text).not.toContain(token.slice(3));
  });

  it('stores only a hash of the token', async () => {
    const { id, token } = await createKey(admin, { name: 'hash check', scope: 'write' });
    const rows = await sql<Array<{ id: string; row: string }>>`select k.id::text as id, k::text as row from api_keys k`;
    expect(rows.map((r) => r.id)).toContain(id);
    const dump = rows.map((r) => r.row).join('\n');
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice(3));
    expect(dump).not.toContain(token.slice(8));
  });

  it('creates a key for another user', async () => {
    const other = await createUser('Owen Other', 'owen@example.com', 'editor');
    const res = await admin.post('/api/v1/api-keys').send({ name: 'owen key', scope: 'run', owner_id: other.id });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatchObject({ owner_id: other.id, created_by: admin.userId, scope: 'run' });
    expect(res.body.token).toMatch(TOKEN);
    const me = await keyClient(h, res.body.token).get('/api/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(other.id);
  });

  it('refuses an owner that is not a user with 422 on owner_id', async () => {
    const res = await admin.post('/api/v1/api-keys').send({ name: 'orphan', scope: 'read', owner_id: NO_SUCH_ID });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'owner_id' })]));
  });

  it('refuses an expiry in the past with 422 on expires_at', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const res = await admin.post('/api/v1/api-keys').send({ name: 'too late', scope: 'read', expires_at: past });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'expires_at' })]));
    expect((await allKeys()).map((k) => k.name)).not.toContain('too late');
  });
});

describe('using keys', () => {
  it('authenticates with Authorization: Bearer and records last_used_at', async () => {
    const { id, token } = await createKey(admin, { name: 'bearer use', scope: 'read' });
    expect((await allKeys()).find((k) => k.id === id)?.last_used_at).toBeNull();
    const res = await keyClient(h, token).get('/api/v1/users');
    expect(res.status).toBe(200);
    expect(res.body.items.map((u: { id: string }) => u.id)).toContain(admin.userId);
    const used = (await allKeys()).find((k) => k.id === id);
    expect(used?.last_used_at).toEqual(expect.any(String));
    expect(Date.parse(used!.last_used_at as string)).toBeGreaterThanOrEqual(Date.parse(used!.created_at as string));
  });

  it('answers 401 auth.unauthenticated for an unknown token', async () => {
    const res = await keyClient(h, `hk_${'A'.repeat(43)}`).get('/api/v1/users');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.unauthenticated');
  });

  it('revokes a key: 200 with revoked_at, and the key answers 401 at once', async () => {
    const { id, token } = await createKey(admin, { name: 'to revoke', scope: 'admin' });
    const client = keyClient(h, token);
    expect((await client.get('/api/v1/users')).status).toBe(200);
    const res = await admin.post(`/api/v1/api-keys/${id}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    expect(res.body.revoked_at).toEqual(expect.any(String));
    expect(res.body).not.toHaveProperty('token');
    const after = await client.get('/api/v1/users');
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('auth.unauthenticated');
    expect((await allKeys()).find((k) => k.id === id)?.revoked_at).toBe(res.body.revoked_at);
  });

  it('answers 404 when revoking an unknown key', async () => {
    const res = await admin.post(`/api/v1/api-keys/${NO_SUCH_ID}/revoke`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('answers 401 for a key whose expiry has passed', async () => {
    const future = new Date(Date.now() + 3600_000).toISOString();
    const { id, token } = await createKey(admin, { name: 'expiring', scope: 'read', expires_at: future });
    const client = keyClient(h, token);
    expect((await client.get('/api/v1/users')).status).toBe(200);
    await sql`update api_keys set expires_at = now() - interval '1 second' where id = ${id}`;
    // The store was changed behind Herald's back (no identity.changed), standing in for time passing: drop held principals as those seconds would.
    h.process.services.authenticator.forget();
    const res = await client.get('/api/v1/users');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.unauthenticated');
    const events = await admin.get('/api/v1/security-events?type=api_key.rejected&limit=200');
    expect(events.body.items.find((e: { target: { id: string } }) => e.target.id === id)).toMatchObject({ reason: 'auth.key_expired' });
  });

  it('records the use of a revoked, expired or disabled owner\'s key as api_key.rejected, once a minute per key', async () => {
    const { id, token } = await createKey(admin, { name: 'rejected later', scope: 'read' });
    await admin.post(`/api/v1/api-keys/${id}/revoke`);
    for (let i = 0; i < 3; i++) {
      expect((await h.http.get('/api/v1/users').set('Authorization', `Bearer ${token}`).set('X-Forwarded-For', '198.51.100.66')).status).toBe(401);
    }
    // A token that names no key is noise, not an event.
    await h.http.get('/api/v1/users').set('Authorization', 'Bearer hk_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
    const res = await admin.get('/api/v1/security-events?type=api_key.rejected&limit=200');
    const forKey = (res.body.items as Array<Record<string, unknown>>).filter((e) => (e.target as { id: string } | null)?.id === id);
    expect(forKey).toHaveLength(1);
    expect(forKey[0]).toMatchObject({
      outcome: 'failure', reason: 'auth.key_revoked', ip: '198.51.100.66', actor: { type: 'api_key', api_key_id: id }, target: { type: 'api_key', id },
    });
  });
});

describe('what a key may do', () => {
  it('limits a key to its scope', async () => {
    const read = keyClient(h, (await createKey(admin, { name: 'read only', scope: 'read' })).token);
    expect((await read.get('/api/v1/users')).status).toBe(200);
    const create = await read.post('/api/v1/api-keys').send({ name: 'escalation', scope: 'admin' });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('auth.forbidden');

    const write = keyClient(h, (await createKey(admin, { name: 'write only', scope: 'write' })).token);
    const events = await write.get('/api/v1/security-events');
    expect(events.status).toBe(403);
    expect(events.body.code).toBe('auth.forbidden');

    const full = keyClient(h, (await createKey(admin, { name: 'admin scope', scope: 'admin' })).token);
    expect((await full.get('/api/v1/security-events')).status).toBe(200);
    const made = await full.post('/api/v1/api-keys').send({ name: 'made by a key', scope: 'read' });
    expect(made.status).toBe(201);
    expect(made.body.key.owner_id).toBe(admin.userId);
    expect((await allKeys()).map((k) => k.name)).not.toContain('escalation');
  });

  it('never exceeds its owner: an admin-scope key of a viewer has viewer rights', async () => {
    const viewer = await createUser('Vera Viewer', 'vera@example.com', 'viewer');
    const key = keyClient(h, (await createKey(admin, { name: 'vera admin key', scope: 'admin', owner_id: viewer.id })).token);
    const create = await key.post('/api/v1/api-keys').send({ name: 'vera escalation', scope: 'admin' });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('auth.forbidden');
    const events = await key.get('/api/v1/security-events');
    expect(events.status).toBe(403);
    expect(events.body.code).toBe('auth.forbidden');
    expect((await key.get('/api/v1/users')).status).toBe(200);
  });

  it('loses admin rights at once when its admin owner is demoted', async () => {
    const owner = await createUser('Otto Owner', 'otto@example.com', 'admin');
    const key = keyClient(h, (await createKey(admin, { name: 'otto admin key', scope: 'admin', owner_id: owner.id })).token);
    expect((await key.get('/api/v1/security-events')).status).toBe(200);
    const demoted = await admin.patch(`/api/v1/users/${owner.id}`).send({ role: 'editor', version: owner.version });
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe('editor');
    const events = await key.get('/api/v1/security-events');
    expect(events.status).toBe(403);
    expect(events.body.code).toBe('auth.forbidden');
    const create = await key.post('/api/v1/api-keys').send({ name: 'otto escalation', scope: 'read' });
    expect(create.status).toBe(403);
    expect((await key.get('/api/v1/users')).status).toBe(200);
  });

  it('stops working when its owner is disabled', async () => {
    const owner = await createUser('Dora Disabled', 'dora@example.com', 'editor');
    const key = keyClient(h, (await createKey(admin, { name: 'dora key', scope: 'write', owner_id: owner.id })).token);
    expect((await key.get('/api/v1/users')).status).toBe(200);
    const disabled = await admin.patch(`/api/v1/users/${owner.id}`).send({ enabled: false, version: owner.version });
    expect(disabled.status).toBe(200);
    const res = await key.get('/api/v1/users');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.unauthenticated');
    const events = await admin.get(`/api/v1/security-events?type=api_key.rejected&user_id=${owner.id}`);
    expect(events.body.items.map((e: { reason: string }) => e.reason)).toEqual(['auth.user_disabled']);
  });

  it('is refused with 403 auth.session_required on session-only operations', async () => {
    const key = keyClient(h, (await createKey(admin, { name: 'session only check', scope: 'admin' })).token);
    const logout = await key.post('/api/v1/auth/logout');
    expect(logout.status).toBe(403);
    expect(logout.body.code).toBe('auth.session_required');
    const sessions = await key.get('/api/v1/me/sessions');
    expect(sessions.status).toBe(403);
    expect(sessions.body.code).toBe('auth.session_required');
    // The admin's own session still works: the key did not sign anybody out.
    expect((await admin.get('/api/v1/me/sessions')).status).toBe(200);
  });
});

describe('listing keys', () => {
  it('filters by owner_id', async () => {
    const owner = await createUser('Finn Filter', 'finn@example.com', 'editor');
    const a = await createKey(admin, { name: 'finn one', scope: 'read', owner_id: owner.id });
    const b = await createKey(admin, { name: 'finn two', scope: 'run', owner_id: owner.id });
    const res = await admin.get(`/api/v1/api-keys?owner_id=${owner.id}`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((k: { id: string }) => k.id).sort()).toEqual([a.id, b.id].sort());
    const mine = await allKeys(`&owner_id=${admin.userId}`);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((k) => k.owner_id === admin.userId)).toBe(true);
    expect(mine.map((k) => k.id)).not.toContain(a.id);
  });

  it('pages with limit and next_cursor, newest first, without repeats', async () => {
    const all = (await allKeys()).map((k) => k.id as string);
    expect(all.length).toBeGreaterThan(2);
    const first = await admin.get('/api/v1/api-keys?limit=1');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await admin.get(`/api/v1/api-keys?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.status).toBe(200);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await admin.get(`/api/v1/api-keys?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((k: { id: string }) => k.id));
      cursor = res.body.next_cursor;
    } while (cursor && seen.length <= all.length);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
    const created = (await allKeys()).map((k) => Date.parse(k.created_at as string));
    expect(created).toEqual([...created].sort((x, y) => y - x));
  });

  it('answers 422 on field cursor for a cursor it did not make', async () => {
    const malformed = await admin.get('/api/v1/api-keys?cursor=not-a-cursor');
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'cursor' })]));
    const forged = Buffer.from(JSON.stringify(['not-a-key-id'])).toString('base64url');
    const res = await admin.get(`/api/v1/api-keys?cursor=${forged}`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'cursor' })]));
  });
});

describe('held principals', () => {
  it('holds a key\'s principal once the process hears identity changes, and refuses it on the very next request after its revocation', async () => {
    // Awaiting a subscription of our own: the feed has started, so the authenticator's (made first) is in place.
    await (await h.process.container.events.subscribe(() => undefined))();
    expect(h.process.services.authenticator.holding).toBe(true);
    const { id, token } = await createKey(admin, { name: 'held', scope: 'read' });
    const client = keyClient(h, token);
    expect((await client.get('/api/v1/me')).status).toBe(200);
    expect((await client.get('/api/v1/me')).status).toBe(200);
    expect((await admin.post(`/api/v1/api-keys/${id}/revoke`)).status).toBe(200);
    const res = await client.get('/api/v1/me');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.unauthenticated');
  });

  it('refuses a key revoked through another API process on the next request once that process hears of it', async () => {
    const other = await startHerald({ iso: h.iso });
    try {
      await (await other.process.container.events.subscribe(() => undefined))();
      expect(other.process.services.authenticator.holding).toBe(true);
      const { id, token } = await createKey(admin, { name: 'two processes', scope: 'read' });
      const onOther = keyClient(other, token);
      expect((await onOther.get('/api/v1/me')).status).toBe(200);
      expect((await onOther.get('/api/v1/me')).status).toBe(200);
      const heard = new Promise<void>((resolve) => {
        void other.process.container.events.subscribe((e) => {
          if (e.type === 'identity.changed' && e.data.user_id === admin.userId) resolve();
        });
      });
      expect((await admin.post(`/api/v1/api-keys/${id}/revoke`)).status).toBe(200);
      await heard;
      const res = await onOther.get('/api/v1/me');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('auth.unauthenticated');
    } finally {
      await other.stop();
    }
  });

  it('refuses a disabled user\'s key and drops a demoted user\'s rights on the next request', async () => {
    const created = await admin.post('/api/v1/users').send({ name: 'Held Harry', email: 'held.harry@example.com', role: 'admin', temporary_password: 'Held Harry temporary pass 7' });
    expect(created.status).toBe(201);
    const user = created.body.user as { id: string; version: number };
    const { token } = await createKey(admin, { name: 'harry', scope: 'admin', owner_id: user.id });
    const client = keyClient(h, token);
    expect((await client.get('/api/v1/api-keys')).status).toBe(200);
    const demoted = await admin.patch(`/api/v1/users/${user.id}`).send({ role: 'viewer', version: user.version });
    expect(demoted.status).toBe(200);
    expect((await client.get('/api/v1/api-keys')).status).toBe(403);
    expect((await admin.patch(`/api/v1/users/${user.id}`).send({ enabled: false, version: demoted.body.version })).status).toBe(200);
    expect((await client.get('/api/v1/me')).status).toBe(401);
  });
});
