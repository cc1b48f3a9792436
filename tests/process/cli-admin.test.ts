/**
 * The operator's commands, as a person runs them (child processes, like cli.test.ts):
 * `herald check-config` and `make run`'s order (settings first, then services), `herald admin
 * reset-password EMAIL` and `herald rotate-secret-key`. The API side of each check goes through
 * an in-process Herald on the same database, so its answers are checked against the contract.
 */
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { isolate, type Isolated } from '../support/isolation.js';
import { adminDatabaseUrl, redisUrl } from '../support/env.js';
import { HERALD_COMMAND, killChildren, run } from '../support/child-process.js';
import { startHerald, type Herald } from '../support/harness.js';
import { ADMIN, setupAdmin, signIn, type SessionClient } from '../support/identity.js';
import { createKeyring } from '../../src/infra/crypto/keyring.js';
import { createSecretBox } from '../../src/infra/crypto/secret-box.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OLD_KEY = randomBytes(32);
const NEW_KEY = randomBytes(32);

let iso: Isolated;
let h: Herald;
let sql: postgres.Sql;
let admin: SessionClient;
let scratch: string;

/** The settings of a command that needs only the store: no Redis, no key, a data folder of its own. */
const storeOnly = (extra: Record<string, string> = {}) => ({
  SVC_DATABASE_URL: iso.databaseUrl, SVC_DATA_DIR: path.join(scratch, 'cli-data'), SVC_LOG_FORMAT: 'json', ...extra,
});

beforeAll(async () => {
  iso = await isolate();
  scratch = mkdtempSync(path.join(tmpdir(), 'herald-cli-admin-'));
  h = await startHerald({ iso });
  sql = postgres(iso.databaseUrl, { max: 2, onnotice: () => undefined });
  admin = await setupAdmin(h);
}, 60_000);

afterAll(async () => {
  await killChildren();
  await sql?.end();
  await h?.stop();
  await iso?.release();
  rmSync(scratch, { recursive: true, force: true });
}, 20_000);

describe('herald check-config', () => {
  it('names a bad setting in one line and exits 2; with good settings exits 0; makes nothing either way', async () => {
    const dataDir = path.join(scratch, 'check');
    const base = { SVC_DATABASE_URL: iso.databaseUrl, SVC_REDIS_URL: iso.redisUrl, SVC_DATA_DIR: dataDir };
    const bad = await run(['check-config'], { ...base, SVC_LISTEN: 'bad' });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^herald: bad setting SVC_LISTEN: /)]);
    const good = await run(['check-config'], base);
    expect([good.code, good.stdout, good.stderr]).toEqual([0, 'herald: settings are good\n', '']);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000); // two processes of the command, each a TypeScript start on a busy machine

  it('runs before make run finds or creates anything: SVC_LISTEN=bad creates no database', async () => {
    const dbName = `herald_t_${Math.floor(Date.now() / 1000)}_mk${randomBytes(3).toString('hex')}`;
    const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
    try {
      // What ensure-services would use, had it run: this suite's PostgreSQL and Redis, found by probing.
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_LISTEN: 'bad', HERALD_DB_NAME: dbName,
        HERALD_DATA_DIR: path.join(scratch, 'make-data'), PGUSER: new URL(adminDatabaseUrl()).username || 'postgres',
        HERALD_PG_PROBE_PORT: new URL(adminDatabaseUrl()).port || '5432', HERALD_REDIS_PROBE_PORT: new URL(redisUrl()).port || '6379',
      };
      const child = spawn('make', ['-s', 'run-built', `HERALD=${HERALD_COMMAND}`], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => { stderr += b.toString('utf8'); });
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(code).not.toBe(0);
      expect(stderr).toContain('herald: bad setting SVC_LISTEN:');
      expect(stderr).not.toContain('ensure-services');
      expect(await admin`select 1 from pg_database where datname = ${dbName}`).toHaveLength(0);
    } finally {
      await admin.unsafe(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    }
  }, 60_000);
});

describe('herald admin reset-password', () => {
  const RESET_TOKEN = randomBytes(32).toString('base64url');

  it('prints a temporary password, ends the sessions, voids reset links, and needs no Redis nor key', async () => {
    // A pending emailed reset link for Ada.
    await sql`insert into password_resets (id, user_id, token_hash, expires_at)
      values (${'0193a1b2-0000-7000-8000-0000000000aa'}, ${admin.userId}, ${createHash('sha256').update(RESET_TOKEN).digest('hex')}, now() + interval '1 hour')`;
    expect((await admin.get('/api/v1/me')).status).toBe(200);
    // The API holds principals for a few seconds and drops Ada's when it hears identity.changed,
    // which the command (no Redis) leaves in the outbox for the API's relay to publish.
    const heard = new Promise<void>((resolve) => {
      void h.process.container.events.subscribe((e) => { if (e.type === 'identity.changed' && e.data.user_id === admin.userId) resolve(); });
    });

    const r = await run(['admin', 'reset-password', ' ADA@example.com '], storeOnly());
    expect([r.code, r.stderr]).toEqual([0, '']);
    const m = /^Temporary password for ada@example\.com \(admin\): (\S+)$/m.exec(r.stdout);
    expect(m).not.toBeNull();
    const temporary = m![1]!;
    expect(temporary.length).toBeGreaterThanOrEqual(10);
    expect(existsSync(path.join(scratch, 'cli-data', 'secret.key'))).toBe(false);

    await heard;
    expect((await admin.get('/api/v1/me')).status).toBe(401);
    expect((await h.http.post('/api/v1/auth/password-reset/confirm').send({ token: RESET_TOKEN, password: 'a brand new passphrase 77' })).body)
      .toMatchObject({ code: 'auth.reset_token_invalid' });
    expect((await signIn(h, ADMIN.email, ADMIN.password).catch((err: Error) => err)) instanceof Error).toBe(true);

    // The temporary password signs in, and the user must choose a new one first.
    const ada = await signIn(h, ADMIN.email, temporary);
    expect((await ada.get('/api/v1/users')).body).toMatchObject({ code: 'auth.password_change_required' });
    const newPassword = 'Ada picked another long passphrase 9';
    expect((await ada.post('/api/v1/me/password').send({ current_password: temporary, new_password: newPassword })).status).toBe(204);
    admin = await signIn(h, ADMIN.email, newPassword);

    // The audit trail says a command on the server did it.
    const events = await admin.get('/api/v1/security-events?type=user.password_reset_by_admin');
    expect(events.status).toBe(200);
    expect(events.body.items).toEqual([expect.objectContaining({
      type: 'user.password_reset_by_admin', outcome: 'success', user_id: admin.userId, ip: null,
      actor: { type: 'system', user_id: null, api_key_id: null }, user_agent: 'herald admin reset-password',
      target: { type: 'user', id: admin.userId }, details: { sessions_ended: 1 },
    })]);
    expect(JSON.stringify(events.body)).not.toContain(temporary);
  }, 30_000);

  it('exits 1 naming an unknown address, and 2 without one; changes nothing', async () => {
    const unknown = await run(['admin', 'reset-password', 'nobody@example.com'], storeOnly());
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([1, '', 'herald: no user has the email address nobody@example.com\n']);
    const missing = await run(['admin', 'reset-password'], storeOnly());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('usage: herald admin reset-password EMAIL');
    expect((await admin.get('/api/v1/me')).status).toBe(200);
  });

  it('says so when the store is not migrated', async () => {
    const fresh = await isolate({ template: false });
    try {
      const r = await run(['admin', 'reset-password', 'ada@example.com'], { ...storeOnly(), SVC_DATABASE_URL: fresh.databaseUrl });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/run `herald migrate` first/);
    } finally {
      await fresh.release();
    }
  });
});

describe('herald rotate-secret-key', () => {
  it('re-seals users.totp_secret under the current key, then has nothing left to do', async () => {
    const context = `users.totp_secret:${admin.userId}`;
    const sealedOld = createSecretBox(createKeyring(OLD_KEY)).seal('JBSWY3DPEHPK3PXP', context);
    await sql`update users set totp_secret = ${sealedOld} where id = ${admin.userId}`;
    const settings = storeOnly({ SVC_SECRET_KEY: NEW_KEY.toString('base64'), SVC_SECRET_KEY_PREVIOUS: OLD_KEY.toString('base64') });

    const first = await run(['rotate-secret-key'], settings);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('users.totp_secret: 1 re-sealed, 1 now under the current key');
    expect(first.stdout).toContain('SVC_SECRET_KEY_PREVIOUS can be removed');
    const newOnly = createSecretBox(createKeyring(NEW_KEY));
    const [row] = await sql<Array<{ totp_secret: string }>>`select totp_secret from users where id = ${admin.userId}`;
    expect(row!.totp_secret.startsWith(`v2:${newOnly.kid}:`)).toBe(true);
    expect(newOnly.open(row!.totp_secret, context)).toBe('JBSWY3DPEHPK3PXP');

    const second = await run(['rotate-secret-key'], settings);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('users.totp_secret: 0 re-sealed, 1 now under the current key');
    const output = first.stdout + first.stderr + second.stdout + second.stderr;
    for (const secret of [OLD_KEY.toString('base64'), NEW_KEY.toString('base64'), 'JBSWY3DPEHPK3PXP']) expect(output).not.toContain(secret);
  });

  it('refuses to run with a key of its own making: no SVC_SECRET_KEY and no key file is a bad setting', async () => {
    const r = await run(['rotate-secret-key'], storeOnly());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^herald: bad setting SVC_SECRET_KEY: is required here/);
    expect(existsSync(path.join(scratch, 'cli-data'))).toBe(false);
  });

  it('exits 1 and keeps the value when no key given opens it', async () => {
    const r = await run(['rotate-secret-key'], storeOnly({ SVC_SECRET_KEY: randomBytes(32).toString('base64') }));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`users.totp_secret: 0 re-sealed, 0 now under the current key, 1 no key opens (rows ${admin.userId})`);
    expect(r.stdout).toContain('add the key they were sealed with');
    const [row] = await sql<Array<{ totp_secret: string }>>`select totp_secret from users where id = ${admin.userId}`;
    expect(createSecretBox(createKeyring(NEW_KEY)).open(row!.totp_secret, `users.totp_secret:${admin.userId}`)).toBe('JBSWY3DPEHPK3PXP');
  });
});
