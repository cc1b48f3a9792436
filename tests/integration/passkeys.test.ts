/**
 * Passkeys end to end with real WebAuthn responses: a software authenticator on node:crypto
 * (tests/support/webauthn-authenticator.ts: ES256, "none" attestation, discoverable credentials)
 * answers the options Herald hands out, and the real @simplewebauthn/server checks them. Covers
 * registration (challenge single use and five minutes, origin and relying party from
 * SVC_PUBLIC_URL, excluded credentials), list, rename, remove; a passkey as the second step of a
 * password sign-in; passwordless sign-in with a discoverable credential; a cloned authenticator
 * (counter going backwards) refused and audited.
 */
import { manualClock } from '../../src/core/clock.js';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, sessionClient, sessionFrom, setupAdmin, type SessionClient } from '../support/identity.js';
import { SoftwareAuthenticator } from '../support/webauthn-authenticator.js';

const ORIGIN = 'http://localhost:8080';
const clock = manualClock(new Date('2026-11-23T10:00:00.000Z'));
let h: Herald;
let admin: SessionClient;

beforeAll(async () => {
  h = await startHerald({ clock, env: { SVC_PUBLIC_URL: ORIGIN } });
  admin = await setupAdmin(h);
}, 60_000);
afterAll(async () => { await h.stop(); });

async function addPasskey(client: SessionClient, device: SoftwareAuthenticator, name?: string) {
  const options = await client.post('/api/v1/me/passkeys/options');
  expect(options.status).toBe(200);
  const credential = device.register(options.body.options, ORIGIN);
  return client.post('/api/v1/me/passkeys').send({ ...(name ? { name } : {}), credential });
}

async function events(type: string, userId: string) {
  const res = await admin.get(`/api/v1/security-events?type=${type}&user_id=${userId}&limit=100`);
  return res.body.items as Array<{ outcome: string; reason: string | null; details: Record<string, unknown>; target: { id: string } | null }>;
}

describe('adding, listing, renaming and removing passkeys', () => {
  let pia: SessionClient & { password: string };
  const laptop = new SoftwareAuthenticator();

  beforeAll(async () => {
    pia = await createSignedInUser(h, admin, { name: 'Pia Passkey', email: 'pia@example.com', role: 'editor' });
  });

  it('hands out creation options for the relying party of SVC_PUBLIC_URL, and stores the verified passkey', async () => {
    const options = await pia.post('/api/v1/me/passkeys/options');
    expect(options.status).toBe(200);
    expect(options.body.options).toMatchObject({
      rp: { id: 'localhost', name: 'Herald' },
      user: { id: Buffer.from(pia.userId).toString('base64url'), name: 'pia@example.com', displayName: 'Pia Passkey' },
      attestation: 'none', excludeCredentials: [],
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true },
    });
    expect(options.body.options.pubKeyCredParams).toEqual(expect.arrayContaining([{ type: 'public-key', alg: -7 }]));
    expect(Date.parse(options.body.expires_at) - clock.now().getTime()).toBe(5 * 60_000);
    const credential = laptop.register(options.body.options, ORIGIN);
    const res = await pia.post('/api/v1/me/passkeys').send({ name: 'Work laptop', credential });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Work laptop', device_type: 'singleDevice', backed_up: false, transports: ['internal'], last_used_at: null });
    const list = await pia.get('/api/v1/me/passkeys');
    expect(list.body.items).toEqual([res.body]);
    expect((await events('passkey.added', pia.userId))[0]).toMatchObject({ outcome: 'success', target: { id: res.body.id } });
    // The challenge worked once.
    const again = await pia.post('/api/v1/me/passkeys').send({ credential });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('auth.challenge_invalid');
  });

  it('excludes the passkeys the user has, so an authenticator cannot register twice', async () => {
    const options = await pia.post('/api/v1/me/passkeys/options');
    expect(options.body.options.excludeCredentials).toEqual([expect.objectContaining({ id: laptop.credentials[0]!.id.toString('base64url') })]);
    expect(() => laptop.register(options.body.options, ORIGIN)).toThrow(expect.objectContaining({ name: 'InvalidStateError' }));
  });

  it('refuses an answer from another origin, an expired challenge, and another user\'s challenge', async () => {
    const phone = new SoftwareAuthenticator();
    const options = await pia.post('/api/v1/me/passkeys/options');
    const evil = await pia.post('/api/v1/me/passkeys').send({ credential: phone.register(options.body.options, 'http://evil.example.test') });
    expect(evil.status).toBe(422);
    expect(evil.body.code).toBe('passkey.verification_failed');

    const late = await pia.post('/api/v1/me/passkeys/options');
    clock.advance(5 * 60_000 + 1);
    const expired = await pia.post('/api/v1/me/passkeys').send({ credential: new SoftwareAuthenticator().register(late.body.options, ORIGIN) });
    expect(expired.body.code).toBe('auth.challenge_invalid');

    const other = await admin.post('/api/v1/me/passkeys/options');
    const stolen = await pia.post('/api/v1/me/passkeys').send({ credential: new SoftwareAuthenticator().register(other.body.options, ORIGIN) });
    expect(stolen.body.code).toBe('auth.challenge_invalid');
    expect((await pia.get('/api/v1/me/passkeys')).body.items).toHaveLength(1);
  });

  it('renames and removes, only the caller\'s own passkeys, audited', async () => {
    const second = await addPasskey(pia, new SoftwareAuthenticator());
    expect(second.status).toBe(201);
    expect(second.body.name).toBe('Passkey 2');
    const renamed = await pia.patch(`/api/v1/me/passkeys/${second.body.id}`).send({ name: '  Phone  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Phone');
    const notMine = await admin.patch(`/api/v1/me/passkeys/${second.body.id}`).send({ name: 'Mine now' });
    expect(notMine.status).toBe(404);
    expect((await admin.post(`/api/v1/me/passkeys/${second.body.id}/remove`)).status).toBe(404);
    const removed = await pia.post(`/api/v1/me/passkeys/${second.body.id}/remove`);
    expect(removed.status).toBe(204);
    expect((await pia.post(`/api/v1/me/passkeys/${second.body.id}/remove`)).status).toBe(404);
    expect((await pia.get('/api/v1/me/passkeys')).body.items.map((p: { name: string }) => p.name)).toEqual(['Work laptop']);
    expect(await events('passkey.renamed', pia.userId)).toHaveLength(1);
    expect(await events('passkey.removed', pia.userId)).toHaveLength(1);
  });
});

describe('signing in with a passkey', () => {
  let quinn: SessionClient & { password: string };
  const key = new SoftwareAuthenticator();
  let passkeyId: string;

  beforeAll(async () => {
    quinn = await createSignedInUser(h, admin, { name: 'Quinn Key', email: 'quinn@example.com', role: 'viewer' });
    const added = await addPasskey(quinn, key, 'Security key');
    expect(added.status).toBe(201);
    passkeyId = added.body.id;
  });

  async function ticket(): Promise<string> {
    const res = await h.http.post('/api/v1/auth/login').send({ email: 'quinn@example.com', password: quinn.password });
    expect(res.body).toMatchObject({ status: 'second_factor_required', methods: ['passkey'] });
    return res.body.ticket;
  }

  it('as the second step of a password sign-in, with options limited to the account\'s passkeys', async () => {
    const t = await ticket();
    const options = await h.http.post('/api/v1/auth/login/second-factor/passkey').send({ ticket: t });
    expect(options.status).toBe(200);
    expect(options.body.options).toMatchObject({ rpId: 'localhost', allowCredentials: [expect.objectContaining({ id: key.credentials[0]!.id.toString('base64url') })] });
    const credential = key.authenticate(options.body.options, ORIGIN);
    const res = await h.http.post('/api/v1/auth/login/second-factor').send({ ticket: t, method: 'passkey', credential });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'signed_in', user: { email: 'quinn@example.com' } });
    const client = sessionClient(h, sessionFrom(res));
    const sessions = await client.get('/api/v1/me/sessions');
    expect(sessions.body.items.find((s: { current: boolean }) => s.current)).toMatchObject({ method: 'password', second_factor: 'passkey' });
    const list = await client.get('/api/v1/me/passkeys');
    expect(list.body.items[0].last_used_at).toBe(clock.now().toISOString());
  });

  it('a passkey answer for another sign-in\'s challenge, or a replayed answer, is refused', async () => {
    const first = await ticket();
    const options = await h.http.post('/api/v1/auth/login/second-factor/passkey').send({ ticket: first });
    const credential = key.authenticate(options.body.options, ORIGIN);
    const second = await ticket();
    const crossed = await h.http.post('/api/v1/auth/login/second-factor').send({ ticket: second, method: 'passkey', credential });
    expect(crossed.status).toBe(401);
    expect(crossed.body.code).toBe('auth.challenge_invalid');
    // The challenge was consumed by that attempt: the genuine ticket cannot reuse it.
    const replay = await h.http.post('/api/v1/auth/login/second-factor').send({ ticket: first, method: 'passkey', credential });
    expect(replay.body.code).toBe('auth.challenge_invalid');
  });

  it('passwordless, with a discoverable credential: no account named, the passkey names its user', async () => {
    const options = await h.http.post('/api/v1/auth/passkey/options');
    expect(options.status).toBe(200);
    expect(options.body.options).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
    expect(options.body.options.allowCredentials ?? []).toEqual([]);
    const credential = key.authenticate(options.body.options, ORIGIN);
    const res = await h.http.post('/api/v1/auth/passkey').send({ credential });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'signed_in', user: { id: quinn.userId } });
    const client = sessionClient(h, sessionFrom(res));
    const sessions = await client.get('/api/v1/me/sessions');
    expect(sessions.body.items.find((s: { current: boolean }) => s.current)).toMatchObject({ method: 'passkey', second_factor: null });
    const replay = await h.http.post('/api/v1/auth/passkey').send({ credential });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('auth.challenge_invalid');
    const signIns = await events('auth.sign_in', quinn.userId);
    expect(signIns[0]).toMatchObject({ outcome: 'success', details: { method: 'passkey', passkey_id: passkeyId } });
  });

  it('refuses an unknown passkey, and one without user verification for passwordless sign-in', async () => {
    const stranger = new SoftwareAuthenticator();
    const anyOptions = await h.http.post('/api/v1/auth/passkey/options');
    stranger.register({ rp: { id: 'localhost' }, user: { id: Buffer.from('nobody').toString('base64url') }, challenge: 'x' }, ORIGIN);
    const unknown = await h.http.post('/api/v1/auth/passkey').send({ credential: stranger.authenticate(anyOptions.body.options, ORIGIN) });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('auth.invalid_credentials');
    const lazy = key.clone();
    lazy.userVerified = false;
    const options = await h.http.post('/api/v1/auth/passkey/options');
    const noUv = await h.http.post('/api/v1/auth/passkey').send({ credential: lazy.authenticate(options.body.options, ORIGIN) });
    expect(noUv.status).toBe(401);
  });

  it('a cloned authenticator (its counter behind the stored one) is refused and audited', async () => {
    const clone = key.clone();
    // The genuine key signs in twice more; the clone still counts from before.
    for (let i = 0; i < 2; i++) {
      const options = await h.http.post('/api/v1/auth/passkey/options');
      expect((await h.http.post('/api/v1/auth/passkey').send({ credential: key.authenticate(options.body.options, ORIGIN) })).status).toBe(200);
    }
    const options = await h.http.post('/api/v1/auth/passkey/options');
    const res = await h.http.post('/api/v1/auth/passkey').send({ credential: clone.authenticate(options.body.options, ORIGIN) });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('auth.invalid_credentials');
    expect(res.body.detail).toMatch(/counter/);
    const refused = await events('passkey.clone_refused', quinn.userId);
    expect(refused[0]).toMatchObject({ outcome: 'failure', reason: 'passkey.clone_refused', target: { id: passkeyId } });
    // The genuine key still works.
    const next = await h.http.post('/api/v1/auth/passkey/options');
    expect((await h.http.post('/api/v1/auth/passkey').send({ credential: key.authenticate(next.body.options, ORIGIN) })).status).toBe(200);
  });

  it('an admin turning off the user\'s second factors removes the passkeys', async () => {
    const res = await admin.post(`/api/v1/users/${quinn.userId}/2fa/disable`);
    expect(res.status).toBe(204);
    const login = await h.http.post('/api/v1/auth/login').send({ email: 'quinn@example.com', password: quinn.password });
    expect(login.body.status).toBe('signed_in');
    const client = sessionClient(h, sessionFrom(login));
    expect((await client.get('/api/v1/me/passkeys')).body.items).toEqual([]);
    expect((await events('two_factor.disabled', quinn.userId))[0]).toMatchObject({ details: { passkeys_removed: 1 } });
  });
});

it('the workspace enrolment requirement is met by adding a passkey', async () => {
  const settings = await admin.get('/api/v1/settings');
  expect((await admin.patch('/api/v1/settings').send({ require_second_factor: true, version: settings.body.version })).status).toBe(200);
  const uma = await createSignedInUser(h, admin, { name: 'Uma Unenrolled', email: 'uma@example.com', role: 'viewer' });
  const login = await h.http.post('/api/v1/auth/login').send({ email: 'uma@example.com', password: uma.password });
  expect(login.body.must_enrol_second_factor).toBe(true);
  const client = sessionClient(h, sessionFrom(login));
  expect((await client.get('/api/v1/queries')).body.code).toBe('auth.second_factor_enrolment_required');
  expect((await addPasskey(client, new SoftwareAuthenticator())).status).toBe(201);
  expect((await client.get('/api/v1/queries')).status).toBe(200);
});

it('with SVC_PUBLIC_URL on an IP address (which browsers refuse as relying party), no passkey options are handed out', async () => {
  const byAddress = await startHerald({ env: { SVC_PUBLIC_URL: 'http://127.0.0.1:8080' } });
  try {
    const ada = await setupAdmin(byAddress);
    for (const res of [await ada.post('/api/v1/me/passkeys/options'), await byAddress.http.post('/api/v1/auth/passkey/options')]) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'passkey.unavailable', detail: expect.stringContaining('127.0.0.1') });
    }
  } finally {
    await byAddress.stop();
  }
}, 60_000);
