import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { applySecretInput, createSecretBox, SecretBoxError, secretView } from '../../src/infra/crypto/secret-box.js';
import { createKeyring } from '../../src/infra/crypto/keyring.js';

const box = createSecretBox(randomBytes(32));
const CONTEXT = 'connections.password:0193a1b2-0000-7000-8000-000000000001';

describe('createSecretBox', () => {
  it('opens what it sealed, without keeping the plaintext visible', () => {
    const sealed = box.seal('pä$$wörd with unicode ✓', CONTEXT);
    expect(sealed).toMatch(new RegExp(`^v2:${box.kid}:[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain('pä$$wörd');
    expect(box.open(sealed, CONTEXT)).toBe('pä$$wörd with unicode ✓');
    expect(box.open(box.seal('', CONTEXT), CONTEXT)).toBe('');
  });

  it('seals the same value differently each time', () => {
    const a = box.seal('same value', CONTEXT);
    const b = box.seal('same value', CONTEXT);
    expect(a).not.toBe(b);
    expect(box.open(a, CONTEXT)).toBe(box.open(b, CONTEXT));
  });

  it('refuses to open a value under another context', () => {
    const sealed = box.seal('bound to its row', CONTEXT);
    expect(() => box.open(sealed, 'connections.password:0193a1b2-0000-7000-8000-000000000002')).toThrow();
  });

  it('refuses a tampered ciphertext, tag or iv', () => {
    const sealed = box.seal('do not touch', CONTEXT);
    const head = `v2:${box.kid}:`;
    const raw = Buffer.from(sealed.slice(head.length), 'base64url');
    for (const index of [0, 12, raw.length - 1]) { // iv, tag, ciphertext
      const tampered = Buffer.from(raw);
      tampered[index] = tampered[index]! ^ 0x01;
      expect(() => box.open(`${head}${tampered.toString('base64url')}`, CONTEXT)).toThrow(SecretBoxError);
    }
    expect(() => box.open(sealed.replace(/^v2:/, 'v3:'), CONTEXT)).toThrow(SecretBoxError);
    expect(() => box.open(`${head}AAAA`, CONTEXT)).toThrow(SecretBoxError);
  });

  it('refuses to open with another key', () => {
    const sealed = box.seal('for one key only', CONTEXT);
    expect(() => createSecretBox(randomBytes(32)).open(sealed, CONTEXT)).toThrow();
  });

  it('needs a 32-byte key', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow();
  });
});

/** A value as the first secret box sealed it: "v1:" + base64url(iv ‖ tag ‖ ciphertext) under the raw key. */
function sealV1(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

describe('the keyring behind the box', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const oldBox = createSecretBox(createKeyring(oldKey));
  const rotated = createSecretBox(createKeyring(newKey, [oldKey]));
  const newOnly = createSecretBox(createKeyring(newKey));

  it('encrypts under a key derived with HKDF-SHA-256, not the secret key itself', () => {
    const ring = createKeyring(newKey);
    const expected = Buffer.from(hkdfSync('sha256', newKey, Buffer.from('herald-keyring'), 'herald/v2/secret-box/aes-256-gcm', 32));
    expect(ring.current.encryption.equals(expected)).toBe(true);
    expect(ring.current.encryption.equals(newKey)).toBe(false);
    expect(ring.current.hmac.equals(ring.current.encryption)).toBe(false);
    // A value sealed now is not a v1 value under the raw key.
    const sealed = newOnly.seal('x', CONTEXT);
    expect(() => createSecretBox(createKeyring(randomBytes(32), [newKey])).open(`v1:${sealed.split(':')[2]}`, CONTEXT)).toThrow();
  });

  it('names each key by a stable kid, written into every value (stored values depend on it never changing)', () => {
    const ring = createKeyring(Buffer.alloc(32, 7));
    expect(ring.current.kid).toBe('B5CKNCQxIqq_');
    expect(ring.current.encryption.toString('hex')).toBe('3c1f6e23034ee302b8dceb1e4bd2fa447f32988fe2c532854887d12aea23bedf');
    expect(ring.current.hmac.toString('hex')).toBe('84c81c70cbf1a4e2530061ce6f498fc7d7f66ec2d5d5ed3de0a263f8857a4e81');
    expect(createSecretBox(Buffer.alloc(32, 7)).seal('x', CONTEXT).startsWith('v2:B5CKNCQxIqq_:')).toBe(true);
  });

  it('opens values of a previous key and seals new ones with the current key', () => {
    const old = oldBox.seal('from before the rotation', CONTEXT);
    expect(rotated.open(old, CONTEXT)).toBe('from before the rotation');
    expect(rotated.isStale(old)).toBe(true);
    const fresh = rotated.seal('after', CONTEXT);
    expect(fresh.startsWith(`v2:${newOnly.kid}:`)).toBe(true);
    expect(rotated.isStale(fresh)).toBe(false);
    expect(newOnly.open(fresh, CONTEXT)).toBe('after');
  });

  it('refuses a value whose key is no longer in the ring, naming the kid and the setting', () => {
    const old = oldBox.seal('orphan', CONTEXT);
    expect(() => newOnly.open(old, CONTEXT)).toThrow(new RegExp(`key ${oldBox.kid}.*SVC_SECRET_KEY_PREVIOUS`));
  });

  it('opens v1 values (sealed with the raw secret key), current or previous, and counts them stale', () => {
    const v1Old = sealV1(oldKey, 'legacy old', CONTEXT);
    const v1New = sealV1(newKey, 'legacy new', CONTEXT);
    expect(rotated.open(v1Old, CONTEXT)).toBe('legacy old');
    expect(rotated.open(v1New, CONTEXT)).toBe('legacy new');
    expect(rotated.isStale(v1New)).toBe(true);
    expect(() => newOnly.open(v1Old, CONTEXT)).toThrow(SecretBoxError);
    expect(() => rotated.open(v1Old, 'another:context')).toThrow(SecretBoxError);
  });
});

describe('applySecretInput', () => {
  const stored = box.seal('old secret', CONTEXT);

  it('keeps the stored value for undefined and {configured: true}', () => {
    expect(applySecretInput(box, stored, undefined, CONTEXT)).toBe(stored);
    expect(applySecretInput(box, stored, { configured: true }, CONTEXT)).toBe(stored);
    expect(applySecretInput(box, null, undefined, CONTEXT)).toBeNull();
  });

  it('removes the stored value for null', () => {
    expect(applySecretInput(box, stored, null, CONTEXT)).toBeNull();
  });

  it('replaces the stored value for a string, sealed under the context', () => {
    const next = applySecretInput(box, stored, 'new secret', CONTEXT);
    expect(next).not.toBeNull();
    expect(next).not.toBe(stored);
    expect(next).not.toContain('new secret');
    expect(box.open(next!, CONTEXT)).toBe('new secret');
    expect(() => box.open(next!, 'another:context')).toThrow();
  });
});

describe('secretView', () => {
  it('shows {configured: true} for a stored value and nothing otherwise', () => {
    expect(secretView(box.seal('x', CONTEXT))).toEqual({ configured: true });
    expect(secretView(null)).toBeUndefined();
    expect(secretView(undefined)).toBeUndefined();
    expect(secretView('')).toBeUndefined();
  });
});
