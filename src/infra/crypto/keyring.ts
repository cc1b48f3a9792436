/**
 * The keys made from SVC_SECRET_KEY. The secret key itself is never used directly: HKDF-SHA-256
 * derives one key per purpose (distinct info labels), so a key that leaks through one use
 * reveals nothing of the others.
 *   - encryption: AES-256-GCM of secret fields at rest (secret-box.ts);
 *   - hmac: tokens made from a secret (CSRF tokens, device tokens, password-reset tokens).
 * Each secret key has a key id (kid): a short hash of its encryption key, written into every
 * ciphertext, so a value names the key that opens it. The keyring holds the current key and
 * the previous ones (SVC_SECRET_KEY_PREVIOUS): new values use the current key; values made
 * with a previous key still open (and tokens still verify) until they are rotated.
 */
import { createHash, hkdfSync } from 'node:crypto';

const ENCRYPTION_INFO = 'herald/v2/secret-box/aes-256-gcm';
const HMAC_INFO = 'herald/v2/hmac/sha-256';
/** A fixed, public salt: the secret key is already uniformly random. */
const SALT = Buffer.from('herald-keyring', 'utf8');

export interface DerivedKeys {
  /** Short public name of this secret key: base64url of the first 9 bytes of SHA-256(encryption key). */
  kid: string;
  /** The secret key as configured; opens values sealed before derived keys existed ("v1:"). */
  master: Buffer;
  encryption: Buffer;
  hmac: Buffer;
}

export interface Keyring {
  current: DerivedKeys;
  /** Older secret keys, newest first: they open old values and verify old tokens, never make new ones. */
  previous: DerivedKeys[];
  /** The current HMAC key (what the domain receives as `secretKey`). */
  hmac: Buffer;
  /** Every HMAC key, current first, for verifying a token made before a rotation. */
  hmacKeys: Buffer[];
}

function derive(master: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, SALT, info, 32));
}

export function deriveKeys(master: Buffer): DerivedKeys {
  if (master.length !== 32) throw new Error('a secret key must be 32 bytes');
  const encryption = derive(master, ENCRYPTION_INFO);
  const kid = createHash('sha256').update('herald-kid:').update(encryption).digest().subarray(0, 9).toString('base64url');
  return { kid, master, encryption, hmac: derive(master, HMAC_INFO) };
}

export function createKeyring(current: Buffer, previous: Buffer[] = []): Keyring {
  const now = deriveKeys(current);
  const seen = new Set([now.kid]);
  const older = previous.map(deriveKeys).filter((k) => !seen.has(k.kid) && seen.add(k.kid));
  return { current: now, previous: older, hmac: now.hmac, hmacKeys: [now.hmac, ...older.map((k) => k.hmac)] };
}

/** Every key of the ring, current first. */
export function allKeys(ring: Keyring): DerivedKeys[] {
  return [ring.current, ...ring.previous];
}
