/**
 * The pages the API itself serves:
 * - the target of the emailed password-reset link. It reads the token from the URL fragment
 *   (never sent to servers or logs) and calls POST /api/v1/auth/password-reset/confirm;
 * - when no web UI is served (SVC_WEB_DIR unset and not built, or none), the addresses Herald's
 *   messages link to (`/`, `/runs/<id>`, `/reports/<id>`): static pages that say what Herald is and link to the JSON, the result
 *   file and Swagger UI. They read nothing from the store, so they show a visitor without
 *   credentials nothing of a run; the API behind the links asks for credentials as usual. They
 *   load and run nothing, so the API's policy (default-src 'none') fits them.
 */
import express, { type Router } from 'express';
import { isUuid } from '../core/ids.js';
import { usePagePolicy } from './security-headers.js';

const RESET_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Choose a new Herald password</title>
</head>
<body>
  <h1>Choose a new password</h1>
  <form id="reset">
    <label>New password (10 to 128 characters) <input id="password" type="password" minlength="10" maxlength="128" required autocomplete="new-password"></label>
    <button type="submit">Set password</button>
  </form>
  <p id="result" role="status"></p>
  <script src="/reset-password.js"></script>
</body>
</html>
`;

const RESET_SCRIPT = `document.getElementById('reset').addEventListener('submit', async function (event) {
  event.preventDefault();
  var token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
  var res = await fetch('/api/v1/auth/password-reset/confirm', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: token, password: document.getElementById('password').value })
  });
  var out = document.getElementById('result');
  if (res.status === 204) { out.textContent = 'Your password is changed. Sign in with it.'; return; }
  var problem = await res.json().catch(function () { return {}; });
  out.textContent = (problem.title || 'That did not work') + ((problem.errors || []).map(function (e) { return ' ' + e.field + ': ' + (e.message || e.code); }).join(''));
});
`;

const ABOUT = `<p>Herald runs named, read-only SQL queries on a schedule or on demand, checks a condition on
  the result, and delivers it by email, chat, webhook or storage bucket, with run history,
  result files and shared links. This instance serves no web UI (it was not built with
  <code>make build</code>, or SVC_WEB_DIR is none): everything below is an HTTP API call.</p>`;

const REFERENCE = `<li><a href="/docs">API reference</a> (Swagger UI): every operation, tried from the browser once signed in (<code>POST /api/v1/auth/login</code>)</li>`;

/** A page without scripts or styles; `body` is HTML made here from fixed text and checked ids. */
const staticPage = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>${title}</title>
</head>
<body>
${body}
</body>
</html>
`;

const HOME_PAGE = staticPage('Herald', `  <h1>Herald</h1>
  ${ABOUT}
  <ul>
    ${REFERENCE}
    <li>The API description: <a href="/api/v1/openapi.yaml">openapi.yaml</a> · <a href="/api/v1/openapi.json">openapi.json</a></li>
    <li><a href="/docs/errors">Error codes</a> of problem documents</li>
  </ul>
  <p>A new instance starts with its setup: <code>GET /api/v1/setup/status</code>, then <code>POST /api/v1/setup</code> creates the first admin (the README's "First run with curl").</p>`);

/** The page at a run's address (`{SVC_PUBLIC_URL}/runs/<id>`, the link in every message). */
function runPage(id: string): string {
  const api = `/api/v1/runs/${id}`;
  return staticPage('Herald run', `  <h1>Herald run <code>${id}</code></h1>
  ${ABOUT}
  <p>This address will show the run in the web UI. Until then, read it through the API, signed in
  (a session in this browser) or with an API key (<code>Authorization: Bearer hk_…</code>):</p>
  <ul>
    <li><a href="${api}">The run</a> as JSON: status, steps, deliveries, a sample of the result (<code>GET ${api}</code>)</li>
    <li>Its result file: <a href="${api}/result?format=csv">csv</a> · <a href="${api}/result?format=xlsx">xlsx</a> · <a href="${api}/result?format=json">json</a> (<code>GET ${api}/result</code>)</li>
    ${REFERENCE}
  </ul>
  <p>This page itself shows nothing of the run.</p>`);
}

/** The page at a report's address (`report.url` in delivery templates). */
function reportPage(id: string): string {
  const api = `/api/v1/reports/${id}`;
  return staticPage('Herald report', `  <h1>Herald report <code>${id}</code></h1>
  ${ABOUT}
  <p>This address will show the report in the web UI. Until then, read it through the API, signed
  in (a session in this browser) or with an API key (<code>Authorization: Bearer hk_…</code>):</p>
  <ul>
    <li><a href="${api}">The report</a> as JSON (<code>GET ${api}</code>)</li>
    <li><a href="/api/v1/runs?report_id=${id}">Its runs</a>, newest first (<code>GET /api/v1/runs?report_id=${id}</code>)</li>
    ${REFERENCE}
  </ul>
  <p>This page itself shows nothing of the report.</p>`);
}

export function pagesRouter(pagePolicy: string): Router {
  const router = express.Router();
  router.get('/reset-password', (_req, res) => { usePagePolicy(res, pagePolicy); res.type('html').send(RESET_PAGE); });
  router.get('/reset-password.js', (_req, res) => { res.type('application/javascript').send(RESET_SCRIPT); });
  router.get('/', (_req, res) => { res.type('html').send(HOME_PAGE); });
  // Only a run's or report's id: any other path under /runs/ or /reports/ answers 404 as usual.
  router.get('/runs/:id', (req, res, next) => {
    if (!isUuid(req.params.id)) { next(); return; }
    res.type('html').send(runPage(req.params.id.toLowerCase()));
  });
  router.get('/reports/:id', (req, res, next) => {
    if (!isUuid(req.params.id)) { next(); return; }
    res.type('html').send(reportPage(req.params.id.toLowerCase()));
  });
  return router;
}
