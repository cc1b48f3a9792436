/**
 * Cross-origin requests, answered deliberately. Off by default: no Access-Control-* header at all,
 * so browsers keep other origins' scripts out. SVC_CORS_ORIGINS lists exact origins
 * (scheme://host[:port]) whose pages may call the API, with credentials (the session cookie, an
 * API key); every other origin gets nothing.
 *
 * OPTIONS is answered here for every path, whatever the setting: 204 with Allow where the path has
 * operations (and, for a listed origin's preflight, the Access-Control-Allow-* headers), 404
 * elsewhere.
 */
import type { RequestHandler } from 'express';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-None-Match, X-CSRF-Token, X-Request-ID';
/** Answer headers a listed origin's script may read (beyond the CORS-safelisted ones). */
const EXPOSED_HEADERS = 'X-Request-ID, Retry-After, Allow, Content-Disposition, WWW-Authenticate, ETag';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export interface CorsOptions {
  /** Exact origins allowed; empty: CORS off. */
  origins: readonly string[];
  /** The methods a path answers (for Allow and the preflight); empty when it has no operation. */
  methodsOf: (path: string) => string[];
  /** Answers 404 for an OPTIONS request to a path without operations. */
  notFound: RequestHandler;
}

export function cors(options: CorsOptions): RequestHandler {
  const allowed = new Set(options.origins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    const listed = typeof origin === 'string' && allowed.has(origin);
    if (allowed.size > 0) res.vary('Origin'); // answers differ by origin: caches must key on it
    if (listed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    if (req.method !== 'OPTIONS') { next(); return; }
    const methods = options.methodsOf(req.path);
    if (methods.length === 0) { options.notFound(req, res, next); return; }
    res.setHeader('Allow', [...methods, 'OPTIONS'].join(', '));
    if (listed && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', methods.join(', '));
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    res.status(204).end();
  };
}
