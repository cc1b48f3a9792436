/**
 * Second factor by authenticator app (RFC 6238 through otplib) and recovery codes, end to end
 * through the API on real Postgres and Redis: setup with the otpauth URI and a QR code, the
 * pending secret sealed, confirmation with a first code and ten recovery codes kept only as
 * hashes; password sign-in answering a five-minute, single-use ticket; the second step by code
 * (accepted once, one step of drift) or recovery code (used up, the rest counted), throttled and
 * ending the ticket after five wrong answers; turning it off and replacing codes with the
 * password or a current code; an admin turning off another user's second factor; the workspace
 * policy that requires one. The clock is manual, so codes and expiry are exact.
 */
import postgres from 'postgres';
import { manualClock } from '../../src/core/clock.js';
import { startHerald, type Herald } from '../support/harness.js';
import { ADMIN, createSignedInUser, sessionClient, sessionFrom, setupAdmin, type SessionClient } from '../support/identity.js';
import { enrolTotp, totpCode } from '../support/second-factor.js';

const clock = manualClock(new Date('2026-11-23T09:00:10.000Z'));
let h: Herald;
let sql: postgres.Sql;
let admin: SessionClient;
/** Every recovery code handed out in this file: none may reach a log or the audit trail. */
const issued: string[] = [];

beforeAll(async () => {
  h = await startHerald({ clock });
  sql = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
  admin = await setupAdmin(h);
}, 60_000);
afterAll(async () => {
  await sql.end();
  await h.stop();
});

/** The next 30-second step: a code of a new step, unused so far. */
const nextStep = () => clock.advance(30_000);

async function passwordStep(email: string, password: string) {
  const res = await h.http.post('/api/v1/auth/login').send({ email, password });
  expect(res.status).toBe(200);
  return res;
}

async function ticketFor(email: string, password: string): Promise<string> {
  const res = await passwordStep(email, password);
  expect(res.body.status).toBe('second_factor_required');
  return res.body.ticket as string;
}

const finish = (body: Record<string, unknown>) => h.http.post('/api/v1/auth/login/second-factor').send(body);

async function eventsOf(type: string, userId: string) {
  const res = await admin.get(`/api/v1/security-events?type=${type}&user_id=${userId}&limit=200`);
  expect(res.status).toBe(200);
  return res.body.items as Array<{ outcome: string; reason: string | null; details: Record<string, unknown>; actor: { user_id: string | null } }>;
}

describe('enrolling an authenticator app', () => {
  let tina: SessionClient & { password: string };
  let secret: string;

  beforeAll(async () => {
    tina = await createSignedInUser(h, admin, { name: 'Tina Totp', email: 'tina@example.com', role: 'editor' });
  });

  it('answers the secret, the otpauth URI and an SVG QR code, and keeps the secret only sealed and pending', async () => {
    const res = await tina.post('/api/v1/me/2fa/totp/setup');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    secret = res.body.secret;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(res.body.otpauth_uri).toBe(`otpauth://totp/Herald:tina%40example.com?secret=${secret}&issuer=Herald`);
    const svg = Buffer.from(String(res.body.qr_code).replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString('utf8');
    expect(svg).toMatch(/^<svg[^>]*viewBox/);
    expect(svg).toContain('<path');
    const [row] = await sql<{ totp_pending_secret: string; totp_secret: string | null; totp_enabled: boolean }[]>`
      select totp_pending_secret, totp_secret, totp_enabled from users where email = 'tina@example.com'`;
    expect(row!.totp_enabled).toBe(false);
    expect(row!.totp_secret).toBeNull();
    expect(row!.totp_pending_secret).toMatch(/^v2:/);
    expect(row!.totp_pending_secret).not.toContain(secret);
    expect((await tina.get('/api/v1/me')).body.two_factor_enabled).toBe(false);
  });

  it('refuses a wrong first code on its field and keeps the app off', async () => {
    const wrong = String((Number(await totpCode(secret, clock)) + 1) % 1_000_000).padStart(6, '0');
    const res = await tina.post('/api/v1/me/2fa/totp/confirm').send({ code: wrong });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'code', code: 'validation.invalid' })]);
    expect((await tina.get('/api/v1/me')).body.two_factor_enabled).toBe(false);
  });

  it('turns it on with a first code and answers ten distinct recovery codes, stored only as hashes', async () => {
    const res = await tina.post('/api/v1/me/2fa/totp/confirm').send({ code: await totpCode(secret, clock) });
    expect(res.status).toBe(200);
    const codes = res.body.recovery_codes as string[];
    issued.push(...codes);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    const stored = await sql<{ code_hash: string }[]>`
      select code_hash from recovery_codes where user_id = ${tina.userId}`;
    expect(stored).toHaveLength(10);
    for (const r of stored) {
      expect(r.code_hash).toMatch(/^[0-9a-f]{64}$/);
      for (const c of codes) expect(r.code_hash).not.toContain(c.replaceAll('-', ''));
    }
    const [row] = await sql<{ totp_pending_secret: string | null; totp_secret: string }[]>`
      select totp_pending_secret, totp_secret from users where id = ${tina.userId}`;
    expect(row!.totp_pending_secret).toBeNull();
    expect(row!.totp_secret).toMatch(/^v2:/);
    expect((await tina.get('/api/v1/me')).body.two_factor_enabled).toBe(true);
    const enabled = await eventsOf('two_factor.enabled', tina.userId);
    expect(enabled[0]).toMatchObject({ outcome: 'success' });
    expect(enabled.some((e) => e.outcome === 'failure')).toBe(true);
  });

  it('refuses a second setup while the app is on', async () => {
    const res = await tina.post('/api/v1/me/2fa/totp/setup');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('two_factor.already_enabled');
  });

  it('confirming without a pending setup is refused', async () => {
    const sam = await createSignedInUser(h, admin, { name: 'Sam Setupless', email: 'sam@example.com', role: 'viewer' });
    const res = await sam.post('/api/v1/me/2fa/totp/confirm').send({ code: '123456' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('two_factor.no_pending_setup');
  });
});

describe('signing in with a second step', () => {
  let olga: SessionClient & { password: string };
  let secret: string;
  let recoveryCodes: string[];

  beforeAll(async () => {
    olga = await createSignedInUser(h, admin, { name: 'Olga Otp', email: 'olga@example.com', role: 'viewer' });
    ({ secret, recoveryCodes } = await enrolTotp(olga, clock));
    issued.push(...recoveryCodes);
    nextStep();
  });

  it('the password step answers a ticket and the methods, and no session', async () => {
    const res = await passwordStep('olga@example.com', olga.password);
    expect(res.body).toEqual({ status: 'second_factor_required', ticket: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), methods: ['totp', 'recovery_code'] });
    expect(String(res.headers['set-cookie'] ?? '')).not.toContain('svc_session=');
  });

  it('a wrong code is 401 and the right one signs in; the session records the second factor', async () => {
    const ticket = await ticketFor('olga@example.com', olga.password);
    const wrong = await finish({ ticket, method: 'totp', code: '000000' === await totpCode(secret, clock) ? '111111' : '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('auth.invalid_credentials');
    const res = await finish({ ticket, method: 'totp', code: await totpCode(secret, clock) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'signed_in', user: { email: 'olga@example.com', two_factor_enabled: true } });
    const client = sessionClient(h, sessionFrom(res));
    const sessions = await client.get('/api/v1/me/sessions');
    expect(sessions.body.items.find((s: { current: boolean }) => s.current)).toMatchObject({ method: 'password', second_factor: 'totp' });
    const signIns = await eventsOf('auth.sign_in', olga.userId);
    expect(signIns[0]).toMatchObject({ outcome: 'success', details: { method: 'password', second_factor: 'totp' } });
    // The ticket worked once.
    const again = await finish({ ticket, method: 'totp', code: await totpCode(secret, clock) });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('auth.ticket_invalid');
  });

  it('a code that signed in is refused within its window (replay), a code of the next step works, and a step of drift is accepted', async () => {
    const used = await totpCode(secret, clock);
    const replay = await finish({ ticket: await ticketFor('olga@example.com', olga.password), method: 'totp', code: used });
    expect(replay.status).toBe(401);
    nextStep();
    const previousStep = await totpCode(secret, clock, -1);
    expect(previousStep).toBe(used);
    const stillReplay = await finish({ ticket: await ticketFor('olga@example.com', olga.password), method: 'totp', code: used });
    expect(stillReplay.status).toBe(401);
    const ahead = await finish({ ticket: await ticketFor('olga@example.com', olga.password), method: 'totp', code: await totpCode(secret, clock, 1) });
    expect(ahead.status).toBe(200);
    nextStep();
    nextStep();
    const twoBehind = await finish({ ticket: await ticketFor('olga@example.com', olga.password), method: 'totp', code: await totpCode(secret, clock, -2) });
    expect(twoBehind.status).toBe(401);
  });

  it('a ticket lives five minutes', async () => {
    nextStep();
    const ticket = await ticketFor('olga@example.com', olga.password);
    clock.advance(5 * 60_000 + 1000);
    const res = await finish({ ticket, method: 'totp', code: await totpCode(secret, clock) });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.ticket_invalid');
  });

  it('a ticket ends after five wrong answers, even for the right code', async () => {
    nextStep();
    const ticket = await ticketFor('olga@example.com', olga.password);
    const right = await totpCode(secret, clock);
    const wrongCode = right === '999999' ? '999998' : '999999';
    for (let i = 0; i < 5; i++) {
      const res = await finish({ ticket, method: 'totp', code: wrongCode });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('auth.invalid_credentials');
    }
    clock.advance(60_000); // past the throttle's delay
    const res = await finish({ ticket, method: 'totp', code: await totpCode(secret, clock) });
    expect(res.body.code).toBe('auth.ticket_invalid');
    const failures = await eventsOf('auth.second_factor', olga.userId);
    expect(failures.filter((e) => e.outcome === 'failure').length).toBeGreaterThanOrEqual(6);
    expect(failures.some((e) => e.details.ticket_ended === true)).toBe(true);
  });

  it('wrong second steps are slowed down progressively (429 with Retry-After), and pass again once the delay is over', async () => {
    // A success starts the account's counters again.
    clock.advance(16 * 60_000);
    expect((await finish({ ticket: await ticketFor('olga@example.com', olga.password), method: 'totp', code: await totpCode(secret, clock) })).status).toBe(200);
    const statuses: number[] = [];
    let retryAfter = 0;
    let ticket = '';
    while (statuses.length < 9 && !statuses.includes(429)) {
      if (statuses.length % 4 === 0) ticket = await ticketFor('olga@example.com', olga.password);
      const res = await finish({ ticket, method: 'recovery_code', code: 'aaaa-bbbb-cccc' });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = Number(res.headers['retry-after']);
    }
    // A few free wrong answers, then a delay: no lockout, only waiting.
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.at(-1)).toBe(429);
    expect(retryAfter).toBeGreaterThan(0);
    clock.advance((retryAfter + 1) * 1000);
    nextStep();
    const ok = await finish({ ticket: await ticketFor('olga@example.com', olga.password), method: 'totp', code: await totpCode(secret, clock) });
    expect(ok.status).toBe(200);
  });

  it('a recovery code signs in once (any case, with or without dashes), and the answer says how many remain', async () => {
    const code = recoveryCodes[0]!;
    const res = await finish({ ticket: await ticketFor('olga@example.com', olga.password), method: 'recovery_code', code: code.toUpperCase().replaceAll('-', ' ') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'signed_in', recovery_codes_remaining: 9 });
    const client = sessionClient(h, sessionFrom(res));
    const sessions = await client.get('/api/v1/me/sessions');
    expect(sessions.body.items.find((s: { current: boolean }) => s.current)).toMatchObject({ second_factor: 'recovery_code' });
    const again = await finish({ ticket: await ticketFor('olga@example.com', olga.password), method: 'recovery_code', code });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('auth.invalid_credentials');
    const used = await eventsOf('auth.recovery_code_used', olga.userId);
    expect(used).toHaveLength(1);
    expect(used[0]!.details).toEqual({ remaining: 9 });
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from recovery_codes where user_id = ${olga.userId} and used_at is not null`;
    expect(row!.n).toBe(1);
  });

  it('a method the account lacks is 409 auth.method_unavailable', async () => {
    const res = await h.http.post('/api/v1/auth/login/second-factor/passkey').send({ ticket: await ticketFor('olga@example.com', olga.password) });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('auth.method_unavailable');
  });

  it('a password change ends the tickets issued under the old password', async () => {
    const ticket = await ticketFor('olga@example.com', olga.password);
    const newPassword = 'Olga picked another long passphrase 7';
    const changed = await olga.post('/api/v1/me/password').send({ current_password: olga.password, new_password: newPassword });
    expect(changed.status).toBe(204);
    olga.password = newPassword;
    nextStep();
    const res = await finish({ ticket, method: 'totp', code: await totpCode(secret, clock) });
    expect(res.body.code).toBe('auth.ticket_invalid');
  });
});

describe('turning it off and replacing recovery codes', () => {
  let rob: SessionClient & { password: string };
  let secret: string;
  let recoveryCodes: string[];

  beforeAll(async () => {
    rob = await createSignedInUser(h, admin, { name: 'Rob Recovery', email: 'rob@example.com', role: 'viewer' });
    ({ secret, recoveryCodes } = await enrolTotp(rob, clock));
    issued.push(...recoveryCodes);
    nextStep();
  });

  it('replacing recovery codes needs the password or a current code; the old codes stop working', async () => {
    const wrong = await rob.post('/api/v1/me/2fa/recovery-codes').send({ password: 'not my password at all' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([expect.objectContaining({ field: 'password', code: 'validation.invalid' })]);
    const both = await rob.post('/api/v1/me/2fa/recovery-codes').send({ password: rob.password, code: '123456' });
    expect(both.status).toBe(422);
    const res = await rob.post('/api/v1/me/2fa/recovery-codes').send({ code: await totpCode(secret, clock) });
    expect(res.status).toBe(200);
    const fresh = res.body.recovery_codes as string[];
    issued.push(...fresh);
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((c) => recoveryCodes.includes(c))).toEqual([]);
    const old = await finish({ ticket: await ticketFor('rob@example.com', rob.password), method: 'recovery_code', code: recoveryCodes[1] });
    expect(old.status).toBe(401);
    const works = await finish({ ticket: await ticketFor('rob@example.com', rob.password), method: 'recovery_code', code: fresh[0] });
    expect(works.status).toBe(200);
    expect(works.body.recovery_codes_remaining).toBe(9);
    recoveryCodes = fresh.slice(1);
    expect((await eventsOf('two_factor.recovery_codes_replaced', rob.userId))).toHaveLength(1);
  });

  it('turning it off needs the password or a current code (a recovery code counts), then the password alone signs in', async () => {
    const wrong = await rob.post('/api/v1/me/2fa/totp/disable').send({ code: '000000' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([expect.objectContaining({ field: 'code' })]);
    const res = await rob.post('/api/v1/me/2fa/totp/disable').send({ code: recoveryCodes[0] });
    expect(res.status).toBe(204);
    expect((await rob.get('/api/v1/me')).body.two_factor_enabled).toBe(false);
    const [left] = await sql<{ n: number }[]>`select count(*)::int as n from recovery_codes where user_id = ${rob.userId}`;
    expect(left!.n).toBe(0);
    const [row] = await sql<{ totp_secret: string | null }[]>`select totp_secret from users where id = ${rob.userId}`;
    expect(row!.totp_secret).toBeNull();
    const login = await passwordStep('rob@example.com', rob.password);
    expect(login.body.status).toBe('signed_in');
    const again = await rob.post('/api/v1/me/2fa/totp/disable').send({ password: rob.password });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('two_factor.not_enabled');
    expect((await rob.post('/api/v1/me/2fa/recovery-codes').send({ password: rob.password })).body.code).toBe('two_factor.not_enabled');
    expect((await eventsOf('two_factor.disabled', rob.userId))[0]).toMatchObject({ outcome: 'success', actor: { user_id: rob.userId } });
  });
});

describe('an admin turns off another user\'s second factor', () => {
  it('turns off the app, deletes recovery codes, ends the user\'s sessions, and is audited', async () => {
    const lena = await createSignedInUser(h, admin, { name: 'Lena Lost', email: 'lena@example.com', role: 'editor' });
    await enrolTotp(lena, clock);
    nextStep();
    const res = await admin.post(`/api/v1/users/${lena.userId}/2fa/disable`);
    expect(res.status).toBe(204);
    expect((await lena.get('/api/v1/me')).status).toBe(401);
    const user = await admin.get(`/api/v1/users/${lena.userId}`);
    expect(user.body.two_factor_enabled).toBe(false);
    const events = await eventsOf('two_factor.disabled', lena.userId);
    expect(events[0]).toMatchObject({ actor: { user_id: admin.userId }, details: { by_admin: true, authenticator_was_on: true, sessions_ended: 1 } });
    expect((await passwordStep('lena@example.com', lena.password)).body.status).toBe('signed_in');
    const unknown = await admin.post('/api/v1/users/0190a0a0-0000-7000-8000-000000000000/2fa/disable');
    expect(unknown.status).toBe(404);
  });
});

describe('the workspace requires a second factor', () => {
  it('only an admin changes the policy, with the current version', async () => {
    const current = await admin.get('/api/v1/settings');
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ require_second_factor: false, password_sign_in: 'everyone', version: 1 });
    const stale = await admin.patch('/api/v1/settings').send({ require_second_factor: true, version: 7 });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('conflict.version');
    const notYet = await admin.patch('/api/v1/settings').send({ password_sign_in: 'admins_only', version: 1 });
    expect(notYet.status).toBe(422);
    expect(notYet.body.errors).toEqual([expect.objectContaining({ field: 'password_sign_in', code: 'validation.invalid' })]);
    const res = await admin.patch('/api/v1/settings').send({ require_second_factor: true, version: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ require_second_factor: true, password_sign_in: 'everyone', version: 2 });
    const events = await admin.get('/api/v1/security-events?type=settings.updated');
    expect(events.body.items[0]).toMatchObject({ actor: { user_id: admin.userId }, details: { require_second_factor: true } });
  });

  it('a user without one is sent to enrol before anything else; enrolling lifts it for that session', async () => {
    const created = await admin.post('/api/v1/users').send({ name: 'Nina New', email: 'nina@example.com', role: 'editor', temporary_password: 'Nina temporary passphrase 3' });
    expect(created.status).toBe(201);
    const first = await passwordStep('nina@example.com', 'Nina temporary passphrase 3');
    const nina = sessionClient(h, sessionFrom(first));
    expect((await nina.post('/api/v1/me/password').send({ current_password: 'Nina temporary passphrase 3', new_password: 'Nina chose her own passphrase 4' })).status).toBe(204);
    const res = await passwordStep('nina@example.com', 'Nina chose her own passphrase 4');
    expect(res.body).toMatchObject({ status: 'signed_in', must_enrol_second_factor: true });
    const client = sessionClient(h, sessionFrom(res));
    const blocked = await client.get('/api/v1/reports');
    expect(blocked.status).toBe(403);
    expect(blocked.body.code).toBe('auth.second_factor_enrolment_required');
    expect((await client.get('/api/v1/me')).status).toBe(200);
    expect((await client.get('/api/v1/settings')).status).toBe(200);
    await enrolTotp(client, clock);
    expect((await client.get('/api/v1/reports')).status).toBe(200);
    nextStep();
    const next = await passwordStep('nina@example.com', 'Nina chose her own passphrase 4');
    expect(next.body.status).toBe('second_factor_required');
  });

  it('an admin key is not held back (keys are not password sign-ins)', async () => {
    const key = await admin.post('/api/v1/api-keys').send({ name: 'pipeline', scope: 'read' });
    expect(key.status).toBe(201);
    const res = await h.http.get('/api/v1/reports').set('Authorization', `Bearer ${key.body.token}`);
    expect(res.status).toBe(200);
  });

  afterAll(async () => {
    const current = await admin.get('/api/v1/settings');
    await admin.patch('/api/v1/settings').send({ require_second_factor: false, version: current.body.version });
  });
});

it('no secret, code or ticket reaches the logs or the audit trail', async () => {
  const events = await sql<{ details: unknown; reason: string | null }[]>`select details, reason from security_events`;
  const text = JSON.stringify(events) + h.logs.join('');
  const secrets = await sql<{ secret: string }[]>`select code_hash as secret from recovery_codes`;
  expect(secrets.length).toBeGreaterThan(0);
  for (const s of secrets) expect(text).not.toContain(s.secret);
  expect(text).not.toMatch(/otpauth:|"ticket"|"code":\s*"\d{6}"/);
  expect(issued.length).toBeGreaterThan(20);
  for (const code of issued) expect(text).not.toContain(code);
  const totpSecrets = await sql<{ s: string | null }[]>`select totp_secret as s from users where totp_secret is not null`;
  expect(totpSecrets.length).toBeGreaterThan(0);
  expect(ADMIN.password).toBeTruthy();
  expect(text).not.toContain(ADMIN.password);
});
