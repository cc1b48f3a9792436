/**
 * Secret fields at rest: AES-256-GCM under the encryption key derived from SVC_SECRET_KEY
 * (keyring.ts). Stored form: "v2:" + kid + ":" + base64url(iv ‖ tag ‖ ciphertext), where kid
 * names the secret key that sealed it. The associated data binds a value to its place (e.g.
 * "users.totp_secret:<id>") so a ciphertext cannot be moved to another row.
 *
 * Values are always sealed with the current key. They open with the current key or any previous
 * one (SVC_SECRET_KEY_PREVIOUS); "v1:" values, sealed before derived keys existed directly under
 * a secret key, open too. `herald rotate-secret-key` re-seals old values with the current key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { allKeys, createKeyring, type DerivedKeys, type Keyring } from './keyring.js';

export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /** True when a stored value was not sealed with the current key (a rotation re-seals it). */
  isStale(sealed: string): boolean;
  /** The kid new values carry. */
  readonly kid: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

function encrypt(key: Buffer, plaintext: string, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function decrypt(key: Buffer, raw: Buffer, context: string): string {
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('secret value is too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/** A value that does not open: wrong key, wrong context, unknown format or damaged. Names no value. */
export class SecretBoxError extends Error {}

const V2 = /^v2:([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]*)$/;

/** Opens a stored value with whichever key of the ring sealed it. */
function openWith(ring: Keyring, byKid: Map<string, DerivedKeys>, sealed: string, context: string): string {
  const v2 = V2.exec(sealed);
  if (v2) {
    const key = byKid.get(v2[1]!);
    if (!key) {
      throw new SecretBoxError(`cannot open a secret value: it was sealed with key ${v2[1]}, which is neither SVC_SECRET_KEY nor in SVC_SECRET_KEY_PREVIOUS`);
    }
    return decrypt(key.encryption, Buffer.from(v2[2]!, 'base64url'), context);
  }
  if (sealed.startsWith('v1:')) {
    // v1 names no key: each secret key is tried, current first.
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    for (const key of allKeys(ring)) {
      try {
        return decrypt(key.master, raw, context);
      } catch {
        // the next key
      }
    }
    throw new SecretBoxError('cannot open a secret value (v1): no key of SVC_SECRET_KEY and SVC_SECRET_KEY_PREVIOUS opens it');
  }
  throw new SecretBoxError('cannot open a secret value: unknown format');
}

/**
 * A box over a keyring (settings.keys). A bare 32-byte key is a keyring of that key alone.
 * Errors (SecretBoxError) name no value and no key material.
 */
export function createSecretBox(keys: Keyring | Buffer): SecretBox {
  const ring = Buffer.isBuffer(keys) ? createKeyring(keys) : keys;
  const byKid = new Map(allKeys(ring).map((k) => [k.kid, k]));
  const current = ring.current;
  return {
    kid: current.kid,
    seal(plaintext, context) {
      return `v2:${current.kid}:${encrypt(current.encryption, plaintext, context).toString('base64url')}`;
    },
    open(sealed, context) {
      try {
        return openWith(ring, byKid, sealed, context);
      } catch (err) {
        if (err instanceof SecretBoxError) throw err;
        throw new SecretBoxError('cannot open a secret value: wrong key or context, or a damaged value');
      }
    },
    isStale(sealed) {
      return !sealed.startsWith(`v2:${current.kid}:`);
    },
  };
}

/** The wire form of a secret field: a string replaces it, null removes it, {configured: true} or absent keeps it. */
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
