/**
 * Abuse protection: progressive sign-in delays per account and client address (never a lockout),
 * reset by a success; throttled password reset requests; and the audit trail of throttled
 * sign-ins. Client addresses are simulated with X-Forwarded-For, one set per test. Time is a
 * manual clock the tests move, so delays are waited out at once.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';
import { deviceCookieName } from '../../src/domain/identity/tokens.js';
import { deviceCookieOf, retryAfterOf, spreadAttack, waitOn } from '../support/throttle.js';
import { manualClock } from '../../src/core/clock.js';

let h: Herald;
const clock = manualClock();
const wait = waitOn(clock);
let admin: SessionClient;
/** How many sign-ins answered 429, per client address. */
const throttledSignIns = new Map<string, number>();

beforeAll(async () => {
  // Mail goes nowhere: the reset mail is sent in the background and may fail, which is fine here.
  h = await startHerald({ env: { SVC_SMTP_URL: 'smtp://127.0.0.1:1' }, clock });
  admin = await setupAdmin(h);
});
afterAll(async () => { await h.stop(); });

async function createUser(name: string, email: string, password: string): Promise<void> {
  const res = await admin.post('/api/v1/users').send({ name, email, role: 'viewer', temporary_password: password });
  if (res.status !== 201) throw new Error(`create user answered ${res.status}: ${res.text}`);
}

const attack = spreadAttack(() => h.http, (ip, res) => {
  if (res.status === 429) throttledSignIns.set(ip, (throttledSignIns.get(ip) ?? 0) + 1);
}, wait);
const login = attack.login;
const armAccountDelay = attack.armAccountDelay;

describe('sign-in throttling', () => {
  it('delays an account at one address progressively after five failures, without locking it out', async () => {
    const email = 'rita.one@example.com';
    const password = 'rita one real passphrase';
    await createUser('Rita One', email, password);
    const ip = '192.0.2.101';

    for (let i = 1; i <= 5; i++) {
      const res = await login(email, `wrong guess number ${i}`, ip);
      expect({ attempt: i, status: res.status, code: res.body.code }).toEqual({ attempt: i, status: 401, code: 'auth.invalid_credentials' });
    }
    // The 6th, 7th and 8th failures arm delays of 1, 2 and 4 s; each, made once the previous
    // delay has passed, is answered normally.
    let armed = 0;
    for (const [n, delay] of [[6, 1], [7, 2], [8, 4]] as const) {
      await wait(armed);
      const res = await login(email, `wrong guess number ${n}`, ip);
      expect({ attempt: n, status: res.status, code: res.body.code }).toEqual({ attempt: n, status: 401, code: 'auth.invalid_credentials' });
      armed = delay;
    }

    // Now even the right password has to wait.
    const blocked = await login(email, password, ip);
    const first = retryAfterOf(blocked);
    expect(first).toBeGreaterThan(1);
    expect(first).toBeLessThanOrEqual(4);
    expect(blocked.headers['set-cookie']).toBeUndefined();
    // Writing the email differently does not get around the delay.
    retryAfterOf(await login(' RITA.One@Example.com ', password, ip));

    // The account itself is not locked: another address signs in right away.
    const elsewhere = await login(email, password, '192.0.2.102');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.status).toBe('signed_in');

    // After the delay, another failure is answered normally but makes the next delay longer.
    await wait(first);
    const ninth = await login(email, 'wrong guess number 9', ip);
    expect(ninth.status).toBe(401);
    const second = retryAfterOf(await login(email, password, ip));
    expect(second).toBeGreaterThan(first);
    expect(second).toBeLessThanOrEqual(8);

    // A delay only slows the next attempt: once it has passed, the right password works.
    await wait(second);
    const ok = await login(email, password, ip);
    expect(ok.status).toBe(200);
  }, 60_000);

  it('resets the per-address counter on a successful sign-in', async () => {
    const email = 'rita.two@example.com';
    const password = 'rita two real passphrase';
    await createUser('Rita Two', email, password);
    const ip = '192.0.2.111';

    for (let i = 1; i <= 5; i++) expect((await login(email, `bad password ${i}`, ip)).status).toBe(401);
    expect((await login(email, password, ip)).status).toBe(200);
    // Without the reset this would be the sixth failure and the next attempt would wait.
    expect((await login(email, 'bad password 6', ip)).status).toBe(401);
    const after = await login(email, password, ip);
    expect(after.status).toBe(200);
  });
});

describe('password reset throttling', () => {
  it('answers repeated requests for one email from one address with 429 and Retry-After', async () => {
    const email = 'rita.three@example.com';
    await createUser('Rita Three', email, 'rita three real passphrase');
    const ip = '192.0.2.121';
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof h.http.post>> | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const res = await h.http.post('/api/v1/auth/password-reset').set('X-Forwarded-For', ip).send({ email });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses[0]).toBe(202);
    expect(statuses.filter((s) => s !== 202 && s !== 429)).toEqual([]);
    expect(limited).toBeDefined();
    retryAfterOf(limited!);
    // Another address is not held back by this one's budget.
    const other = await h.http.post('/api/v1/auth/password-reset').set('X-Forwarded-For', '192.0.2.122').send({ email });
    expect(other.status).toBe(202);
  });
});

describe('the audit trail', () => {
  it('records every throttled sign-in as auth.sign_in failure with reason rate_limited', async () => {
    expect(throttledSignIns.get('192.0.2.101')).toBe(3);
    const res = await admin.get('/api/v1/security-events?type=auth.sign_in&limit=200');
    expect(res.status).toBe(200);
    expect(res.body.next_cursor ?? null).toBeNull();
    const events = res.body.items as Array<{ type: string; outcome: string; reason: string | null; ip: string | null }>;
    const throttled = events.filter((e) => e.reason === 'rate_limited');
    for (const e of throttled) expect(e).toMatchObject({ type: 'auth.sign_in', outcome: 'failure' });
    const perIp = new Map<string, number>();
    for (const e of throttled) perIp.set(e.ip ?? '', (perIp.get(e.ip ?? '') ?? 0) + 1);
    expect(perIp).toEqual(throttledSignIns);
    // Ordinary failures keep their own reason.
    expect(events.some((e) => e.outcome === 'failure' && e.reason === 'auth.invalid_credentials' && e.ip === '192.0.2.101')).toBe(true);
  });
});

describe('throttling that holds under pressure', () => {
  it('counts parallel attempts atomically: a burst cannot slip past the per-address allowance', async () => {
    const email = 'burst.target@example.com';
    await createUser('Burst Target', email, 'burst target real passphrase');
    const ip = '192.0.2.150';
    const answers = await Promise.all(Array.from({ length: 12 }, (_v, i) => login(email, `parallel guess ${i}`, ip)));
    const rejected = answers.filter((r) => r.status === 401).length;
    const throttled = answers.filter((r) => r.status === 429).length;
    // Five free attempts and the sixth that arms the delay; everything else waits.
    expect(rejected).toBeLessThanOrEqual(6);
    expect(rejected + throttled).toBe(12);
  });

  it('spares a returning browser (svc_device) the account-wide delay that guesses from many addresses arm', async () => {
    const email = 'device.owner@example.com';
    const password = 'device owner real passphrase';
    await createUser('Device Owner', email, password);
    // The owner signs in once, gets a session and the device cookie for this account.
    const first = await login(email, password, '198.51.100.1');
    expect(first.status).toBe(200);
    const setCookie = first.headers['set-cookie'] as unknown as string[];
    const deviceCookie = deviceCookieOf(first);
    const session = setCookie.find((c) => c.startsWith('svc_session='))!.split(';')[0]!;
    const csrf = first.body.csrf_token as string;

    // Guesses from many addresses, each under its own allowance, arm the account-wide delay.
    await armAccountDelay(email, 4);

    const stranger = await login(email, password, '198.51.100.2');
    expect(retryAfterOf(stranger)).toBeLessThanOrEqual(60);

    const returning = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.3')
      .set('Cookie', deviceCookie).send({ email, password });
    expect(returning.status).toBe(200);

    // Nor can guesses at sign-in block a signed-in user's password change.
    const changed = await h.http.post('/api/v1/me/password').set('X-Forwarded-For', '198.51.100.1')
      .set('Cookie', `${session}`).set('X-CSRF-Token', csrf)
      .send({ current_password: password, new_password: 'device owner new passphrase' });
    // The returning sign-in above rotated nothing for this session; it is still valid.
    expect(changed.status).toBe(204);
  });

  it('spares an address the account signed in from with its current password, until the password changes', async () => {
    const email = 'familiar.place@example.com';
    const password = 'familiar place real passphrase';
    await createUser('Familiar Place', email, password);
    const home = '198.51.100.50';
    const first = await login(email, password, home);
    expect(first.status).toBe(200);

    await armAccountDelay(email, 4);
    expect(retryAfterOf(await login(email, password, '198.51.100.51'))).toBeLessThanOrEqual(60);
    // No device cookie is sent: the address alone is familiar.
    const again = await login(email, password, home);
    expect(again.status).toBe(200);

    // A new password makes every remembered address a stranger again.
    const changed = await h.http.post('/api/v1/me/password').set('X-Forwarded-For', home)
      .set('Cookie', (again.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('svc_session='))!.split(';')[0]!)
      .set('X-CSRF-Token', again.body.csrf_token as string)
      .send({ current_password: password, new_password: 'familiar place new passphrase' });
    expect(changed.status).toBe(204);
    await armAccountDelay(email, 4);
    expect(retryAfterOf(await login(email, 'familiar place new passphrase', home))).toBeLessThanOrEqual(60);
  });

  it('does not accept a device cookie made for another account, under either name', async () => {
    const a = 'device.a@example.com';
    const b = 'device.b@example.com';
    await createUser('Device A', a, 'device a real passphrase');
    await createUser('Device B', b, 'device b real passphrase');
    const deviceA = deviceCookieOf(await login(a, 'device a real passphrase', '198.51.100.20'));
    expect(deviceA.split('=')[0]).toBe(deviceCookieName(a));
    expect(deviceCookieName(b)).not.toBe(deviceCookieName(a));
    await armAccountDelay(b, 4);
    const underOwnName = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.21')
      .set('Cookie', deviceA).send({ email: b, password: 'device b real passphrase' });
    expect(retryAfterOf(underOwnName)).toBeLessThanOrEqual(60);
    const underBsName = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.21')
      .set('Cookie', `${deviceCookieName(b)}=${deviceA.split('=')[1]}`).send({ email: b, password: 'device b real passphrase' });
    expect(retryAfterOf(underBsName)).toBeLessThanOrEqual(60);
  });

  it('keeps one device cookie per account, revokes them with a password change, and shrugs off malformed ones', async () => {
    const c = 'device.c@example.com';
    const d = 'device.d@example.com';
    await createUser('Device C', c, 'device c real passphrase');
    await createUser('Device D', d, 'device d real passphrase');
    // One browser, two accounts: two cookies side by side.
    const signedC = await login(c, 'device c real passphrase', '198.51.100.30');
    const deviceC = deviceCookieOf(signedC);
    const deviceD = deviceCookieOf(await login(d, 'device d real passphrase', '198.51.100.30'));
    expect(deviceC.split('=')[0]).not.toBe(deviceD.split('=')[0]);

    // C changes the password (a while later: the device token is bound to the time of the
    // password it was issued under): the device cookie C held is no proof any more.
    clock.advance(60_000);
    const session = (signedC.headers['set-cookie'] as unknown as string[]).find((x) => x.startsWith('svc_session='))!.split(';')[0]!;
    const changed = await h.http.post('/api/v1/me/password').set('X-Forwarded-For', '198.51.100.30')
      .set('Cookie', session).set('X-CSRF-Token', signedC.body.csrf_token as string)
      .send({ current_password: 'device c real passphrase', new_password: 'device c second passphrase' });
    expect(changed.status).toBe(204);
    await armAccountDelay(c, 4);
    const stale = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.31')
      .set('Cookie', `${deviceC}; ${deviceD}`).send({ email: c, password: 'device c second passphrase' });
    expect(retryAfterOf(stale)).toBeLessThanOrEqual(60);

    // Malformed device cookies (wrong shape, non-ASCII once decoded) are simply no proof.
    for (const value of ['x.y', `1.${'%C3%BF'.repeat(43)}`, `${'9'.repeat(12)}.${'A'.repeat(43)}`]) {
      const res = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '198.51.100.32')
        .set('Cookie', `${deviceCookieName(c)}=${value}`).send({ email: c, password: 'device c second passphrase' });
      expect({ value, status: res.status }).toEqual({ value, status: 429 });
    }
  });
});

describe('one spelling of an address', () => {
  it('reaches an account only by the spelling the throttle counts under', async () => {
    await createUser('Ivan', 'ivan@example.com', 'ivan real passphrase');
    // JavaScript lowers "İ" to "i" plus a combining dot, Postgres to a plain "i": were the look-up
    // and the throttle to disagree, this spelling would reach the account with counters of its own.
    const dotted = await login('İVAN@example.com', 'ivan real passphrase', '198.51.100.40');
    expect(dotted.status).toBe(401);
    expect(dotted.body.code).toBe('auth.invalid_credentials');
    const plain = await login('  IVAN@Example.COM ', 'ivan real passphrase', '198.51.100.40');
    expect(plain.status).toBe(200);
  });
});
