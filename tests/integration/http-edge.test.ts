import { readFileSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import request from 'supertest';
import { clientFor, startHerald, type Herald } from '../support/harness.js';
import { documentedCodes } from '../../src/handlers/error-status.js';

let h: Herald;
// A probe listener too (not bound: the tests call its handler), to check its headers.
beforeAll(async () => { h = await startHerald({ env: { SVC_PROBE_LISTEN: '127.0.0.1:9' } }); });
afterAll(async () => { await h.stop(); });

describe('the HTTP edge', () => {
  it('answers an unknown path with a 404 not_found problem document', async () => {
    const res = await h.http.get('/api/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      code: 'not_found', status: 404, i18n_key: 'errors.not_found', type: 'http://127.0.0.1:8080/docs/errors/not_found',
    });
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    // JSON answers end with a newline (a shell prompt after curl starts on its own line).
    expect(res.text.endsWith('}\n')).toBe(true);
  });

  it('answers a known path with the wrong method with 405 and the Allow header', async () => {
    const res = await h.http.delete('/health/live');
    expect(res.status).toBe(405);
    expect(res.body.code).toBe('request.method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
    const users = await h.http.put('/api/v1/users');
    expect(users.headers.allow).toBe('GET, POST, HEAD');
  });

  it('answers HEAD like GET, without a body', async () => {
    for (const path of ['/health/live', '/health/ready']) {
      const res = await request(h.process.app!).head(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.text ?? '').toBe('');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('answers a body sent to no operation with 404 (or 405), unread, whatever its content type', async () => {
    const res = await h.http.post('/api/v1/nowhere').set('Content-Type', 'text/plain').send('hello');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    const json = await h.http.post('/api/v1/nowhere').set('Content-Type', 'application/json').send('{"broken": ');
    expect([json.status, json.body.code]).toEqual([404, 'not_found']);
    const big = await h.http.post('/api/v1/nowhere').set('Content-Type', 'application/json').send(JSON.stringify({ x: 'y'.repeat(1024 * 1024 + 10) }));
    expect([big.status, big.body.code]).toEqual([404, 'not_found']);
    const wrongMethod = await h.http.delete('/health/live').set('Content-Type', 'application/json').send('{"broken": ');
    expect([wrongMethod.status, wrongMethod.body.code]).toEqual([405, 'request.method_not_allowed']);
  });

  it('names the route in the log line of a request refused for its body', async () => {
    await h.http.post('/api/v1/setup').set('Content-Type', 'application/json').set('X-Request-ID', 'malformed-route-0001').send('{"name": ');
    await h.http.post('/api/v1/setup').set('Content-Type', 'text/plain').set('X-Request-ID', 'media-type-route-0001').send('x');
    const lines = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.message === 'http request');
    expect(lines.find((l) => l.request_id === 'malformed-route-0001')).toMatchObject({ route: '/api/v1/setup', status: 400 });
    expect(lines.find((l) => l.request_id === 'media-type-route-0001')).toMatchObject({ route: '/api/v1/setup', status: 415 });
  });

  it('reports a missing body on the field "body"', async () => {
    const res = await h.http.post('/api/v1/setup');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'body', code: 'validation.required', message: 'a JSON body is required' }]);
  });

  it('reports an empty body, and a body that is no JSON object, on "body" in words that name nothing internal', async () => {
    const empty = await h.http.post('/api/v1/setup').set('Content-Type', 'application/json').set('Content-Length', '0').send('');
    expect(empty.body.errors).toEqual([{ field: 'body', code: 'validation.required', message: 'a JSON body is required' }]);
    for (const body of ['null', '[]', '"text"', '42']) {
      const res = await h.http.post('/api/v1/setup').set('Content-Type', 'application/json').send(body);
      expect([body, res.status, res.body.errors?.[0]?.field]).toEqual([body, 422, 'body']);
      expect(res.body.errors[0].message).toMatch(/^the body must be a JSON object$|^a JSON body is required$/);
    }
    const unknown = await h.http.post('/api/v1/setup').send({ name: 'A', email: 'a@example.com', password: 'correct horse battery', colour: 'blue' });
    expect(unknown.body.errors).toEqual([{ field: 'colour', code: 'validation.unknown_field', message: 'is not a field this operation accepts' }]);
    const missing = await h.http.post('/api/v1/setup').send({ email: 'a@example.com', password: 'correct horse battery' });
    expect(missing.body.errors).toEqual([{ field: 'name', code: 'validation.required', message: 'is required' }]);
    for (const res of [empty, unknown, missing]) expect(res.text).not.toMatch(/requestBody|'query'|'path'|'header'/);
  });

  it('answers 401 with WWW-Authenticate naming the accepted schemes', async () => {
    const none = await h.http.get('/api/v1/me');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe(
      'Bearer realm="herald", Cookie realm="herald", form-action="/api/v1/auth/login", cookie-name="svc_session"');
    const badKey = await h.http.get('/api/v1/me').set('Authorization', 'Bearer hk_not-a-key-at-all-000000000000000');
    expect(badKey.headers['www-authenticate']).toMatch(/^Bearer realm="herald", error="invalid_token", Cookie realm="herald"/);
    const badLogin = await h.http.post('/api/v1/auth/login').send({ email: 'nobody@example.com', password: 'wrong password here' });
    expect([badLogin.status, badLogin.headers['www-authenticate']]).toEqual([401, expect.stringMatching(/^Bearer realm="herald"/)]);
    // Other statuses carry no challenge.
    expect((await h.http.get('/api/v1/no-such-thing')).headers['www-authenticate']).toBeUndefined();
  });

  it('sends the security headers on every answer: API, problem documents, the document, docs, pages and the probe listener', async () => {
    const probe = clientFor(h.process.probeApp!);
    const answers = [
      ['api', await h.http.get('/health/live')],
      ['problem', await h.http.get('/api/v1/no-such-thing')],
      ['401', await h.http.get('/api/v1/me')],
      ['document', await h.http.get('/api/v1/openapi.json')],
      ['swagger ui', await h.http.get('/docs')],
      ['asset', await h.http.get('/docs/assets/swagger-ui.css')],
      ['error page', await h.http.get('/docs/errors/not_found')],
      ['reset page', await request(h.process.app!).get('/reset-password')], // a page, not an operation: read unchecked
      ['probe', await probe.get('/metrics')],
      ['probe 404', await probe.get('/api/v1/me')],
    ] as const;
    for (const [what, res] of answers) {
      expect([what, res.headers['x-content-type-options'], res.headers['x-frame-options'], res.headers['referrer-policy']])
        .toEqual([what, 'nosniff', 'DENY', 'no-referrer']);
      expect([what, res.headers['content-security-policy']]).toEqual([what, expect.stringContaining("frame-ancestors 'none'")]);
      // Plain http: no HSTS (it is sent only when SVC_PUBLIC_URL is https).
      expect([what, res.headers['strict-transport-security']]).toEqual([what, undefined]);
    }
    // API answers may load and run nothing; Swagger UI runs its own files only, never inline script.
    expect(answers[0][1].headers['content-security-policy']).toMatch(/^default-src 'none'/);
    const ui = answers[4][1].headers['content-security-policy'] as string;
    expect(ui).toMatch(/script-src 'self'(;|$)/);
    expect(ui).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(answers[4][1].text).not.toMatch(/<script>|<script [^>]*>[^<]|style=/);
  });

  it('answers malformed JSON with 400 request.malformed', async () => {
    const res = await h.http.post('/api/v1/setup').set('Content-Type', 'application/json').send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('request.malformed');
  });

  it('answers a body without a JSON content type with 415', async () => {
    const res = await h.http.post('/api/v1/setup').set('Content-Type', 'text/plain').send('name=x');
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('request.unsupported_media_type');
  });

  it('answers an oversized body with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const res = await h.http.post('/api/v1/setup').set('Content-Type', 'application/json').send(big);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('request.too_large');
  });

  it('keeps a well-formed incoming X-Request-ID and replaces a malformed one', async () => {
    const kept = await h.http.get('/health/live').set('X-Request-ID', 'trace-abc-12345678');
    expect(kept.headers['x-request-id']).toBe('trace-abc-12345678');
    const replaced = await h.http.get('/health/live').set('X-Request-ID', 'bad id with spaces');
    expect(replaced.headers['x-request-id']).not.toBe('bad id with spaces');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs every request with request_id, method, route, status and duration', async () => {
    await h.http.get('/api/v1/system/about').set('X-Request-ID', 'log-line-check-0001');
    const line = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.request_id === 'log-line-check-0001' && l.message === 'http request');
    expect(line).toMatchObject({ method: 'GET', route: '/api/v1/system/about', status: 401, level: 'info' });
    expect(typeof line?.duration_ms).toBe('number');
  });

  it('logs successful health probes and metric scrapes at debug only', async () => {
    await h.http.get('/health/live').set('X-Request-ID', 'probe-check-00000001');
    const line = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === 'probe-check-00000001');
    expect(line?.level).toBe('debug');
  });

  it('serves the document as YAML and JSON, Swagger UI and error pages', async () => {
    const yaml = await h.http.get('/api/v1/openapi.yaml');
    expect(yaml.status).toBe(200);
    expect(yaml.text).toMatch(/^openapi: 3\.0\.3/);
    const json = await h.http.get('/api/v1/openapi.json');
    expect(json.status).toBe(200);
    expect(json.body.openapi).toBe('3.0.3');
    expect(Object.keys(json.body.paths).length).toBeGreaterThan(90);
    // Every other path under /api/v1/ goes straight to the operations, past the page routers.
    const nothing = await h.http.get('/api/v1/openapi.yml');
    expect(nothing.status).toBe(404);
    expect(nothing.headers['content-type']).toMatch(/^application\/problem\+json/);
    const docs = await h.http.get('/docs');
    expect(docs.text).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(docs.text).not.toMatch(/https?:\/\/(?!127)/);
    // Swagger UI's validator badge would send the document's address to a third party.
    const init = await h.http.get('/docs/init.js');
    expect(init.text).toContain('validatorUrl: null');
    const asset = await h.http.get('/docs/assets/swagger-ui-bundle.js').set('X-Request-ID', 'asset-log-check-0001');
    const assetLine = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === 'asset-log-check-0001');
    expect(assetLine).toMatchObject({ route: '/docs/assets', status: 200 });
    expect(asset.status).toBe(200);
    expect(asset.text.length).toBeGreaterThan(100_000);
    const page = await h.http.get('/docs/errors/validation.failed');
    expect(page.status).toBe(200);
    expect(page.text).toContain('validation.failed');
    expect(page.text).toContain('422');
    const unknown = await h.http.get('/docs/errors/no.such.code');
    expect(unknown.status).toBe(404);
  });

  it('answers CORS deliberately when SVC_CORS_ORIGINS is unset: no Access-Control-* header, preflight 204 without allow headers', async () => {
    const get = await h.http.get('/api/v1/me').set('Origin', 'https://app.example.com');
    const preflight = await request(h.process.app!).options('/api/v1/users').set('Origin', 'https://app.example.com')
      .set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'content-type');
    for (const res of [get, preflight]) {
      expect(Object.keys(res.headers).filter((k) => k.startsWith('access-control-'))).toEqual([]);
    }
    expect([preflight.status, preflight.headers.allow, preflight.text]).toEqual([204, 'GET, POST, HEAD, OPTIONS', '']);
    const nowhere = await request(h.process.app!).options('/api/v1/nowhere');
    expect([nowhere.status, nowhere.body.code]).toEqual([404, 'not_found']);
    expect(nowhere.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('explains on each problem code\'s page what causes it and what to do, from the catalogue', async () => {
    const doc = loadYaml(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as {
      components: { 'x-problem-codes': Record<string, { description?: string; action?: string }> };
    };
    const catalogue = Object.entries(doc.components['x-problem-codes']);
    expect(catalogue.length).toBeGreaterThan(30);
    const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    for (const [code, entry] of catalogue) {
      expect([code, typeof entry.description, typeof entry.action]).toEqual([code, 'string', 'string']);
      expect([code, entry.description!.trim().length > 20, entry.action!.trim().length > 20]).toEqual([code, true, true]);
      const page = await h.http.get(`/docs/errors/${code}`);
      expect([code, page.text.includes(escape(entry.description!.trim())), page.text.includes(escape(entry.action!.trim()))]).toEqual([code, true, true]);
      expect(page.text).toContain('What causes it');
      expect(page.text).toContain('What to do');
    }
  });

  it('explains every code it can answer with at its type URL', async () => {
    const codes = documentedCodes();
    for (const code of ['auth.csrf_failed', 'validation.range', 'validation.password_too_common', 'user.last_admin', 'connection.in_use']) {
      expect(codes).toContain(code);
    }
    for (const code of codes) {
      const page = await h.http.get(`/docs/errors/${code}`);
      expect([code, page.status]).toEqual([code, 200]);
      expect(page.text).not.toContain('Request failed');
    }
  });
});
