/**
 * Secret fields at rest: AES-256-GCM under SVC_SECRET_KEY.
 * Stored form: "v1:" + base64url(iv ‖ tag ‖ ciphertext). The associated data binds a value to
 * its place (e.g. "users.totp_secret:<id>") so a ciphertext cannot be moved to another row.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secret key must be 32 bytes');
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed, context) {
      if (!sealed.startsWith('v1:')) throw new Error('unknown secret format');
      const raw = Buffer.from(sealed.slice(3), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12), { authTagLength: 16 });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** The wire form of a secret field, as api-spec.md describes it. */
export type SecretInput = string | null | { configured: true } | undefined;

/**
 * Applies a secret-field write to the stored (sealed) value: undefined or {configured: true}
 * keeps it, null removes it, a string replaces it.
 */
export function applySecretInput(
  box: SecretBox, stored: string | null, input: SecretInput, context: string,
): string | null {
  if (input === undefined || (typeof input === 'object' && input !== null)) return stored;
  if (input === null) return null;
  return box.seal(input, context);
}

/** The read form: {configured: true} when a value is stored, otherwise absent. */
export function secretView(stored: string | null | undefined): { configured: true } | undefined {
  return stored ? { configured: true } : undefined;
}
