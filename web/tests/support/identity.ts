/**
 * Arranging identity for the browser tests without clicking: a user's own API session (a cookie
 * jar of its own, with the CSRF header), an authenticator app enrolled through it, codes of that
 * app as the app would show them, and Chromium's virtual authenticator for passkeys.
 */
import { request, expect, type APIRequestContext, type Page } from '@playwright/test';
import { generate } from 'otplib';

export interface UserSession {
  context: APIRequestContext;
  /** Calls the API as this user; answers the parsed JSON (or null for an empty answer). */
  call<T = unknown>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, expected?: number): Promise<T>;
  dispose(): Promise<void>;
}

/** Signs `user` in through the API in a browser-like session of its own (not the page's). */
export async function userSession(baseURL: string, user: { email: string; password: string }, userAgent?: string): Promise<UserSession> {
  const context = await request.newContext({ baseURL, ...(userAgent ? { userAgent } : {}) });
  const login = await context.post('/api/v1/auth/login', { data: { email: user.email, password: user.password } });
  expect(login.status(), await login.text()).toBe(200);
  const csrf = async () => (await context.storageState()).cookies.find((c) => c.name === 'svc_csrf')?.value ?? '';
  return {
    context,
    async call<T>(method: string, path: string, body?: unknown, expected?: number): Promise<T> {
      const res = await context.fetch(`/api/v1${path}`, {
        method, headers: method === 'GET' ? {} : { 'X-CSRF-Token': await csrf() }, ...(body === undefined ? {} : { data: body }),
      });
      const text = await res.text();
      if (expected !== undefined) expect(res.status(), text).toBe(expected);
      else expect(res.ok(), `${method} ${path}: ${res.status()} ${text}`).toBe(true);
      return (text ? JSON.parse(text) : null) as T;
    },
    dispose: () => context.dispose(),
  };
}

/** What POST /auth/login answers for `user` (from a client of its own, so no page session changes). */
export async function loginAnswer(baseURL: string, user: { email: string; password: string }): Promise<unknown> {
  const context = await request.newContext({ baseURL });
  try {
    const res = await context.post('/api/v1/auth/login', { data: { email: user.email, password: user.password } });
    return await res.json();
  } finally {
    await context.dispose();
  }
}

/**
 * An authenticator app: the code for a time step after the last one used with the secret (Herald
 * takes each step once, and one step either side of now), so two codes in a row both work.
 */
export class Authenticator {
  private last = -1;
  constructor(readonly secret: string) {}

  async code(): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const step = Math.max(Math.floor(now / 30), this.last + 1);
    if (step > Math.floor(now / 30) + 1) throw new Error('two codes used within this time step already');
    this.last = step;
    return generate({ secret: this.secret, epoch: step * 30 });
  }
}

/** Turns the authenticator app on for the session's user; answers the app and the recovery codes. */
export async function enrolTotp(session: UserSession): Promise<{ app: Authenticator; recoveryCodes: string[] }> {
  const setup = await session.call<{ secret: string }>('POST', '/me/2fa/totp/setup');
  const app = new Authenticator(setup.secret);
  const { recovery_codes: recoveryCodes } = await session.call<{ recovery_codes: string[] }>('POST', '/me/2fa/totp/confirm', { code: await app.code() });
  return { app, recoveryCodes };
}

/** Chromium's virtual authenticator (CDP WebAuthn) on the page: a platform passkey that verifies the user. */
export async function virtualAuthenticator(page: Page): Promise<{ credentials(): Promise<number> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials.length,
  };
}

/** Signs the page's browser in through the API with the password and an authenticator code. */
export async function signInWithCode(page: Page, user: { email: string; password: string }, code: string): Promise<void> {
  const login = await page.request.post('/api/v1/auth/login', { data: { email: user.email, password: user.password } });
  const answer = await login.json() as { status: string; ticket?: string };
  expect(answer.status, JSON.stringify(answer)).toBe('second_factor_required');
  const step = await page.request.post('/api/v1/auth/login/second-factor', { data: { ticket: answer.ticket, method: 'totp', code } });
  expect(step.status(), await step.text()).toBe(200);
}

/** The CSRF header for the page's own session, for arranging through page.request. */
export async function csrfOf(page: Page): Promise<Record<string, string>> {
  const token = (await page.context().cookies()).find((c) => c.name === 'svc_csrf')?.value ?? '';
  return { 'X-CSRF-Token': token };
}
