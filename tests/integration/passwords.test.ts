/**
 * The password policy (length, not the email, not a common password) reported per field; how
 * passwords are stored (bcrypt, cost ≥ 12, never truncated at 72 bytes); the forced change of an
 * admin-made temporary password; and what a password change does to the user's other sessions.
 */
import postgres from 'postgres';
import { startHerald, type Herald } from '../support/harness.js';
import { ADMIN, sessionClient, sessionFrom, setupAdmin, type SessionClient } from '../support/identity.js';

let h: Herald;
let sql: postgres.Sql;
let admin: SessionClient;

beforeAll(async () => {
  h = await startHerald({ productionBcrypt: true });
  sql = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
});
afterAll(async () => {
  await sql.end();
  await h.stop();
});

const BCRYPT_12_OR_MORE = /^\$2[aby]\$(1[2-9]|[2-9]\d)\$/;

/** The errors[] of a 422 reduced to field and code. */
function fieldCodes(res: { body: { errors?: Array<{ field: string; code: string }> } }) {
  return (res.body.errors ?? []).map((e) => ({ field: e.field, code: e.code }));
}

async function storedHash(email: string): Promise<string> {
  const [row] = await sql<Array<{ password_hash: string }>>`select password_hash from users where lower(email) = lower(${email})`;
  if (!row) throw new Error(`no user ${email}`);
  return row.password_hash;
}

async function login(email: string, password: string, ip: string) {
  return h.http.post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password });
}

describe('the password policy', () => {
  const setupWith = (password: string) =>
    h.http.post('/api/v1/setup').send({ name: ADMIN.name, email: ADMIN.email, password });

  it('rejects setup passwords of 9 and of 129 characters with validation.range on password', async () => {
    for (const password of ['x7Kq2mWp9', 'long passphrase '.repeat(8) + 'z']) {
      expect([...password].length === 9 || [...password].length === 129).toBe(true);
      const res = await setupWith(password);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation.failed');
      expect(fieldCodes(res)).toEqual([{ field: 'password', code: 'validation.range' }]);
    }
  });

  it('rejects a setup password equal to the email with validation.password_matches_email', async () => {
    const res = await setupWith(ADMIN.email.toUpperCase());
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(fieldCodes(res)).toEqual([{ field: 'password', code: 'validation.password_matches_email' }]);
  });

  it('rejects common setup passwords of 10 or more characters with validation.password_too_common', async () => {
    for (const password of ['qwertyuiop', 'password123', 'Password123']) {
      const res = await setupWith(password);
      expect(res.status).toBe(422);
      expect(fieldCodes(res)).toEqual([{ field: 'password', code: 'validation.password_too_common' }]);
    }
    const status = await h.http.get('/api/v1/setup/status');
    expect(status.body).toEqual({ needs_setup: true }); // nothing was created by the refusals
  });

  it('accepts a good setup password and stores it as bcrypt with cost 12 or more', async () => {
    admin = await setupAdmin(h);
    const hash = await storedHash(ADMIN.email);
    expect(hash).toMatch(BCRYPT_12_OR_MORE);
    expect(hash).not.toContain(ADMIN.password);
  });

  it('applies the same policy to new_password on POST /me/password', async () => {
    const change = (new_password: string) =>
      admin.post('/api/v1/me/password').send({ current_password: ADMIN.password, new_password });
    const cases: Array<[string, string]> = [
      ['x7Kq2mWp9', 'validation.range'],
      ['n'.repeat(129), 'validation.range'],
      [ADMIN.email, 'validation.password_matches_email'],
      ['qwertyuiop', 'validation.password_too_common'],
      ['password123', 'validation.password_too_common'],
    ];
    for (const [password, code] of cases) {
      const res = await change(password);
      expect({ password, status: res.status }).toEqual({ password, status: 422 });
      expect(res.body.code).toBe('validation.failed');
      expect(fieldCodes(res)).toEqual([{ field: 'new_password', code }]);
    }
    // The password is unchanged: the admin still signs in with it.
    expect((await login(ADMIN.email, ADMIN.password, '192.0.2.11')).status).toBe(200);
  });

  it('does not count a change with the right current password as a guess, however often the new one is refused', async () => {
    // More than the five free attempts of the password-change throttle: none of them is throttled.
    for (let i = 1; i <= 8; i++) {
      const res = await admin.post('/api/v1/me/password').send({ current_password: ADMIN.password, new_password: 'password123' });
      expect({ attempt: i, status: res.status, code: res.body.code }).toEqual({ attempt: i, status: 422, code: 'validation.failed' });
    }
  });
});

describe('long passwords', () => {
  it('uses every character of a 100-character password (no 72-byte truncation)', async () => {
    const long = 'The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs! 0123456789abcd';
    expect(long).toHaveLength(100);
    const email = 'lena.long@example.com';
    const created = await admin.post('/api/v1/users').send({ name: 'Lena Long', email, role: 'viewer' });
    expect(created.status).toBe(201);
    const first = sessionClient(h, sessionFrom(await login(email, created.body.temporary_password, '192.0.2.21')));
    const changed = await first.post('/api/v1/me/password')
      .send({ current_password: created.body.temporary_password, new_password: long });
    expect(changed.status).toBe(204);
    expect(await storedHash(email)).toMatch(BCRYPT_12_OR_MORE);

    const ip = '192.0.2.22';
    const prefix = await login(email, long.slice(0, 72), ip);
    expect(prefix.status).toBe(401);
    expect(prefix.body.code).toBe('auth.invalid_credentials');
    const otherTail = await login(email, `${long.slice(0, 72)}${'X'.repeat(28)}`, ip);
    expect(otherTail.status).toBe(401);
    expect(otherTail.body.code).toBe('auth.invalid_credentials');
    const full = await login(email, long, ip);
    expect(full.status).toBe(200);
    expect(full.body.status).toBe('signed_in');
  });
});

describe('a temporary password made by an admin', () => {
  const email = 'tom.temp@example.com';
  let temp: string;
  let own: string;
  let user: SessionClient;

  it('is returned once by POST /users and signs in with must_change_password true', async () => {
    const created = await admin.post('/api/v1/users').send({ name: 'Tom Temp', email, role: 'editor' });
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ email, role: 'editor', must_change_password: true });
    temp = created.body.temporary_password;
    expect(typeof temp).toBe('string');
    expect(temp.length).toBeGreaterThanOrEqual(10);
    expect(await storedHash(email)).toMatch(BCRYPT_12_OR_MORE);

    const res = await login(email, temp, '192.0.2.31');
    expect(res.status).toBe(200);
    expect(res.body.user.must_change_password).toBe(true);
    user = sessionClient(h, sessionFrom(res));
  });

  it('allows only GET /me, POST /me/password and POST /auth/logout until the change', async () => {
    const users = await user.get('/api/v1/users');
    expect(users.status).toBe(403);
    expect(users.body.code).toBe('auth.password_change_required');
    const patch = await user.patch('/api/v1/me').send({ name: 'Tom T', version: 1 });
    expect(patch.status).toBe(403);
    expect(patch.body.code).toBe('auth.password_change_required');
    const sessions = await user.get('/api/v1/me/sessions');
    expect(sessions.status).toBe(403);
    expect(sessions.body.code).toBe('auth.password_change_required');

    const me = await user.get('/api/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.must_change_password).toBe(true);

    const second = sessionClient(h, sessionFrom(await login(email, temp, '192.0.2.32')));
    const out = await second.post('/api/v1/auth/logout');
    expect(out.status).toBe(204);
    expect((await second.get('/api/v1/me')).status).toBe(401);
  });

  it('lifts the restriction after POST /me/password', async () => {
    own = 'Tom chose this own passphrase 3';
    const changed = await user.post('/api/v1/me/password').send({ current_password: temp, new_password: own });
    expect(changed.status).toBe(204);
    const users = await user.get('/api/v1/users');
    expect(users.status).toBe(200);
    const me = await user.get('/api/v1/me');
    expect(me.body.must_change_password).toBe(false);
    // The temporary password no longer works; the own one does.
    expect((await login(email, temp, '192.0.2.33')).status).toBe(401);
    expect((await login(email, own, '192.0.2.33')).status).toBe(200);
  });

  it('ends every other session of the user on a password change, keeping the current one', async () => {
    const a = sessionClient(h, sessionFrom(await login(email, own, '192.0.2.41')));
    const b = sessionClient(h, sessionFrom(await login(email, own, '192.0.2.42')));
    expect((await b.get('/api/v1/me')).status).toBe(200);
    const next = 'Tom changed it once more 4';
    const changed = await a.post('/api/v1/me/password').send({ current_password: own, new_password: next });
    expect(changed.status).toBe(204);

    const bAfter = await b.get('/api/v1/me');
    expect(bAfter.status).toBe(401);
    expect(bAfter.body.code).toBe('auth.unauthenticated');
    expect((await user.get('/api/v1/me')).status).toBe(401); // the earlier session ended too
    expect((await a.get('/api/v1/me')).status).toBe(200);
    const list = await a.get('/api/v1/me/sessions');
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].current).toBe(true);
    own = next;
    user = a;
  });

  it('answers a wrong current_password with 422 on field current_password and changes nothing', async () => {
    const res = await user.post('/api/v1/me/password')
      .send({ current_password: 'not the current one at all', new_password: 'yet another passphrase 5' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['current_password']);
    expect((await login(email, own, '192.0.2.51')).status).toBe(200);
  });
});
