/**
 * The software authenticator (tests/support/webauthn-authenticator.ts) against the real, unstubbed
 * @simplewebauthn/server 14: registration ("none" attestation, ES256 COSE key) and assertions verify,
 * as a second factor (allowCredentials) and passwordless (discoverable credential, user handle);
 * the library refuses a wrong challenge, origin or relying party, a missing UV flag, a forged
 * signature and a counter going backwards (a clone); excludeCredentials is honoured like a browser.
 * Also records what the library does with an IP address as relying party id.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { createAuthenticator, cborEncode, type SoftwareAuthenticator } from '../support/webauthn-authenticator.js';

const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:8080';
const USER_ID = Buffer.from('user-0001');

async function registrationOptions(overrides: Partial<Parameters<typeof generateRegistrationOptions>[0]> = {}) {
  return generateRegistrationOptions({
    rpName: 'Herald', rpID: RP_ID, userName: 'pia@example.com', userID: new Uint8Array(USER_ID), attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' }, ...overrides,
  });
}

/** Register one credential on `device` and answer what a server stores for it. */
async function enrol(device: SoftwareAuthenticator, overrides: Parameters<typeof registrationOptions>[0] = {}): Promise<WebAuthnCredential> {
  const options = await registrationOptions(overrides);
  const response = device.register(options, ORIGIN);
  const result = await verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID });
  if (!result.verified) throw new Error('registration did not verify');
  return result.registrationInfo.credential;
}

async function assert(device: SoftwareAuthenticator, stored: WebAuthnCredential, opts: { origin?: string; expectedChallenge?: string } = {}) {
  const options = await generateAuthenticationOptions({ rpID: RP_ID, allowCredentials: [{ id: stored.id }] });
  const response = device.authenticate(options, opts.origin ?? ORIGIN);
  return verifyAuthenticationResponse({
    response, expectedChallenge: opts.expectedChallenge ?? options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credential: stored,
  });
}

describe('registration', () => {
  it('verifies ("none", ES256) and gives the credential id, COSE public key and counter', async () => {
    const device = createAuthenticator();
    const options = await registrationOptions();
    const response = device.register(options, ORIGIN);
    expect(response).toMatchObject({ type: 'public-key', authenticatorAttachment: 'platform', clientExtensionResults: {} });
    expect(response.id).toBe(response.rawId);
    expect(response.response).toMatchObject({ transports: ['internal'], publicKeyAlgorithm: -7 });
    expect(JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString())).toEqual({
      type: 'webauthn.create', challenge: options.challenge, origin: ORIGIN, crossOrigin: false,
    });

    const result = await verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID });
    expect(result.verified).toBe(true);
    const info = result.registrationInfo!;
    expect(info).toMatchObject({
      fmt: 'none', aaguid: '00000000-0000-0000-0000-000000000000', credentialType: 'public-key', userVerified: true,
      credentialDeviceType: 'singleDevice', credentialBackedUp: false, origin: ORIGIN, rpID: RP_ID,
    });
    expect(info.credential.id).toBe(response.id);
    expect(info.credential.counter).toBe(0);
    expect(info.credential.transports).toEqual(['internal']);
    expect(Buffer.from(info.credential.publicKey)).toEqual(device.publicKeyCose(response.id));
    const cred = device.credential(response.id);
    expect(cred).toMatchObject({ rpId: RP_ID, signCount: 0, discoverable: true, userHandle: USER_ID });
    // The optional SPKI public key is the same key.
    expect(Buffer.from(response.response.publicKey!, 'base64url')).toEqual(cred.publicKey.export({ type: 'spki', format: 'der' }));
  });

  it('starts the counter where configured', async () => {
    const stored = await enrol(createAuthenticator({ initialSignCount: 1 }));
    expect(stored.counter).toBe(1);
  });

  it('an IP address as relying party id: the library accepts it, browsers (and browserRules) refuse it', async () => {
    const origin = 'http://127.0.0.1:41234';
    const options = await registrationOptions({ rpID: '127.0.0.1' });
    const response = createAuthenticator().register(options, origin);
    const result = await verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: origin, expectedRPID: '127.0.0.1' });
    expect(result).toMatchObject({ verified: true, registrationInfo: { rpID: '127.0.0.1' } });

    const strict = createAuthenticator({ browserRules: true });
    expect(() => strict.register(options, origin)).toThrow(expect.objectContaining({ name: 'SecurityError' }));
    expect(() => strict.register(options, 'http://evil.example.test')).toThrow(expect.objectContaining({ name: 'SecurityError' }));
    const localhost = await registrationOptions();
    expect(() => strict.register(localhost, ORIGIN)).not.toThrow();
  });

  it('refuses a wrong challenge, a wrong origin, another relying party and no user verification', async () => {
    const options = await registrationOptions();
    const verify = (response: ReturnType<SoftwareAuthenticator['register']>, challenge = options.challenge) =>
      verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID });
    const device = createAuthenticator();
    await expect(verify(device.register(options, ORIGIN), 'c29tZS1vdGhlci1jaGFsbGVuZ2U')).rejects.toThrow(/Unexpected registration response challenge/);
    await expect(verify(device.register(options, 'http://evil.example.test'))).rejects.toThrow(/Unexpected registration response origin/);
    await expect(verify(device.register(options, ORIGIN, { rpId: 'evil.example.test' }))).rejects.toThrow(/Unexpected RP ID hash/);
    await expect(verify(device.register(options, ORIGIN, { userVerified: false }))).rejects.toThrow(/User verification was required/);
  });

  it('honours excludeCredentials like a browser (InvalidStateError), for the device holding one', async () => {
    const laptop = createAuthenticator();
    const first = await enrol(laptop);
    const options = await registrationOptions({ excludeCredentials: [{ id: first.id, transports: ['internal'] }] });
    expect(() => laptop.register(options, ORIGIN)).toThrow(expect.objectContaining({ name: 'InvalidStateError' }));
    expect(laptop.credentials).toHaveLength(1);
    // Another authenticator holds none of the excluded credentials, so it registers.
    const phone = createAuthenticator();
    const response = phone.register(options, ORIGIN);
    await expect(verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID }))
      .resolves.toMatchObject({ verified: true });
  });

  it('refuses options that do not offer ES256 (NotSupportedError)', async () => {
    const options = await registrationOptions({ supportedAlgorithmIDs: [-8] });
    expect(() => createAuthenticator().register(options, ORIGIN)).toThrow(expect.objectContaining({ name: 'NotSupportedError' }));
  });
});

describe('authentication', () => {
  it('as a second factor (allowCredentials): verifies and returns the new counter, one more per assertion', async () => {
    const device = createAuthenticator();
    const stored = await enrol(device);
    const first = await assert(device, stored);
    expect(first).toMatchObject({ verified: true, authenticationInfo: { credentialID: stored.id, newCounter: 1, userVerified: true, origin: ORIGIN, rpID: RP_ID } });
    stored.counter = first.authenticationInfo.newCounter;
    const second = await assert(device, stored);
    expect(second).toMatchObject({ verified: true, authenticationInfo: { newCounter: 2 } });
  });

  it('signs authData || SHA-256(clientDataJSON) with a DER ECDSA signature; a forged one is verified: false', async () => {
    const device = createAuthenticator();
    const stored = await enrol(device);
    const options = await generateAuthenticationOptions({ rpID: RP_ID, allowCredentials: [{ id: stored.id }] });
    const response = device.authenticate(options, ORIGIN);
    expect(JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString())).toEqual({
      type: 'webauthn.get', challenge: options.challenge, origin: ORIGIN, crossOrigin: false,
    });
    const signature = Buffer.from(response.response.signature, 'base64url');
    expect(signature[0]).toBe(0x30); // a DER SEQUENCE, not raw r || s
    const forged = Buffer.from(signature);
    forged[forged.length - 1]! ^= 0x01;
    const result = await verifyAuthenticationResponse({
      response: { ...response, response: { ...response.response, signature: forged.toString('base64url') } },
      expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credential: stored,
    });
    expect(result.verified).toBe(false);
  });

  it('passwordless (no allowCredentials): a discoverable credential answers, with its user handle', async () => {
    const device = createAuthenticator();
    const stored = await enrol(device);
    const options = await generateAuthenticationOptions({ rpID: RP_ID, userVerification: 'required' });
    expect(options.allowCredentials ?? []).toEqual([]);
    const response = device.authenticate(options, ORIGIN);
    expect(response.id).toBe(stored.id);
    expect(Buffer.from(response.response.userHandle!, 'base64url')).toEqual(USER_ID);
    const result = await verifyAuthenticationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credential: stored });
    expect(result).toMatchObject({ verified: true, authenticationInfo: { newCounter: 1, userVerified: true } });
  });

  it('a non-discoverable credential serves only with allowCredentials, and answers no user handle', async () => {
    const device = createAuthenticator();
    const stored = await enrol(device, { authenticatorSelection: { residentKey: 'discouraged' } });
    expect(device.credential(stored.id).discoverable).toBe(false);
    const passwordless = await generateAuthenticationOptions({ rpID: RP_ID });
    expect(() => device.authenticate(passwordless, ORIGIN)).toThrow(expect.objectContaining({ name: 'NotAllowedError' }));
    const listed = await generateAuthenticationOptions({ rpID: RP_ID, allowCredentials: [{ id: stored.id }] });
    expect(device.authenticate(listed, ORIGIN).response.userHandle).toBeUndefined();
  });

  it('NotAllowedError when no credential matches: unknown id, other relying party, or an empty authenticator', async () => {
    const device = createAuthenticator();
    const stored = await enrol(device);
    const unknown = await generateAuthenticationOptions({ rpID: RP_ID, allowCredentials: [{ id: Buffer.from('nope').toString('base64url') }] });
    expect(() => device.authenticate(unknown, ORIGIN)).toThrow(expect.objectContaining({ name: 'NotAllowedError' }));
    const otherRp = await generateAuthenticationOptions({ rpID: 'example.test', allowCredentials: [{ id: stored.id }] });
    expect(() => device.authenticate(otherRp, 'https://example.test')).toThrow(expect.objectContaining({ name: 'NotAllowedError' }));
    const any = await generateAuthenticationOptions({ rpID: RP_ID });
    expect(() => createAuthenticator().authenticate(any, ORIGIN)).toThrow(expect.objectContaining({ name: 'NotAllowedError' }));
    expect(device.credential(stored.id).signCount).toBe(0); // nothing was signed
  });

  it('picks the credential asked for among several', async () => {
    const device = createAuthenticator();
    const a = await enrol(device);
    const b = await enrol(device);
    const options = await generateAuthenticationOptions({ rpID: RP_ID });
    expect(device.authenticate(options, ORIGIN).id).toBe(a.id);
    const picked = device.authenticate(options, ORIGIN, { credentialId: b.id });
    expect(picked.id).toBe(b.id);
    await expect(verifyAuthenticationResponse({ response: picked, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credential: b }))
      .resolves.toMatchObject({ verified: true });
  });

  it('the library refuses a wrong challenge, a wrong origin and another relying party (thrown errors)', async () => {
    const device = createAuthenticator();
    const stored = await enrol(device);
    await expect(assert(device, stored, { expectedChallenge: 'c29tZS1vdGhlci1jaGFsbGVuZ2U' })).rejects.toThrow(/Unexpected authentication response challenge/);
    await expect(assert(device, stored, { origin: 'http://evil.example.test' })).rejects.toThrow(/Unexpected authentication response origin/);
    const options = await generateAuthenticationOptions({ rpID: RP_ID, allowCredentials: [{ id: stored.id }] });
    const response = device.authenticate(options, ORIGIN, { rpId: 'evil.example.test' });
    await expect(verifyAuthenticationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credential: stored }))
      .rejects.toThrow(/Unexpected RP ID hash/);
  });

  it('without user verification: refused by default, accepted with requireUserVerification: false', async () => {
    const device = createAuthenticator({ userVerified: false });
    const options = await registrationOptions();
    const registration = await verifyRegistrationResponse({
      response: device.register(options, ORIGIN), expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, requireUserVerification: false,
    });
    const stored = registration.registrationInfo!.credential;
    const auth = await generateAuthenticationOptions({ rpID: RP_ID, allowCredentials: [{ id: stored.id }] });
    const response = device.authenticate(auth, ORIGIN);
    const verify = (requireUserVerification?: boolean) => verifyAuthenticationResponse({
      response, expectedChallenge: auth.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, credential: stored, requireUserVerification,
    });
    await expect(verify()).rejects.toThrow(/User verification required/);
    await expect(verify(false)).resolves.toMatchObject({ verified: true, authenticationInfo: { userVerified: false } });
  });
});

describe('counter regression (a cloned authenticator)', () => {
  it('the library throws (it does not answer verified: false) when the counter goes backwards', async () => {
    const genuine = createAuthenticator();
    const stored = await enrol(genuine);
    const clone = genuine.clone();
    for (let i = 0; i < 2; i++) stored.counter = (await assert(genuine, stored)).authenticationInfo.newCounter;
    expect(stored.counter).toBe(2);
    // The clone still counts from 0, so it answers 1 where the server holds 2.
    await expect(assert(clone, stored)).rejects.toThrow('Response counter value 1 was lower than expected 2');
    // The genuine authenticator carries on.
    await expect(assert(genuine, stored)).resolves.toMatchObject({ verified: true, authenticationInfo: { newCounter: 3 } });
  });

  it('an equal counter is refused too; setSignCount moves a counter', async () => {
    const device = createAuthenticator();
    const stored = await enrol(device);
    stored.counter = (await assert(device, stored)).authenticationInfo.newCounter;
    device.setSignCount(stored.id, 0); // the next assertion says 1 again
    await expect(assert(device, stored)).rejects.toThrow('Response counter value 1 was lower than expected 1');
    device.setSignCount(stored.id, 41);
    await expect(assert(device, stored)).resolves.toMatchObject({ verified: true, authenticationInfo: { newCounter: 42 } });
    expect(() => device.setSignCount(stored.id, -1)).toThrow();
    expect(() => device.setSignCount('unknown', 1)).toThrow();
  });

  it('an authenticator without a counter (always 0) is accepted: the library skips the check when both are 0', async () => {
    const device = createAuthenticator({ counterStep: 0 });
    const stored = await enrol(device);
    for (let i = 0; i < 2; i++) {
      await expect(assert(device, stored)).resolves.toMatchObject({ verified: true, authenticationInfo: { newCounter: 0 } });
    }
  });
});

describe('cborEncode', () => {
  it('round-trips through the library\'s CBOR decoder at every length boundary', () => {
    const ints = [0, 1, 23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, -1, -24, -25, -256, -257, -65537];
    for (const n of ints) expect(isoCBOR.decodeFirst(new Uint8Array(cborEncode(n)))).toBe(n);
    for (const len of [0, 23, 24, 255, 256, 70000]) {
      const bytes = Buffer.alloc(len, 7);
      expect(Buffer.from(isoCBOR.decodeFirst<Uint8Array>(new Uint8Array(cborEncode(bytes))))).toEqual(bytes);
      const text = 'é'.repeat(len);
      expect(isoCBOR.decodeFirst(new Uint8Array(cborEncode(text)))).toBe(text);
    }
    const map = new Map<unknown, unknown>([[1, 2], [-3, Buffer.from([1, 2])], ['k', [1, 'two', new Map()]]]);
    const decoded = isoCBOR.decodeFirst<Map<unknown, unknown>>(new Uint8Array(cborEncode(map)));
    expect(decoded.get(1)).toBe(2);
    expect(Buffer.from(decoded.get(-3) as Uint8Array)).toEqual(Buffer.from([1, 2]));
    expect(decoded.get('k')).toEqual([1, 'two', new Map()]);
    expect(() => cborEncode(1.5)).toThrow();
    expect(() => cborEncode(true)).toThrow();
  });

  it('writes a COSE key byte for byte as the library\'s encoder does', () => {
    const x = Buffer.alloc(32, 1);
    const y = Buffer.alloc(32, 2);
    const mine = cborEncode(new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, x], [-3, y]]));
    const theirs = isoCBOR.encode(new Map<number, number | Uint8Array>([[1, 2], [3, -7], [-1, 1], [-2, new Uint8Array(x)], [-3, new Uint8Array(y)]]));
    expect(mine).toEqual(Buffer.from(theirs));
  });
});
