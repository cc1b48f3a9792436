/**
 * The web UI's settings helpers (web/src/features/settings/utils): the secret convention in a form
 * (what a draft sends), sizes as people read them, and the role mapping's rows.
 */
import { isConfigured, secretToSend } from '../../web/src/features/settings/utils/secret.js';
import { formatBytes, mappingObject, mappingRows, textOrNull } from '../../web/src/features/settings/utils/format.js';

describe('secretToSend', () => {
  it('leaves the field out (keeps the stored value) when nothing was typed', () => {
    expect(secretToSend(true, undefined)).toBeUndefined();
    expect(secretToSend(false, undefined)).toBeUndefined();
    expect(secretToSend(true, '')).toBeUndefined();
    expect(secretToSend(true, '   ')).toBeUndefined();
  });

  it('sends a typed value as it is, to replace or set it', () => {
    expect(secretToSend(true, 'new secret')).toBe('new secret');
    expect(secretToSend(false, ' spaced ')).toBe(' spaced ');
  });

  it('sends null only to remove a stored value', () => {
    expect(secretToSend(true, null)).toBeNull();
    expect(secretToSend(false, null)).toBeUndefined();
  });
});

describe('isConfigured', () => {
  it('is true only for {configured: true}', () => {
    expect(isConfigured({ configured: true })).toBe(true);
    expect(isConfigured(null)).toBe(false);
    expect(isConfigured(undefined)).toBe(false);
    expect(isConfigured('secret')).toBe(false);
    expect(isConfigured({ configured: 'yes' })).toBe(false);
  });
});

describe('formatBytes', () => {
  it('uses the largest unit below 1,024 of it, with one decimal under ten', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1,023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(10 * 1024 * 1024 + 1)).toBe('10 MB');
    expect(formatBytes(4.25 * 1024 ** 3)).toBe('4.3 GB');
    expect(formatBytes(3 * 1024 ** 5)).toBe('3,072 TB');
  });

  it('writes numbers in the user\'s language', () => {
    expect(formatBytes(1536, 'de')).toBe('1,5 KB');
  });
});

describe('role mapping rows', () => {
  it('turns the API\'s object into rows and back, dropping empty claim values and trimming', () => {
    const rows = mappingRows({ 'herald-admins': 'admin', staff: 'viewer' });
    expect(rows).toEqual([{ value: 'herald-admins', role: 'admin' }, { value: 'staff', role: 'viewer' }]);
    expect(mappingObject([...rows, { value: '  ', role: 'editor' }, { value: ' devs ', role: 'editor' }]))
      .toEqual({ 'herald-admins': 'admin', staff: 'viewer', devs: 'editor' });
  });

  it('lets a later row for the same value win', () => {
    expect(mappingObject([{ value: 'x', role: 'viewer' }, { value: 'x', role: 'admin' }])).toEqual({ x: 'admin' });
  });
});

describe('textOrNull', () => {
  it('is null for empty text, else the trimmed text', () => {
    expect(textOrNull('')).toBeNull();
    expect(textOrNull('  ')).toBeNull();
    expect(textOrNull(' https://id.example.com ')).toBe('https://id.example.com');
  });
});
