/**
 * Security headers on every answer (API, problem documents, the document, Swagger UI, pages, the
 * probe listener), from helmet: no MIME sniffing, no framing, no referrer, HSTS only behind https.
 * API answers get a Content-Security-Policy that allows nothing; the HTML pages get one that
 * allows their own scripts and styles only (pagePolicy).
 */
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/** JSON, problem documents, metrics: nothing in them may run, load or be framed. */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Swagger UI (served from swagger-ui-dist) and the reset-password page: scripts and styles only
 * from this origin, never inline (their start-up code is served as files: /docs/init.js,
 * /reset-password.js; Swagger UI sets styles through the DOM, which style-src does not govern).
 * Checked in headless Chromium: operations, "Try it out", models and Authorize raise no
 * violation. Images and fonts allow data: for the icons inside swagger-ui.css. Requests
 * ("Try it out") go to this origin and to SVC_PUBLIC_URL, the document's server.
 */
export function pagePolicy(publicUrl: string): string {
  const origin = new URL(publicUrl).origin;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${origin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(publicUrl.startsWith('https:') ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

/** Marks an HTML answer (and what it loads) with the page policy instead of the API's. */
export const usePagePolicy = (res: Response, policy: string): void => { res.setHeader('Content-Security-Policy', policy); };

/**
 * The headers every API answer carries (helmet's, with the API's policy). helmet's headers depend
 * on its options only: taken once from it, then set as they are on every answer (one loop
 * instead of ten chained middleware calls per request).
 */
export function apiSecurityHeaders(publicUrl: string): ReadonlyArray<readonly [string, string]> {
  const https = publicUrl.startsWith('https:');
  const base = helmet({
    contentSecurityPolicy: false, // set below: one policy for the API, another for pages
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // Only where the public address is https: over plain http the header would be ignored or,
    // behind a TLS-terminating proxy reached by another name, pin the wrong host.
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    xPoweredBy: false,
  });
  const headers: Array<[string, string]> = [['Content-Security-Policy', API_POLICY]];
  let synchronous = false;
  base({ headers: {} } as Request, {
    setHeader: (name: string, value: string | number) => { headers.push([name, String(value)]); },
    removeHeader: () => undefined,
  } as unknown as Response, () => { synchronous = true; });
  if (!synchronous) throw new Error('helmet did not set its headers at once');
  return headers;
}

/** Sets `headers` (apiSecurityHeaders) on every answer. */
export function securityHeaders(headers: ReadonlyArray<readonly [string, string]>): RequestHandler {
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}
