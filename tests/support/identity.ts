/**
 * Common identity flows for tests: first-run setup, sign-in, users and keys, all through the
 * real API. Session clients send the cookie and, for changes, X-CSRF-Token.
 */
import type { Test } from 'supertest';
import type { Herald, HttpClient } from './harness.js';

export const ADMIN = { name: 'Ada Admin', email: 'ada@example.com', password: 'correct horse battery staple' };

export interface SessionClient extends HttpClient {
  cookie: string;
  csrf: string;
  userId: string;
}

function cookieValue(setCookie: string[] | string | undefined, name: string): string | undefined {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  for (const c of list) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(c);
    if (m) return m[1];
  }
  return undefined;
}

/** A client that acts with this session's cookie (and CSRF header unless told otherwise). */
export function sessionClient(h: Herald, session: { cookie: string; csrf: string; userId: string }): SessionClient {
  const wrap = (m: (url: string) => Test) => (url: string) =>
    m(url).set('Cookie', `svc_session=${session.cookie}; svc_csrf=${session.csrf}`).set('X-CSRF-Token', session.csrf);
  return {
    ...session,
    get: wrap(h.http.get), post: wrap(h.http.post), put: wrap(h.http.put), patch: wrap(h.http.patch), delete: wrap(h.http.delete),
  };
}

export function keyClient(h: Herald, token: string): HttpClient {
  const wrap = (m: (url: string) => Test) => (url: string) => m(url).set('Authorization', `Bearer ${token}`);
  return { get: wrap(h.http.get), post: wrap(h.http.post), put: wrap(h.http.put), patch: wrap(h.http.patch), delete: wrap(h.http.delete) };
}

export function sessionFrom(res: { headers: Record<string, unknown>; body: { user: { id: string } } }) {
  const setCookie = res.headers['set-cookie'] as string[] | undefined;
  const cookie = cookieValue(setCookie, 'svc_session');
  const csrf = cookieValue(setCookie, 'svc_csrf');
  if (!cookie || !csrf) throw new Error('no session cookies in the answer');
  return { cookie, csrf, userId: res.body.user.id };
}

export async function setupAdmin(h: Herald, admin = ADMIN): Promise<SessionClient> {
  const res = await h.http.post('/api/v1/setup').send(admin);
  if (res.status !== 201) throw new Error(`setup answered ${res.status}: ${res.text}`);
  return sessionClient(h, sessionFrom(res));
}

export async function signIn(h: Herald, email: string, password: string, ip?: string): Promise<SessionClient> {
  const req = h.http.post('/api/v1/auth/login');
  if (ip) req.set('X-Forwarded-For', ip);
  const res = await req.send({ email, password });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${res.text}`);
  return sessionClient(h, sessionFrom(res));
}

/**
 * Creates a user through the API and signs it in with its own (changed) password, so the
 * session is fully usable.
 */
export async function createSignedInUser(
  h: Herald, admin: SessionClient, input: { name: string; email: string; role: 'viewer' | 'editor' | 'admin' },
): Promise<SessionClient & { password: string }> {
  const created = await admin.post('/api/v1/users').send(input);
  if (created.status !== 201) throw new Error(`create user answered ${created.status}: ${created.text}`);
  const temp = created.body.temporary_password as string;
  const first = await signIn(h, input.email, temp);
  const password = `${input.name} has a long password 42`;
  const changed = await first.post('/api/v1/me/password').send({ current_password: temp, new_password: password });
  if (changed.status !== 204) throw new Error(`password change answered ${changed.status}: ${changed.text}`);
  return { ...first, password };
}

export async function createKey(
  admin: SessionClient, input: { name: string; scope: 'read' | 'run' | 'write' | 'admin'; owner_id?: string; expires_at?: string },
): Promise<{ id: string; token: string }> {
  const res = await admin.post('/api/v1/api-keys').send(input);
  if (res.status !== 201) throw new Error(`create key answered ${res.status}: ${res.text}`);
  return { id: res.body.key.id, token: res.body.token };
}
