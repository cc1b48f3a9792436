import { decodeCursor, encodeCursor, toPage } from '../../src/core/cursor.js';
import { DomainError } from '../../src/core/errors.js';

describe('cursor pagination', () => {
  it('round-trips a sort key', () => {
    const key = ['2026-11-22T08:00:00.000Z', '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70'];
    expect(decodeCursor(encodeCursor(key), 2)).toEqual(key);
  });

  it.each(['%%%', encodeCursor(['a']), Buffer.from('{"a":1}').toString('base64url'), Buffer.from('[{}, 1]').toString('base64url')])(
    'rejects the malformed cursor %s as a 422 on field cursor', (bad) => {
      let caught: unknown;
      try { decodeCursor(bad, 2); } catch (err) { caught = err; }
      expect(caught).toBeInstanceOf(DomainError);
      expect((caught as DomainError).code).toBe('validation.failed');
      expect((caught as DomainError).extras.errors).toEqual([expect.objectContaining({ field: 'cursor' })]);
    },
  );

  it('gives a next cursor only when there is a further row', () => {
    const rows = [1, 2, 3].map((n) => ({ n }));
    const full = toPage(rows, 2, (r) => [r.n], (r) => r.n);
    expect(full.items).toEqual([1, 2]);
    expect(decodeCursor(full.next_cursor!, 1)).toEqual([2]);
    const last = toPage(rows.slice(0, 2), 2, (r) => [r.n], (r) => r.n);
    expect(last).toEqual({ items: [1, 2] });
  });
});
