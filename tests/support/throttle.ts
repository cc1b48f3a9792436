/**
 * Sign-in throttling from the outside: a spread attack that arms an account's account-wide
 * delay, and the checks of a 429 answer. Client addresses are simulated with X-Forwarded-For.
 */
import type { HttpClient } from './harness.js';
import type { ManualClock } from '../../src/core/clock.js';

type Answer = { status: number; headers: Record<string, unknown>; body: Record<string, unknown> };

/** Checks a 429 problem document and returns its Retry-After in seconds. */
export function retryAfterOf(res: Answer): number {
  expect(res.status).toBe(429);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ code: 'rate_limited', status: 429 });
  const header = res.headers['retry-after'];
  expect(typeof header).toBe('string');
  expect(header).toMatch(/^\d+$/);
  const seconds = Number(header);
  expect(seconds).toBeGreaterThanOrEqual(1);
  return seconds;
}

/** Waits `seconds` of real time (plus a margin for a busy machine). */
export const wait = (seconds: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, seconds === 0 ? 0 : seconds * 1000 + 150));

/** "Waits" by moving a manual clock: the server sees the time pass at once. */
export const waitOn = (clock: ManualClock) => async (seconds: number): Promise<void> => { clock.advance(seconds * 1000); };

/** The svc_device_<account> cookie an answer set, as name=value. */
export function deviceCookieOf(res: { headers: Record<string, unknown> }): string {
  const all = res.headers['set-cookie'] as unknown as string[];
  const device = all.filter((c) => /^svc_device_[A-Za-z0-9_-]{22}=/.test(c));
  expect(device).toHaveLength(1);
  expect(device[0]).toMatch(/HttpOnly/i);
  expect(device[0]).toMatch(/Path=\/api\/v1\/auth/);
  return device[0]!.split(';')[0]!;
}

export interface SpreadAttack {
  /** One sign-in attempt from `ip`. */
  login(email: string, password: string, ip: string): Promise<Answer>;
  /** Guesses from ever new addresses until the account-wide delay is at least `seconds` long. */
  armAccountDelay(email: string, seconds: number): Promise<void>;
}

/**
 * A patient attacker: each guess from a new address (203.0.113.0 and up, so each stays under
 * its own allowance), through the client `http()` returns. `onAnswer` sees every sign-in answer;
 * `pause` waits out a delay (real time by default; `waitOn(clock)` moves a manual clock).
 */
export function spreadAttack(
  http: () => HttpClient, onAnswer: (ip: string, res: Answer) => void = () => undefined, pause: (seconds: number) => Promise<void> = wait,
): SpreadAttack {
  let n = 0;
  const nextAddress = () => { n += 1; return `203.0.${113 + Math.floor(n / 250)}.${(n % 250) + 1}`; };
  const login = async (email: string, password: string, ip: string) => {
    const res = await http().post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password });
    onAnswer(ip, res);
    return res;
  };
  return {
    login,
    async armAccountDelay(email, seconds) {
      await Promise.all(Array.from({ length: 21 }, (_v, i) => login(email, `spread guess ${i}`, nextAddress())));
      for (;;) {
        const guess = await login(email, 'one more spread guess', nextAddress());
        if (guess.status === 429) { await pause(retryAfterOf(guess)); continue; }
        const probe = await login(email, 'probing guess', nextAddress());
        if (probe.status !== 429) continue;
        const delay = retryAfterOf(probe);
        if (delay >= seconds) return;
        await pause(delay);
      }
    },
  };
}
