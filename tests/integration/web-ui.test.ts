/**
 * The web UI as the api role serves it (SVC_WEB_DIR): index.html for page addresses with a fresh
 * CSP nonce per answer, hashed assets cached for a year, and the API, the probes, shared links,
 * Swagger UI and the password-reset page untouched. The UI itself is tested in a browser
 * (web/tests); this is the server's part.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { startHerald, type Herald } from '../support/harness.js';
import { loadSettings } from '../../src/infra/config/settings.js';

let h: Herald;
let dir: string;
/** Pages and files are no operations of the contract: asked without its response check. */
const plain = () => request(h.process.app!);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'herald-web-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><meta name="csp-nonce" content="__CSP_NONCE__"><div id="root"></div><script type="module" src="/assets/app-abc123.js"></script>');
  writeFileSync(path.join(dir, 'assets', 'app-abc123.js'), 'console.log("ui")');
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  // Files where the API's and the probes' addresses are: the UI's folder never answers for those.
  mkdirSync(path.join(dir, 'health'));
  writeFileSync(path.join(dir, 'health', 'live.json'), '{"from":"the folder"}');
  mkdirSync(path.join(dir, 'api'));
  writeFileSync(path.join(dir, 'api', 'openapi.json'), '{"from":"the folder"}');
  h = await startHerald({ env: { SVC_WEB_DIR: dir } });
});
afterAll(async () => {
  await h?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the web UI', () => {
  it('answers every page address with index.html, a fresh nonce each time, never cached', async () => {
    const seen = new Set<string>();
    for (const page of ['/', '/runs/0192f0c4-0000-7000-8000-000000000000', '/reports', '/sign-in?next=%2Fruns']) {
      const res = await plain().get(page);
      expect([page, res.status]).toEqual([page, 200]);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      const nonce = /content="([^"]+)"/.exec(res.text)![1]!;
      expect(nonce).not.toBe('__CSP_NONCE__');
      seen.add(nonce);
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toContain(`style-src 'self' 'nonce-${nonce}'`);
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
    }
    expect(seen.size).toBe(4);
  });

  it('serves hashed assets for a year, and a missing asset as 404 rather than the page', async () => {
    const asset = await plain().get('/assets/app-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    const missing = await plain().get('/assets/gone-000.js');
    expect(missing.status).toBe(404);
    expect((await plain().get('/favicon.svg')).status).toBe(200);
  });

  it('leaves the API\'s, the probes\' and the description\'s addresses alone, whatever the folder holds', async () => {
    for (const address of ['/health/live.json', '/api/openapi.json']) {
      const res = await plain().get(address);
      expect([address, res.text.includes('the folder')]).toEqual([address, false]);
    }
    expect((await plain().get('/health/live')).body).toMatchObject({ status: 'ok' });
  });

  it('leaves the API, the probes, Swagger UI, shared links and the password-reset page alone', async () => {
    const api = await h.http.get('/api/v1/no-such-thing');
    expect([api.status, api.body.code]).toEqual([404, 'not_found']);
    const me = await h.http.get('/api/v1/me');
    expect(me.status).toBe(401);
    expect((await h.http.get('/health/live')).status).toBe(200);
    const docs = await plain().get('/docs');
    expect(docs.text).toContain('swagger-ui');
    const link = await h.http.get('/r/not-a-token');
    expect(link.headers['content-type']).toMatch(/problem\+json/);
    const reset = await plain().get('/reset-password');
    expect(reset.text).toContain('<form');
  });

  it('serves a rebuilt UI without a restart: a changed index.html is read again', async () => {
    const file = path.join(dir, 'index.html');
    const before = await plain().get('/queries');
    expect(before.text).toContain('/assets/app-abc123.js');
    writeFileSync(file, '<!doctype html><meta name="csp-nonce" content="__CSP_NONCE__"><div id="root"></div><script type="module" src="/assets/app-def456.js"></script>');
    const later = new Date(Date.now() + 5000);
    utimesSync(file, later, later); // a different modification time, whatever the file system's resolution
    const after = await plain().get('/queries');
    expect(after.text).toContain('/assets/app-def456.js');
    expect(after.text).not.toContain('__CSP_NONCE__');
  });

  it('refuses a SVC_WEB_DIR without an index.html, and turns the UI off with none', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'herald-web-empty-'));
    try {
      expect(() => loadSettings({ ...h.iso.env, SVC_WEB_DIR: empty })).toThrow(/SVC_WEB_DIR.*holds no index.html/);
      expect(loadSettings({ ...h.iso.env, SVC_WEB_DIR: 'none' }).webDir).toBeUndefined();
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
