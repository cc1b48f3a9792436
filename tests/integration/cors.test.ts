/**
 * CORS, answered deliberately: with SVC_CORS_ORIGINS, listed origins (and only they) may call the
 * API from a browser, with credentials; unlisted origins get no Access-Control-* header. (Off by
 * default: see http-edge.test.ts.) Also HSTS, which is sent only when SVC_PUBLIC_URL is https.
 */
import request from 'supertest';
import { startHerald, type Herald } from '../support/harness.js';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

let h: Herald;
beforeAll(async () => {
  h = await startHerald({ env: { SVC_CORS_ORIGINS: `${APP}, http://localhost:5173`, SVC_PUBLIC_URL: 'https://herald.example.com' } });
});
afterAll(async () => { await h.stop(); });

const raw = () => request(h.process.app!);

describe('with SVC_CORS_ORIGINS', () => {
  it('allows a listed origin, with credentials, and exposes X-Request-ID', async () => {
    const res = await h.http.get('/api/v1/me').set('Origin', APP);
    expect(res.status).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-expose-headers']).toMatch(/(^|, )X-Request-ID(,|$)/);
    // A page's script may read the tag and send it back (conditional reads).
    expect(res.headers['access-control-expose-headers']).toMatch(/(^|, )ETag(,|$)/);
    expect(res.headers.vary).toMatch(/Origin/);
    const local = await h.http.get('/health/live').set('Origin', 'http://localhost:5173');
    expect(local.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('gives an unlisted origin nothing, not even a wildcard', async () => {
    for (const origin of [OTHER, 'https://app.example.com.evil.net', 'null', `${APP}:443`]) {
      const res = await h.http.get('/health/live').set('Origin', origin);
      expect([origin, res.headers['access-control-allow-origin'], res.headers['access-control-allow-credentials']])
        .toEqual([origin, undefined, undefined]);
      expect(res.headers.vary).toMatch(/Origin/);
    }
  });

  it('answers a listed origin\'s preflight with the path\'s methods and the headers the API reads', async () => {
    const res = await raw().options('/api/v1/users').set('Origin', APP)
      .set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'content-type, x-csrf-token');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, HEAD');
    const allowed = (res.headers['access-control-allow-headers'] as string).split(', ');
    expect(allowed).toEqual(expect.arrayContaining(['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'X-CSRF-Token']));
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(res.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
  });

  it('answers an unlisted origin\'s preflight without any allow header', async () => {
    const res = await raw().options('/api/v1/users').set('Origin', OTHER).set('Access-Control-Request-Method', 'POST');
    expect(res.status).toBe(204);
    expect(Object.keys(res.headers).filter((k) => k.startsWith('access-control-'))).toEqual([]);
  });

  it('answers OPTIONS on a path without operations with 404', async () => {
    const res = await raw().options('/api/v1/nowhere').set('Origin', APP).set('Access-Control-Request-Method', 'GET');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});

describe('HSTS', () => {
  it('is sent when SVC_PUBLIC_URL is https', async () => {
    for (const path of ['/health/live', '/api/v1/me', '/docs']) {
      const res = await h.http.get(path);
      expect([path, res.headers['strict-transport-security']]).toEqual([path, 'max-age=31536000']);
    }
  });
});
