/**
 * The signed-in user's own profile: defaults, versioned updates of name and preferences, and
 * per-field validation of what PATCH /me accepts.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { ADMIN, setupAdmin, type SessionClient } from '../support/identity.js';

let h: Herald;
let me: SessionClient;

beforeAll(async () => {
  h = await startHerald();
  me = await setupAdmin(h);
});
afterAll(async () => { await h.stop(); });

function fieldCodes(res: { body: { errors?: Array<{ field: string; code: string }> } }) {
  return (res.body.errors ?? []).map((e) => ({ field: e.field, code: e.code }));
}

async function currentVersion(): Promise<number> {
  const res = await me.get('/api/v1/me');
  expect(res.status).toBe(200);
  return res.body.version as number;
}

describe('GET /me', () => {
  it('returns the user with email and default preferences', async () => {
    const res = await me.get('/api/v1/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: me.userId, name: ADMIN.name, email: ADMIN.email, role: 'admin', enabled: true,
      must_change_password: false, two_factor_enabled: false, version: 1,
      preferences: { locale: 'en', timezone: 'UTC', theme: 'system' },
    });
    expect(res.body).not.toHaveProperty('password_hash');
  });
});

describe('PATCH /me', () => {
  it('changes name and preferences with the current version and bumps it', async () => {
    const version = await currentVersion();
    const res = await me.patch('/api/v1/me').send({
      name: 'Ada Lovelace', preferences: { locale: 'de-DE', timezone: 'Europe/Berlin', theme: 'dark' }, version,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Ada Lovelace', email: ADMIN.email, version: version + 1,
      preferences: { locale: 'de-DE', timezone: 'Europe/Berlin', theme: 'dark' },
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(res.body.created_at));
    const read = await me.get('/api/v1/me');
    expect(read.body).toMatchObject({
      name: 'Ada Lovelace', version: version + 1, preferences: { locale: 'de-DE', timezone: 'Europe/Berlin', theme: 'dark' },
    });
  });

  it('keeps preferences that a partial update does not name', async () => {
    const version = await currentVersion();
    const res = await me.patch('/api/v1/me').send({ preferences: { theme: 'light' }, version });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Ada Lovelace', version: version + 1, preferences: { locale: 'de-DE', timezone: 'Europe/Berlin', theme: 'light' },
    });
  });

  it('answers a stale version with 409 conflict.version and changes nothing', async () => {
    const version = await currentVersion();
    const res = await me.patch('/api/v1/me').send({ name: 'Stale Writer', version: version - 1 });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict.version');
    const read = await me.get('/api/v1/me');
    expect(read.body).toMatchObject({ name: 'Ada Lovelace', version });
  });

  it('rejects an unknown time zone on preferences.timezone', async () => {
    const version = await currentVersion();
    const res = await me.patch('/api/v1/me').send({ preferences: { timezone: 'Mars/Base' }, version });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['preferences.timezone']);
    expect((await me.get('/api/v1/me')).body.preferences.timezone).toBe('Europe/Berlin');
  });

  it('stores a time zone in its canonical spelling', async () => {
    const version = await currentVersion();
    const res = await me.patch('/api/v1/me').send({ preferences: { timezone: 'america/new_york' }, version });
    expect(res.status).toBe(200);
    expect(res.body.preferences.timezone).toBe('America/New_York');
    // A current name stays as given, though ICU knows it by an older one (Asia/Calcutta).
    const kolkata = await me.patch('/api/v1/me').send({ preferences: { timezone: 'Asia/Kolkata' }, version: res.body.version });
    expect(kolkata.body.preferences.timezone).toBe('Asia/Kolkata');
    const back = await me.patch('/api/v1/me').send({ preferences: { timezone: 'Europe/Berlin' }, version: kolkata.body.version });
    expect(back.body.preferences.timezone).toBe('Europe/Berlin');
  });

  it('refuses a blank name with validation.format on name', async () => {
    const version = await currentVersion();
    const res = await me.patch('/api/v1/me').send({ name: '   ', version });
    expect(res.status).toBe(422);
    expect(fieldCodes(res)).toEqual([{ field: 'name', code: 'validation.format' }]);
  });

  it('answers with Cache-Control: no-store', async () => {
    const res = await me.get('/api/v1/me');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('rejects an unknown field with validation.unknown_field', async () => {
    const version = await currentVersion();
    const res = await me.patch('/api/v1/me').send({ nickname: 'Ada', version });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(fieldCodes(res)).toEqual([{ field: 'nickname', code: 'validation.unknown_field' }]);
  });

  it('rejects a missing version with validation.required on version', async () => {
    const res = await me.patch('/api/v1/me').send({ name: 'No Version' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(fieldCodes(res)).toEqual([{ field: 'version', code: 'validation.required' }]);
  });

  it('rejects an unknown theme with validation.enum on preferences.theme', async () => {
    const version = await currentVersion();
    const res = await me.patch('/api/v1/me').send({ preferences: { theme: 'pink' }, version });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(fieldCodes(res)).toEqual([{ field: 'preferences.theme', code: 'validation.enum' }]);
    const read = await me.get('/api/v1/me');
    expect(read.body).toMatchObject({ version, preferences: { theme: 'light' } });
  });
});
