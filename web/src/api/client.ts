/**
 * The one client of the UI: the SDK's typed client over the browser's fetch, with the session
 * cookie and the CSRF rule applied once here (the value of the svc_csrf cookie in X-CSRF-Token on
 * every request that changes something). No API key lives in the browser.
 */
import { createClient, HeraldError, type HeraldClient } from '@herald/sdk';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export function csrfToken(): string | undefined {
  const pair = document.cookie.split('; ').find((c) => c.startsWith('svc_csrf='));
  return pair === undefined ? undefined : decodeURIComponent(pair.slice('svc_csrf='.length));
}

function browserFetch(request: Request): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.delete('user-agent');
  const token = csrfToken();
  if (!SAFE.has(request.method) && token) headers.set('X-CSRF-Token', token);
  return fetch(new Request(request, { headers, credentials: 'same-origin' }));
}

/**
 * With the SDK's conditional GETs: each JSON answer is kept with its ETag (up to 100, the least
 * recently used going first), and asking again (a page's refetch after a live event, on focus,
 * on coming back to a page) sends it in If-None-Match; what did not change comes back 304 with no
 * body (for the reports, connections, queries, channels, users and runs, without the server
 * reading it) and is answered from what was kept. A tag names its caller, so another user signed
 * in on the same tab never gets a 304 for the one before.
 */
export const api: HeraldClient = createClient({
  baseUrl: window.location.origin,
  fetch: browserFetch,
  retry: { retries: 2, baseDelayMs: 300, maxDelayMs: 5_000 },
  etags: { max: 100 },
});

export { HeraldError };

/** The problem's code when `error` is one of the API's problem documents. */
export const problemCode = (error: unknown): string | undefined => (error instanceof HeraldError ? error.code : undefined);
export const isUnauthenticated = (error: unknown): boolean => error instanceof HeraldError && error.status === 401;
