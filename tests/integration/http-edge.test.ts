import request from 'supertest';
import { startHerald, type Herald } from '../support/harness.js';
import { documentedCodes } from '../../src/handlers/error-status.js';

let h: Herald;
beforeAll(async () => { h = await startHerald(); });
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
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'body', code: 'validation.required' })]);
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
