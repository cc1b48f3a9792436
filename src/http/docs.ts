/**
 * The API description for people and machines: the document as YAML and JSON, Swagger UI at /docs
 * (assets from swagger-ui-dist, nothing from a CDN), and one page per error code.
 */
import express, { type Router } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { descriptionForCode, isProblemCode, statusForCode, titleForCode } from '../handlers/error-status.js';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js'));

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

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

export function docsRouter(spec: { yaml: string; json: string }, knownCodes: () => string[]): Router {
  const router = express.Router();
  router.get('/api/v1/openapi.yaml', (_req, res) => { res.type('application/yaml').send(spec.yaml); });
  router.get('/api/v1/openapi.json', (_req, res) => { res.type('application/json').send(spec.json); });
  router.get(['/docs', '/docs/'], (_req, res) => { res.type('html').send(INDEX); });
  router.get('/docs/init.js', (_req, res) => { res.type('application/javascript').send(INIT); });
  router.use('/docs/assets', (_req, res, next) => { res.locals.route = '/docs/assets'; next(); },
    express.static(swaggerUiDir, { index: false, maxAge: '1h' }));
  router.get('/docs/errors', (_req, res) => {
    const rows = knownCodes().sort().map((code) => `<li><a href="/docs/errors/${escapeHtml(code)}"><code>${escapeHtml(code)}</code></a> — ${escapeHtml(titleForCode(code))}</li>`);
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Herald error codes</title></head><body><h1>Herald error codes</h1><ul>${rows.join('')}</ul></body></html>`);
  });
  router.get('/docs/errors/:code', (req, res, next) => {
    const code = req.params.code;
    if (!knownCodes().includes(code)) { next(); return; }
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(code)}</title></head><body>
<h1><code>${escapeHtml(code)}</code></h1>
<p>${isProblemCode(code) ? `HTTP status ${statusForCode(code)}` : 'A per-field code, inside a problem&#39;s <code>errors[]</code>'}. ${escapeHtml(titleForCode(code))}.</p>
${descriptionForCode(code) ? `<p>${escapeHtml(descriptionForCode(code)!)}</p>` : ''}
<p>Match on the problem document's <code>code</code> field, never on its title. Per-field problems are listed in <code>errors[]</code>; quote <code>request_id</code> when you report an issue.</p>
<p><a href="/docs/errors">All error codes</a> · <a href="/docs">API reference</a></p>
</body></html>`);
  });
  return router;
}
