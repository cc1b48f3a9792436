/**
 * The one page the API itself must serve: the target of the emailed password-reset link. It
 * reads the token from the URL fragment (never sent to servers or logs) and calls
 * POST /api/v1/auth/password-reset/confirm.
 */
import express, { type Router } from 'express';
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

export function pagesRouter(pagePolicy: string): Router {
  const router = express.Router();
  router.get('/reset-password', (_req, res) => { usePagePolicy(res, pagePolicy); res.type('html').send(RESET_PAGE); });
  router.get('/reset-password.js', (_req, res) => { res.type('application/javascript').send(RESET_SCRIPT); });
  return router;
}
