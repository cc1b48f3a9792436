/**
 * Workspace members: listing by name with cursor pagination, emails for admins only, creation
 * with a given or generated temporary password, versioned updates, the last-admin rule (also
 * under concurrency), disabling and admin password resets taking effect at once.
 */
import { startHerald, type Herald } from '../support/harness.js';
import {
  ADMIN, createKey, createSignedInUser, keyClient, sessionClient, sessionFrom, setupAdmin, type SessionClient,
} from '../support/identity.js';

const NO_SUCH_ID = '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70';

let h: Herald;
let admin: SessionClient;
/** Kim, a second admin created for the last-admin rules. */
let kim: UserBody;
let viewer: SessionClient & { password: string };
/** Gil, created with a given temporary password and signed in with it (used again when disabled). */
let gil: { id: string; version: number; session: SessionClient };

interface UserBody {
  id: string;
  name: string;
  email?: string;
  role: string;
  enabled: boolean;
  must_change_password: boolean;
  version: number;
}

async function createUser(
  name: string, email: string, role: 'viewer' | 'editor' | 'admin',
): Promise<UserBody & { temporary_password: string }> {
  const temporary = `${name} temporary pass 7`;
  const res = await admin.post('/api/v1/users').send({ name, email, role, temporary_password: temporary });
  if (res.status !== 201) throw new Error(`create user answered ${res.status}: ${res.text}`);
  return { ...res.body.user, temporary_password: temporary };
}

async function getUser(id: string): Promise<UserBody> {
  const res = await admin.get(`/api/v1/users/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function login(email: string, password: string, ip: string) {
  return h.http.post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password });
}

beforeAll(async () => {
  h = await startHerald();
  admin = await setupAdmin(h);
  viewer = await createSignedInUser(h, admin, { name: 'Vic Viewer', email: 'vic@example.com', role: 'viewer' });
});

afterAll(async () => {
  await h?.stop();
});

describe('creating users', () => {
  it('takes a given temporary password and does not echo it', async () => {
    const res = await admin.post('/api/v1/users')
      .send({ name: 'Gil Given', email: 'gil@example.com', role: 'editor', temporary_password: 'Gil chose this one 42' });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('temporary_password');
    expect(res.text).not.toContain('Gil chose this one 42');
    expect(res.body.user).toMatchObject({
      name: 'Gil Given', email: 'gil@example.com', role: 'editor', enabled: true, must_change_password: true, version: 1,
    });
    const signedIn = await login('gil@example.com', 'Gil chose this one 42', '10.20.0.1');
    expect(signedIn.status).toBe(200);
    gil = { id: res.body.user.id, version: res.body.user.version, session: sessionClient(h, sessionFrom(signedIn)) };
  });

  it('generates a temporary password when none is given; it signs in and must be changed', async () => {
    const res = await admin.post('/api/v1/users').send({ name: 'Hal Generated', email: 'hal@example.com', role: 'viewer' });
    expect(res.status).toBe(201);
    const temporary = res.body.temporary_password as string;
    expect(typeof temporary).toBe('string');
    expect(temporary.length).toBeGreaterThanOrEqual(12);
    expect(res.body.user.must_change_password).toBe(true);
    const signedIn = await login('hal@example.com', temporary, '10.20.0.2');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toMatchObject({ id: res.body.user.id, must_change_password: true });
  });

  it('refuses a duplicate email, whatever its case, with validation.unique on email', async () => {
    const res = await admin.post('/api/v1/users')
      .send({ name: 'Ada Again', email: ADMIN.email.toUpperCase(), role: 'viewer', temporary_password: 'Ada again password 1' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'email', code: 'validation.unique' })]);
  });

  it('refuses an unknown role with validation.enum on role', async () => {
    const res = await admin.post('/api/v1/users').send({ name: 'Rex Root', email: 'rex@example.com', role: 'root' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'role', code: 'validation.enum' })]));
  });

  it('is for admins only', async () => {
    const res = await viewer.post('/api/v1/users').send({ name: 'Sneaky', email: 'sneaky@example.com', role: 'admin' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('auth.forbidden');
  });
});

describe('reading users', () => {
  it('lists users ordered by name, page by page with next_cursor, each once', async () => {
    const all = await admin.get('/api/v1/users?limit=200');
    expect(all.status).toBe(200);
    const names = all.body.items.map((u: UserBody) => u.name);
    expect(names.length).toBeGreaterThanOrEqual(4);
    expect(names).toEqual([...names].sort());
    expect(all.body).not.toHaveProperty('next_cursor');

    const first = await admin.get('/api/v1/users?limit=1');
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await admin.get(`/api/v1/users?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(1);
      seen.push(res.body.items[0].id);
      cursor = res.body.next_cursor;
    } while (cursor && seen.length <= names.length);
    expect(seen).toEqual(all.body.items.map((u: UserBody) => u.id));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('answers 422 on field cursor for a malformed cursor', async () => {
    const res = await admin.get('/api/v1/users?cursor=not-a-cursor');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'cursor' })]));
  });

  it('answers 422 on field cursor for a well-formed cursor it did not make', async () => {
    const forged = Buffer.from(JSON.stringify(['Ada Admin', 'not-a-user-id'])).toString('base64url');
    const res = await admin.get(`/api/v1/users?cursor=${forged}`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'cursor' })]));
  });

  const SUMMARY = ['created_at', 'id', 'name', 'role', 'updated_at'];
  const DETAILS = [...SUMMARY, 'email', 'enabled', 'last_sign_in_at', 'must_change_password', 'two_factor_enabled', 'version'].sort();

  it('shows a viewer other members\' names and roles only: no emails, no account details', async () => {
    const list = await viewer.get('/api/v1/users');
    expect(list.status).toBe(200);
    expect(list.body.items.length).toBeGreaterThanOrEqual(2);
    for (const u of list.body.items.filter((x: UserBody) => x.id !== viewer.userId)) {
      expect(Object.keys(u).sort()).toEqual(SUMMARY);
    }
    expect(list.text).not.toContain(ADMIN.email);
    const one = await viewer.get(`/api/v1/users/${admin.userId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: admin.userId, name: ADMIN.name, role: 'admin' });
    expect(Object.keys(one.body).sort()).toEqual(SUMMARY);
  });

  it('shows a member their own record in full', async () => {
    const self = await viewer.get(`/api/v1/users/${viewer.userId}`);
    expect(Object.keys(self.body).sort()).toEqual(DETAILS);
    expect(self.body.email).toBe('vic@example.com');
    const list = await viewer.get('/api/v1/users?limit=200');
    expect(list.body.items.find((u: UserBody) => u.id === viewer.userId)?.email).toBe('vic@example.com');
  });

  it('shows emails and account details to an admin', async () => {
    const list = await admin.get('/api/v1/users?limit=200');
    for (const u of list.body.items) expect(Object.keys(u).sort()).toEqual(DETAILS);
    expect(list.body.items.find((u: UserBody) => u.id === viewer.userId)?.email).toBe('vic@example.com');
    const one = await admin.get(`/api/v1/users/${viewer.userId}`);
    expect(one.body.email).toBe('vic@example.com');
  });

  it('shows an admin\'s key no more than its scope allows: a read key of an admin sees no emails', async () => {
    const readKey = keyClient(h, (await createKey(admin, { name: 'admin read key', scope: 'read' })).token);
    const list = await readKey.get('/api/v1/users?limit=200');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('vic@example.com');
    for (const u of list.body.items.filter((x: UserBody) => x.id !== admin.userId)) expect(Object.keys(u).sort()).toEqual(SUMMARY);
    const adminKey = keyClient(h, (await createKey(admin, { name: 'admin admin key', scope: 'admin' })).token);
    const full = await adminKey.get(`/api/v1/users/${viewer.userId}`);
    expect(full.body.email).toBe('vic@example.com');
  });

  it('answers 404 not_found for an unknown user', async () => {
    const res = await admin.get(`/api/v1/users/${NO_SUCH_ID}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});

describe('updating users', () => {
  it('changes name, role and enabled with the current version, which increments; a stale version is 409', async () => {
    const user = await createUser('Ivy Initial', 'ivy@example.com', 'viewer');
    expect(user.version).toBe(1);
    const renamed = await admin.patch(`/api/v1/users/${user.id}`).send({ name: 'Ivy Renamed', version: 1 });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Ivy Renamed', role: 'viewer', enabled: true, version: 2 });
    const promoted = await admin.patch(`/api/v1/users/${user.id}`).send({ role: 'editor', version: 2 });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ role: 'editor', version: 3 });
    const disabled = await admin.patch(`/api/v1/users/${user.id}`).send({ enabled: false, version: 3 });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ enabled: false, version: 4 });
    expect(await getUser(user.id)).toMatchObject({ name: 'Ivy Renamed', role: 'editor', enabled: false, version: 4 });

    const stale = await admin.patch(`/api/v1/users/${user.id}`).send({ role: 'admin', enabled: true, version: 3 });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('conflict.version');
    expect(await getUser(user.id)).toMatchObject({ name: 'Ivy Renamed', role: 'editor', enabled: false, version: 4 });
  });

  it('answers 404 not_found for an unknown user', async () => {
    const res = await admin.patch(`/api/v1/users/${NO_SUCH_ID}`).send({ name: 'Nobody', version: 1 });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});

describe('the last enabled admin', () => {
  it('cannot demote or disable itself when it is the only admin', async () => {
    const before = await getUser(admin.userId);
    const demote = await admin.patch(`/api/v1/users/${admin.userId}`).send({ role: 'editor', version: before.version });
    expect(demote.status).toBe(409);
    expect(demote.body.code).toBe('user.last_admin');
    const disable = await admin.patch(`/api/v1/users/${admin.userId}`).send({ enabled: false, version: before.version });
    expect(disable.status).toBe(409);
    expect(disable.body.code).toBe('user.last_admin');
    expect(await getUser(admin.userId)).toMatchObject({ role: 'admin', enabled: true, version: before.version });
    // A stale version is told first: the caller's picture of the user is old.
    const stale = await admin.patch(`/api/v1/users/${admin.userId}`).send({ role: 'editor', version: before.version + 5 });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('conflict.version');
  });

  it('is the last one although a disabled admin exists; with two enabled admins one can be demoted', async () => {
    const other = await createUser('Kim Second', 'kim@example.com', 'admin');
    const disabled = await admin.patch(`/api/v1/users/${other.id}`).send({ enabled: false, version: other.version });
    expect(disabled.status).toBe(200);

    const me = await getUser(admin.userId);
    const demoteMe = await admin.patch(`/api/v1/users/${admin.userId}`).send({ role: 'viewer', version: me.version });
    expect(demoteMe.status).toBe(409);
    expect(demoteMe.body.code).toBe('user.last_admin');

    const enabled = await admin.patch(`/api/v1/users/${other.id}`).send({ enabled: true, version: disabled.body.version });
    expect(enabled.status).toBe(200);
    const demoted = await admin.patch(`/api/v1/users/${other.id}`).send({ role: 'editor', version: enabled.body.version });
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe('editor');
    kim = demoted.body;
  });
});

describe('disabling and resetting', () => {
  it('ends a disabled user\'s sessions and keys at once', async () => {
    const session = gil.session;
    expect((await session.get('/api/v1/me')).status).toBe(200);
    const key = keyClient(h, (await createKey(admin, { name: 'gil key', scope: 'read', owner_id: gil.id })).token);
    expect((await key.get('/api/v1/users')).status).toBe(200);

    const res = await admin.patch(`/api/v1/users/${gil.id}`).send({ enabled: false, version: (await getUser(gil.id)).version });
    expect(res.status).toBe(200);
    const viaSession = await session.get('/api/v1/me');
    expect(viaSession.status).toBe(401);
    expect(viaSession.body.code).toBe('auth.unauthenticated');
    const viaKey = await key.get('/api/v1/users');
    expect(viaKey.status).toBe(401);
    expect(viaKey.body.code).toBe('auth.unauthenticated');
  });

  it('resets a password: a new temporary one, sessions end, and it must be changed at sign-in', async () => {
    expect((await viewer.get('/api/v1/me')).body.must_change_password).toBe(false);
    const res = await admin.post(`/api/v1/users/${viewer.userId}/reset-password`);
    expect(res.status).toBe(200);
    const temporary = res.body.temporary_password as string;
    expect(temporary.length).toBeGreaterThanOrEqual(12);

    const old = await viewer.get('/api/v1/me');
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('auth.unauthenticated');
    expect((await login('vic@example.com', viewer.password, '10.20.0.4')).status).toBe(401);
    const signedIn = await login('vic@example.com', temporary, '10.20.0.4');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.must_change_password).toBe(true);
    expect((await getUser(viewer.userId)).must_change_password).toBe(true);
  });
});

describe('racing demotions of the last two admins', () => {
  it('lets exactly one succeed; the other answers 409 user.last_admin', async () => {
    // Each admin demotes itself, so neither request's own access depends on the other's outcome.
    const promoted = await admin.patch(`/api/v1/users/${kim.id}`).send({ role: 'admin', version: kim.version });
    expect(promoted.status).toBe(200);
    const second: UserBody = promoted.body;
    const secondKey = keyClient(h, (await createKey(admin, { name: 'kim admin', scope: 'admin', owner_id: second.id })).token);
    const me = await getUser(admin.userId);
    const [a, b] = await Promise.all([
      admin.patch(`/api/v1/users/${admin.userId}`).send({ role: 'editor', version: me.version }),
      secondKey.patch(`/api/v1/users/${second.id}`).send({ role: 'editor', version: second.version }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect([a, b].find((r) => r.status === 409)?.body.code).toBe('user.last_admin');

    const winner = a.status === 409 ? admin : secondKey;
    const list = await winner.get('/api/v1/users?limit=200');
    const admins = list.body.items.filter((u: UserBody) => u.role === 'admin' && u.enabled);
    expect(admins).toHaveLength(1);
  });
});
