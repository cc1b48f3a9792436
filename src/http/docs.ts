/**
 * The API description for people and machines: the document as YAML and JSON, Swagger UI at /docs
 * (assets from swagger-ui-dist, nothing from a CDN), and one page per error code.
 */
import express, { type Router } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { dump as dumpYaml } from 'js-yaml';
import type { Document } from 'openapi-backend';
import {
  actionForCode, descriptionForCode, isProblemCode, statusForCode, titleForCode,
} from '../handlers/error-status.js';
import { usePagePolicy } from './security-headers.js';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js'));

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The first line of the description of an operation that answers 501. */
export const NOT_BUILT_NOTE = 'Not built yet: answers 501 not_implemented.';
/** What the summary of an operation that answers 501 starts with: Swagger UI's collapsed list shows it. */
export const NOT_BUILT_SUMMARY_PREFIX = '[not implemented] ';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/**
 * The document as this instance serves it: its own address as the server, and every operation it
 * does not build yet (NOT_IMPLEMENTED in its handler map) marked `x-not-implemented: true`, its
 * summary prefixed with "[not implemented] " (what Swagger UI shows in the collapsed list) and a
 * first line in its description, so Swagger UI and SDK generators show what answers 501.
 * openapi.yaml itself stays unmarked.
 */
export function servedDocument(document: Document, publicUrl: string, notImplemented: ReadonlySet<string>): { readonly yaml: string; readonly json: string } {
  // A JSON copy (not structuredClone): plain objects of this realm, which the YAML dumper accepts.
  const served = JSON.parse(JSON.stringify(document)) as Document;
  served.servers = [{ url: publicUrl, description: 'this instance' }];
  for (const item of Object.values(served.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method] as (Record<string, unknown> & { operationId?: string; summary?: string; description?: string }) | undefined;
      if (!op?.operationId || !notImplemented.has(op.operationId)) continue;
      op['x-not-implemented'] = true;
      op.summary = `${NOT_BUILT_SUMMARY_PREFIX}${op.summary ?? op.operationId}`;
      op.description = op.description ? `${NOT_BUILT_NOTE}\n\n${op.description}` : NOT_BUILT_NOTE;
    }
  }
  // The YAML is written when first asked for: dumping the whole document took ~130 ms of every
  // API process's start-up (and of every test file that starts one), for an address few fetch.
  let yaml: string | undefined;
  return {
    get yaml() { yaml ??= dumpYaml(served, { lineWidth: -1, noRefs: true }); return yaml; },
    json: JSON.stringify(served),
  };
}

const INDEX = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Herald API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// Session requests that change something need X-CSRF-Token; Swagger UI copies it from the cookie.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  withCredentials: true,
  validatorUrl: null, // no badge: it would send the document's address to validator.swagger.io
  requestInterceptor: function (req) {
    var m = document.cookie.match(/(?:^|; )svc_csrf=([^;]*)/);
    if (m) req.headers['X-CSRF-Token'] = decodeURIComponent(m[1]);
    return req;
  }
});
`;

const PAGE_FOOT = `<p>Match on the problem document's <code>code</code> field, never on its title. Per-field problems are listed in <code>errors[]</code>; quote <code>request_id</code> when you report an issue.</p>
<p><a href="/docs/errors">All error codes</a> · <a href="/docs">API reference</a></p>`;

function errorPage(code: string): string {
  const title = escapeHtml(titleForCode(code));
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(code)}</title></head><body>
<h1><code>${escapeHtml(code)}</code></h1>`;
  if (!isProblemCode(code)) {
    return `${head}
<p>A per-field code, inside a problem&#39;s <code>errors[]</code> (with status 422 <a href="/docs/errors/validation.failed"><code>validation.failed</code></a>). ${title}.</p>
<p>Each entry names the field (a dotted path such as <code>schedule.timezone</code>) and carries a readable <code>message</code>; fix that field and send the request again.</p>
${PAGE_FOOT}
</body></html>`;
  }
  return `${head}
<p>HTTP status ${statusForCode(code)}. ${title}.</p>
<h2>What causes it</h2>
<p>${escapeHtml(descriptionForCode(code) ?? '')}</p>
<h2>What to do</h2>
<p>${escapeHtml(actionForCode(code) ?? '')}</p>
${PAGE_FOOT}
</body></html>`;
}

/** Where the description is served: the only paths under /api/v1/ that are not operations. */
export const DESCRIPTION_PATHS = { yaml: '/api/v1/openapi.yaml', json: '/api/v1/openapi.json' } as const;

/** Whether a path is one of them as Express's router matches it (any case, a trailing slash). */
export const isDescriptionPath = (path: string): boolean => {
  const p = path.toLowerCase().replace(/\/$/, '');
  return p === DESCRIPTION_PATHS.yaml || p === DESCRIPTION_PATHS.json;
};

export function docsRouter(spec: { readonly yaml: string; readonly json: string }, knownCodes: () => string[], pagePolicy: string): Router {
  const router = express.Router();
  router.get(DESCRIPTION_PATHS.yaml, (_req, res) => { res.type('application/yaml').send(spec.yaml); });
  router.get(DESCRIPTION_PATHS.json, (_req, res) => { res.type('application/json').send(spec.json); });
  router.get(['/docs', '/docs/'], (_req, res) => { usePagePolicy(res, pagePolicy); res.type('html').send(INDEX); });
  router.get('/docs/init.js', (_req, res) => { res.type('application/javascript').send(INIT); });
  router.use('/docs/assets', (_req, res, next) => { res.locals.route = '/docs/assets'; next(); },
    express.static(swaggerUiDir, { index: false, maxAge: '1h' }));
  router.get('/docs/errors', (_req, res) => {
    const rows = knownCodes().sort().map((code) => `<li><a href="/docs/errors/${escapeHtml(code)}"><code>${escapeHtml(code)}</code></a> — ${escapeHtml(titleForCode(code))}</li>`);
    // Error pages load nothing: the API's policy (default-src 'none') fits them.
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Herald error codes</title></head><body><h1>Herald error codes</h1><ul>${rows.join('')}</ul></body></html>`);
  });
  router.get('/docs/errors/:code', (req, res, next) => {
    const code = req.params.code;
    if (!knownCodes().includes(code)) { next(); return; }
    res.type('html').send(errorPage(code));
  });
  return router;
}
