/**
 * The authenticator holds a principal for a few seconds once told to (holdPrincipals, when the
 * process hears identity.changed): a held credential costs no store look-up; forget() (what
 * identity.changed calls) drops it at once, also for a look-up that was under way; a key's expiry
 * is never passed; refusals are never held; one in steady use is read again behind a request in
 * its last fifth, so it is never missed, and dropped when that read is refused.
 */
import { manualClock } from '../../src/core/clock.js';
import { createAuthenticator } from '../../src/domain/sign-in/authenticator.js';
import { tokenHash } from '../../src/domain/identity/tokens.js';
import type { KeyWithOwner, LiveSession } from '../../src/domain/identity/model.js';

const TOKEN = `hk_${'a'.repeat(43)}`;
const SESSION_TOKEN = 'b'.repeat(43);

function fakeStore(clock: { now(): Date }) {
  const key: KeyWithOwner = {
    id: 'key-1', scope: 'read', lastUsedAt: new Date(), revokedAt: null, expiresAt: null,
    userId: 'user-1', name: 'Ada', role: 'admin', enabled: true,
  };
  const session: LiveSession & { revoked: boolean } = {
    id: 'session-1', lastSeenAt: new Date(), userId: 'user-1', name: 'Ada', role: 'admin', mustChangePassword: false, mustEnrol: false,
    expiresAt: new Date(clock.now().getTime() + 3600_000), revoked: false,
  };
  const lookups = { keys: 0, sessions: 0, events: 0 };
  let gate: Promise<void> | undefined;
  let failing = false;
  const store = {
    apiKeys: {
      async findWithOwner(hash: string) {
        lookups.keys += 1;
        const row = hash === tokenHash(TOKEN) ? { ...key } : undefined;
        await gate;
        if (failing) throw new Error('the store is away');
        return row;
      },
      async touch() { /* last used */ },
    },
    sessions: {
      async findLive(hash: string) {
        lookups.sessions += 1;
        return hash === tokenHash(SESSION_TOKEN) && !session.revoked ? { ...session } : undefined;
      },
      async touch() { /* last seen */ },
    },
    events: { async insert() { lookups.events += 1; } },
  };
  return { store, key, session, lookups, hold: (p: Promise<void>) => { gate = p; }, fail: (on: boolean) => { failing = on; } };
}

const setup = () => {
  const clock = manualClock(new Date('2026-01-05T10:00:00Z'));
  const fake = fakeStore(clock);
  const auth = createAuthenticator({
    store: fake.store as never, clock, cacheMs: 5_000,
    policy: { idleMinutes: 60, maxHours: 24, secretKey: Buffer.alloc(32, 1) },
  });
  return { clock, auth, ...fake };
};
const withKey = { bearerToken: TOKEN, ip: '127.0.0.1', userAgent: undefined };
const withSession = { sessionToken: SESSION_TOKEN, ip: '127.0.0.1', userAgent: undefined };

describe('held principals', () => {
  it('looks every request up until told to hold principals', async () => {
    const { auth, lookups } = setup();
    await auth.authenticate(withKey);
    await auth.authenticate(withKey);
    expect(lookups.keys).toBe(2);
  });

  it('holds a key\'s principal for its few seconds, then looks it up again', async () => {
    const { auth, lookups, clock } = setup();
    auth.holdPrincipals(true);
    const first = await auth.authenticate(withKey);
    expect(await auth.authenticate(withKey)).toEqual(first);
    expect(lookups.keys).toBe(1);
    clock.advance(5_001);
    await auth.authenticate(withKey);
    expect(lookups.keys).toBe(2);
  });

  it('refuses a revoked key on the very next request once its user is forgotten', async () => {
    const { auth, key, lookups } = setup();
    auth.holdPrincipals(true);
    expect(await auth.authenticate(withKey)).toMatchObject({ kind: 'api_key', apiKeyId: 'key-1' });
    key.revokedAt = new Date();
    auth.forget('user-1');
    expect(await auth.authenticate(withKey)).toBeNull();
    expect(lookups.keys).toBe(2);
  });

  it('keeps other users\' principals when one user is forgotten', async () => {
    const { auth, lookups } = setup();
    auth.holdPrincipals(true);
    await auth.authenticate(withKey);
    auth.forget('someone-else');
    await auth.authenticate(withKey);
    expect(lookups.keys).toBe(1);
  });

  it('does not hold what a look-up under way at the time of forget() read', async () => {
    const { auth, key, lookups, hold } = setup();
    auth.holdPrincipals(true);
    let release!: () => void;
    hold(new Promise<void>((r) => { release = r; }));
    const pending = auth.authenticate(withKey);
    // The key is revoked and identity.changed arrives while the look-up (of the old row) is under way.
    key.revokedAt = new Date();
    auth.forget('user-1');
    release();
    expect(await pending).not.toBeNull();
    hold(Promise.resolve());
    expect(await auth.authenticate(withKey)).toBeNull();
    expect(lookups.keys).toBe(2);
  });

  it('never holds a key past its expiry, nor reads it again ahead when its expiry ends its holding', async () => {
    const { auth, key, lookups, clock } = setup();
    key.expiresAt = new Date(clock.now().getTime() + 4_000);
    auth.holdPrincipals(true);
    await auth.authenticate(withKey);
    clock.advance(3_900);
    await auth.authenticate(withKey);
    await new Promise((r) => setImmediate(r));
    expect(lookups.keys).toBe(1);
    clock.advance(100);
    expect(await auth.authenticate(withKey)).toBeNull();
    expect(lookups.keys).toBe(2);
  });

  it('never holds a refusal', async () => {
    const { auth, lookups } = setup();
    auth.holdPrincipals(true);
    const unknown = { bearerToken: `hk_${'z'.repeat(43)}`, ip: '127.0.0.1', userAgent: undefined };
    expect(await auth.authenticate(unknown)).toBeNull();
    expect(await auth.authenticate(unknown)).toBeNull();
    expect(lookups.keys).toBe(2);
  });

  it('holds sessions too, and drops them when their user is forgotten', async () => {
    const { auth, session, lookups } = setup();
    auth.holdPrincipals(true);
    expect(await auth.authenticate(withSession)).toMatchObject({ kind: 'session', sessionId: 'session-1' });
    await auth.authenticate(withSession);
    expect(lookups.sessions).toBe(1);
    session.revoked = true;
    auth.forget('user-1');
    expect(await auth.authenticate(withSession)).toBeNull();
  });

  it('reads a principal in steady use again behind a request, so the next one after its time finds it held', async () => {
    const { auth, lookups, clock } = setup();
    auth.holdPrincipals(true);
    const first = await auth.authenticate(withKey);
    clock.advance(3_999);
    await auth.authenticate(withKey);
    expect(lookups.keys).toBe(1); // before its last fifth: held, nothing read
    clock.advance(1);
    expect(await auth.authenticate(withKey)).toEqual(first); // answered from what is held…
    await new Promise((r) => setImmediate(r));
    expect(lookups.keys).toBe(2); // …and read again behind it, once
    await auth.authenticate(withKey);
    expect(lookups.keys).toBe(2);
    clock.advance(1_500); // past the first read's five seconds, within the second's
    expect(await auth.authenticate(withKey)).toEqual(first);
    expect(lookups.keys).toBe(2);
    clock.advance(3_501); // past the second read's five seconds: nobody used it in its last fifth
    await auth.authenticate(withKey);
    expect(lookups.keys).toBe(3);
  });

  it('drops a held principal whose read behind a request is refused (revoked, no identity.changed heard), recording the request refused', async () => {
    const { auth, key, lookups, clock } = setup();
    auth.holdPrincipals(true);
    await auth.authenticate(withKey);
    clock.advance(4_500);
    key.revokedAt = new Date();
    expect(await auth.authenticate(withKey)).not.toBeNull(); // still held: at most five seconds old
    await new Promise((r) => setImmediate(r));
    expect(lookups.keys).toBe(2);
    expect(lookups.events).toBe(0); // the read behind a served request records nothing
    expect(await auth.authenticate(withKey)).toBeNull();
    expect(lookups.events).toBe(1); // api_key.rejected, for the request refused
  });

  it('holds nothing a read behind a request brings back after forget() or after a later refusal', async () => {
    const { auth, key, lookups, clock, hold } = setup();
    auth.holdPrincipals(true);
    await auth.authenticate(withKey);
    clock.advance(4_500);
    let release!: () => void;
    hold(new Promise<void>((r) => { release = r; }));
    await auth.authenticate(withKey); // its read behind the request waits on the store
    auth.forget('user-1');
    release();
    await new Promise((r) => setImmediate(r));
    hold(Promise.resolve());
    await auth.authenticate(withKey);
    expect(lookups.keys).toBe(3); // the slow read held nothing: this request read the key itself

    // A slow read behind a request, then a later read refuses the key (revoked, identity.changed not heard).
    clock.advance(4_500);
    hold(new Promise<void>((r) => { release = r; }));
    await auth.authenticate(withKey); // slow read started, the row still valid
    key.revokedAt = new Date();
    clock.advance(1_000); // past the holding: this request reads for itself, and is refused
    hold(Promise.resolve());
    expect(await auth.authenticate(withKey)).toBeNull();
    release(); // the older read now answers with the key as it was
    await new Promise((r) => setImmediate(r));
    expect(await auth.authenticate(withKey)).toBeNull();
  });

  it('leaves a held principal to run out when the read behind a request fails', async () => {
    const { auth, lookups, clock, fail } = setup();
    auth.holdPrincipals(true);
    const first = await auth.authenticate(withKey);
    clock.advance(4_500);
    fail(true);
    expect(await auth.authenticate(withKey)).toEqual(first);
    await new Promise((r) => setImmediate(r));
    expect(lookups.keys).toBe(2);
    expect(await auth.authenticate(withKey)).toEqual(first); // still held, no second read started
    expect(lookups.keys).toBe(2);
    clock.advance(600);
    await expect(auth.authenticate(withKey)).rejects.toThrow('the store is away'); // run out: the request reads, and fails as before
  });

  it('forgets everything when it stops holding principals', async () => {
    const { auth, lookups } = setup();
    auth.holdPrincipals(true);
    await auth.authenticate(withKey);
    auth.holdPrincipals(false);
    await auth.authenticate(withKey);
    await auth.authenticate(withKey);
    expect(lookups.keys).toBe(3);
  });
});
