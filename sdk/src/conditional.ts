/**
 * Conditional GETs (ClientOptions.etags): a JSON answer that carries an ETag (every JSON read of
 * Herald's: each list and single resource) is kept in memory, and asking the same address again sends its tag in
 * If-None-Match. A 304 is then answered from what was kept, as the 200 it stands for, so `call`,
 * `paginate` and `raw` see the same body without Herald sending it again. Answers are kept per
 * address and credential; past `max`, the least recently used goes first. A request that sets
 * If-None-Match itself, or a Range, passes through untouched (it asks for something else).
 */
import type { FetchLike } from './retry.js';

export interface EtagOptions {
  /** How many answers to keep (default 200). */
  max?: number;
}

interface Kept {
  etag: string;
  body: ArrayBuffer;
  headers: Headers;
}

/** Headers that describe the bytes on the wire, not the body kept (already decoded). */
const WIRE_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding'];

export function conditionalFetch(inner: FetchLike, options: EtagOptions = {}): FetchLike {
  const max = Math.max(1, options.max ?? 200);
  const kept = new Map<string, Kept>();
  const keep = (key: string, entry: Kept) => {
    kept.delete(key);
    kept.set(key, entry); // the most recently used last
    while (kept.size > max) kept.delete(kept.keys().next().value as string);
  };
  const answerFrom = (entry: Kept, etag: string | null) => {
    const headers = new Headers(entry.headers);
    if (etag) headers.set('etag', etag);
    return new Response(entry.body.slice(0), { status: 200, headers });
  };

  return async (request) => {
    if (request.method !== 'GET' || request.headers.has('if-none-match') || request.headers.has('range')) return inner(request);
    const key = `${request.headers.get('authorization') ?? ''}\u0000${request.url}`;
    const entry = kept.get(key);
    let sent = request;
    if (entry) {
      const headers = new Headers(request.headers);
      headers.set('If-None-Match', entry.etag);
      sent = new Request(request, { headers });
    }
    const response = await inner(sent);
    if (entry && response.status === 304) {
      keep(key, entry);
      return answerFrom(entry, response.headers.get('etag'));
    }
    const etag = response.headers.get('etag');
    if (response.status !== 200 || !etag || !(response.headers.get('content-type') ?? '').includes('json')) {
      if (response.status === 200 || response.status === 404 || response.status === 410) kept.delete(key);
      return response;
    }
    const body = await response.arrayBuffer();
    const headers = new Headers(response.headers);
    for (const name of WIRE_HEADERS) headers.delete(name);
    const fresh: Kept = { etag, body, headers };
    keep(key, fresh);
    return answerFrom(fresh, null);
  };
}
