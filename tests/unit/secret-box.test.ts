import { randomBytes } from 'node:crypto';
import { applySecretInput, createSecretBox, secretView } from '../../src/infra/crypto/secret-box.js';

const box = createSecretBox(randomBytes(32));
const CONTEXT = 'connections.password:0193a1b2-0000-7000-8000-000000000001';

describe('createSecretBox', () => {
  it('opens what it sealed, without keeping the plaintext visible', () => {
    const sealed = box.seal('pä$$wörd with unicode ✓', CONTEXT);
    expect(sealed.startsWith('v1:')).toBe(true);
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
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    for (const index of [0, 12, raw.length - 1]) { // iv, tag, ciphertext
      const tampered = Buffer.from(raw);
      tampered[index] = tampered[index]! ^ 0x01;
      expect(() => box.open(`v1:${tampered.toString('base64url')}`, CONTEXT)).toThrow();
    }
    expect(() => box.open(sealed.replace(/^v1:/, 'v2:'), CONTEXT)).toThrow();
  });

  it('refuses to open with another key', () => {
    const sealed = box.seal('for one key only', CONTEXT);
    expect(() => createSecretBox(randomBytes(32)).open(sealed, CONTEXT)).toThrow();
  });

  it('needs a 32-byte key', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow();
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
