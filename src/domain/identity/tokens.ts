import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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

const accountDigest = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);

/**
 * The svc_device cookie: proof that this browser signed in to the account of `email` before,
 * so failures elsewhere cannot make its owner wait (see attempt-guard.ts).
 */
export function deviceTokenFor(secretKey: Buffer, email: string): string {
  const nonce = randomBytes(12).toString('base64url');
  const mac = createHmac('sha256', secretKey).update(`device:${accountDigest(email)}:${nonce}`).digest('base64url');
  return `${nonce}.${mac}`;
}

export function isDeviceTokenFor(secretKey: Buffer, token: string | undefined, email: string): boolean {
  if (!token) return false;
  const [nonce, mac] = token.split('.');
  if (!nonce || !mac) return false;
  const expected = createHmac('sha256', secretKey).update(`device:${accountDigest(email)}:${nonce}`).digest('base64url');
  return expected.length === mac.length && timingSafeEqual(Buffer.from(expected), Buffer.from(mac));
}
