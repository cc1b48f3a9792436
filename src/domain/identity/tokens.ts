import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Compares a secret the client sent with the expected one in constant time (for equal lengths). */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** 32 random bytes, base64url (43 characters). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the store keeps of a token: its SHA-256, so a database leak reveals no credential. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The CSRF token of a session: derived from its secret token, so it is bound to that session. */
export function csrfTokenFor(secretKey: Buffer, sessionToken: string): string {
  return createHmac('sha256', secretKey).update(`csrf:${sessionToken}`).digest('base64url');
}

/**
 * The one spelling of an email address used for look-ups and for throttle keys alike, so that
 * two spellings can never count against two different keys yet reach the same account.
 */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** How long a device token proves an earlier sign-in. */
export const DEVICE_TOKEN_MAX_AGE_SECONDS = 365 * 24 * 3600;

/** The device cookie of one account: svc_device_<22 characters naming the account>. */
export function deviceCookieName(email: string): string {
  return `svc_device_${createHash('sha256').update(`device-cookie:${normalizeEmail(email)}`).digest('base64url').slice(0, 22)}`;
}

export interface DeviceSubject {
  id: string;
  passwordChangedAt: Date | null;
}

const deviceMac = (secretKey: Buffer, user: DeviceSubject, issuedAt: number) => createHmac('sha256', secretKey)
  .update(`device:v2:${user.id}:${user.passwordChangedAt?.getTime() ?? 0}:${issuedAt}`).digest('base64url');

/**
 * An svc_device token: proof that this browser signed in to this user's account before, so
 * failures elsewhere cannot make its owner wait (see attempt-guard.ts). It names the issue time
 * and is bound to the user's password: a password change or reset revokes every such token, and
 * none outlives DEVICE_TOKEN_MAX_AGE_SECONDS.
 */
export function deviceTokenFor(secretKey: Buffer, user: DeviceSubject, now: Date): string {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return `${issuedAt}.${deviceMac(secretKey, user, issuedAt)}`;
}

const DEVICE_TOKEN = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export function isDeviceTokenFor(secretKey: Buffer, token: string | undefined, user: DeviceSubject, now: Date): boolean {
  const m = token === undefined ? null : DEVICE_TOKEN.exec(token);
  if (!m) return false;
  const issuedAt = Number(m[1]);
  const age = now.getTime() / 1000 - issuedAt;
  if (age < -300 || age > DEVICE_TOKEN_MAX_AGE_SECONDS) return false;
  const expected = Buffer.from(deviceMac(secretKey, user, issuedAt));
  return timingSafeEqual(expected, Buffer.from(m[2]!));
}
