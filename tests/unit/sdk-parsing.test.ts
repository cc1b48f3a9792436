/**
 * The SDK's parsers: server-sent event frames (line endings, comments, retry, split chunks),
 * Content-Disposition file names (RFC 6266, filename* per RFC 8187), Retry-After (seconds or an
 * HTTP date), and the backoff's bounds.
 */
import { SseParser } from '../../sdk/src/events.js';
import { filenameOf } from '../../sdk/src/download.js';
import { retryAfterSeconds } from '../../sdk/src/errors.js';
import { backoffMs, isRepeatable, waitMs } from '../../sdk/src/retry.js';

describe('SseParser', () => {
  it('gives one frame per blank line, with event, id and data, skipping comments', () => {
    const p = new SseParser();
    expect(p.push('retry: 3000\n: keep-alive\n\nevent: run.updated\nid: 7\ndata: {"a":1}\n\n')).toEqual([
      { event: 'run.updated', id: '7', data: '{"a":1}' },
    ]);
    expect(p.retryMs).toBe(3000);
  });

  it('joins a frame split across chunks, and CRLF or CR line endings', () => {
    const p = new SseParser();
    expect(p.push('event: shutdown\r\nda')).toEqual([]);
    expect(p.push('ta: {}\r')).toEqual([]);
    expect(p.push('\n\r\nid: 9\rdata: x\rdata: y\r\r')).toEqual([
      { event: 'shutdown', id: undefined, data: '{}' },
      { event: 'message', id: '9', data: 'x\ny' },
    ]);
    // A \r\n split between chunks is one line break, not two.
    expect(p.push('data: z\r')).toEqual([]);
    expect(p.push('\n\n')).toEqual([{ event: 'message', id: undefined, data: 'z' }]);
  });
});

describe('filenameOf', () => {
  it('prefers filename* (UTF-8, percent-encoded) to the ASCII filename', () => {
    expect(filenameOf(`attachment; filename="gruesse-2026.csv"; filename*=UTF-8''Gr%C3%BC%C3%9Fe-2026.csv`)).toBe('Grüße-2026.csv');
  });
  it('reads quoted and bare names', () => {
    expect(filenameOf('attachment; filename="daily \\"sales\\".csv"')).toBe('daily "sales".csv');
    expect(filenameOf('attachment; filename=daily.xlsx')).toBe('daily.xlsx');
    expect(filenameOf('attachment')).toBeUndefined();
    expect(filenameOf(null)).toBeUndefined();
  });
});

describe('retryAfterSeconds', () => {
  const now = Date.parse('2026-11-22T08:00:00Z');
  it('reads delay-seconds and HTTP dates', () => {
    expect(retryAfterSeconds('5', now)).toBe(5);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 08:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 07:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});

describe('backoff', () => {
  it('stays within [0, min(max, base·2^attempt)]', () => {
    expect(backoffMs(3, 100, 10_000, () => 0.999999)).toBeLessThanOrEqual(800);
    expect(backoffMs(10, 100, 1000, () => 1)).toBe(1000);
    expect(backoffMs(2, 100, 1000, () => 0)).toBe(0);
  });
  it('waits at least Retry-After', () => {
    expect(waitMs(0, 2, { retries: 3, baseDelayMs: 50, maxDelayMs: 5000 })).toBeGreaterThanOrEqual(2000);
  });
  it('repeats only GET, HEAD and requests with an Idempotency-Key', () => {
    expect(isRepeatable(new Request('http://x/', { method: 'GET' }))).toBe(true);
    expect(isRepeatable(new Request('http://x/', { method: 'POST' }))).toBe(false);
    expect(isRepeatable(new Request('http://x/', { method: 'POST', headers: { 'Idempotency-Key': 'k' } }))).toBe(true);
  });
});
