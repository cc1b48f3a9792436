/**
 * The web UI (web/, built to static files by `make build`): its assets under /assets with a year's
 * caching (their names carry a content hash), and index.html for every other page address, so a
 * link to /runs/<id> opens the UI there. The API, its description, the probes, shared links and
 * the metrics keep their own addresses.
 *
 * index.html is answered with a fresh nonce in its Content-Security-Policy: the component library
 * writes its theme's variables into one <style> element, which carries the nonce (read from
 * <meta name="csp-nonce">). Scripts still come only from this origin; nothing inline runs.
 * index.html is read again when the file changes, so a rebuilt UI is served without a restart
 * (its new hashed assets exist only in the new index.html).
 */
import express, { type Router } from 'express';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { usePagePolicy } from './security-headers.js';

/** Addresses that are never a page of the UI (the password-reset page, linked from mail, stands alone). */
const NOT_PAGES = /^\/(api|health|metrics|docs|r|sdk|reset-password)(\/|$)/;
const NONCE = '__CSP_NONCE__';

/** The page policy with the nonce for index.html's one <style> element. */
export const uiPolicy = (pagePolicy: string, nonce: string) =>
  pagePolicy.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`);

export function webUiRouter(webDir: string, pagePolicy: string): Router {
  const router = express.Router();
  const indexPath = path.join(webDir, 'index.html');
  let index = { text: readFileSync(indexPath, 'utf8'), mtimeMs: statSync(indexPath).mtimeMs };
  const currentIndex = (): string => {
    try {
      const mtimeMs = statSync(indexPath).mtimeMs;
      if (mtimeMs !== index.mtimeMs) index = { text: readFileSync(indexPath, 'utf8'), mtimeMs };
    } catch {
      // Mid-rebuild the file may be missing for a moment: the last one read still answers.
    }
    return index.text;
  };
  // The API, the probes and the other addresses of their own never look at the UI's files (a
  // file-system stat per request otherwise: a tenth of a /health/live answer's cost).
  router.use((req, _res, next) => next(NOT_PAGES.test(req.path) ? 'router' : undefined));
  router.use('/assets', express.static(path.join(webDir, 'assets'), {
    immutable: true, maxAge: '365d', index: false,
    setHeaders: (res) => usePagePolicy(res, pagePolicy),
  }));
  // The top folder's files (favicon.svg): only names with an extension can be one.
  const topFiles = express.static(webDir, { index: false, maxAge: '1h', setHeaders: (res) => usePagePolicy(res, pagePolicy) });
  router.use((req, res, next) => (path.extname(req.path) !== '' ? topFiles(req, res, next) : next()));
  router.get(/.*/, (req, res, next) => {
    if (NOT_PAGES.test(req.path) || path.extname(req.path) !== '') { next(); return; }
    const nonce = randomBytes(16).toString('base64');
    usePagePolicy(res, uiPolicy(pagePolicy, nonce));
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(currentIndex().replaceAll(NONCE, nonce));
  });
  return router;
}
