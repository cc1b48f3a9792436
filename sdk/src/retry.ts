/**
 * A fetch that retries 429, 503 and connection errors, with jittered exponential backoff, waiting
 * at least Retry-After when the answer sends one. Only requests that are safe to repeat are
 * retried: GET and HEAD, and any request carrying an Idempotency-Key (sent unchanged each time).
 */
import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** The first backoff step (default 500 ms); doubled each attempt. */
  baseDelayMs?: number;
  /** The longest wait between attempts (default 30 s); a longer Retry-After is not retried. */
  maxDelayMs?: number;
}

export type FetchLike = (input: Request) => Promise<Response>;

const RETRIED_STATUSES = new Set([429, 503]);

export function isRepeatable(request: Request): boolean {
  return request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');
}

/** Full jitter on the exponential step: a random wait in [0, min(max, base·2^attempt)]. */
export function backoffMs(attempt: number, baseDelayMs: number, maxDelayMs: number, random = Math.random): number {
  return Math.round(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt));
}

/**
 * The wait before the next attempt: at least Retry-After (plus a little jitter, so that clients
 * told the same time do not return together), otherwise the jittered backoff.
 */
export function waitMs(attempt: number, retryAfter: number | undefined, o: Required<RetryOptions>): number {
  if (retryAfter !== undefined) return Math.ceil(retryAfter * 1000) + backoffMs(0, Math.min(o.baseDelayMs, 250), o.maxDelayMs);
  return backoffMs(attempt, o.baseDelayMs, o.maxDelayMs);
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason); return; }
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(timer); reject(signal?.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function isAbort(err: unknown): boolean {
  // By name: errors of fetch may come from another realm (instanceof would not see them).
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

export function retryingFetch(inner: FetchLike, options: RetryOptions | false | undefined): FetchLike {
  if (options === false) return inner;
  const o: Required<RetryOptions> = {
    retries: options?.retries ?? 3, baseDelayMs: options?.baseDelayMs ?? 500, maxDelayMs: options?.maxDelayMs ?? 30_000,
  };
  return async (request) => {
    if (!isRepeatable(request) || o.retries <= 0) return inner(request);
    for (let attempt = 0; ; attempt += 1) {
      // A Request's body can be read once: each attempt sends a copy.
      const last = attempt >= o.retries;
      let response: Response;
      try {
        response = await inner(last ? request : request.clone());
      } catch (err) {
        if (last || isAbort(err)) throw err;
        await sleep(waitMs(attempt, undefined, o), request.signal);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const after = retryAfterSeconds(response.headers.get('retry-after'));
      const wait = waitMs(attempt, after, o);
      if (after !== undefined && after * 1000 > o.maxDelayMs) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(wait, request.signal);
    }
  };
}
