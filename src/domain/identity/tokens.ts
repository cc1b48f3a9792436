import { createHash, createHmac, randomBytes } from 'node:crypto';

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
