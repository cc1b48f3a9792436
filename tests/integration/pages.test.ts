/**
 * The addresses Herald's messages link to, before the web UI exists: `/` (the channel test
 * message's link), `{SVC_PUBLIC_URL}/runs/<id>` (every delivered message) and
 * `/reports/<id>` (templates' report.url) answer a static HTML page under a strict
 * Content-Security-Policy that links to the API, the result file and Swagger UI, and shows
 * nothing of the run; other paths under them still answer 404 problem documents.
 */
import request from 'supertest';
import { clientFor, startHerald, type Herald } from '../support/harness.js';

let h: Herald;
beforeAll(async () => { h = await startHerald({ env: { SVC_PROBE_LISTEN: '127.0.0.1:9' } }); });
afterAll(async () => { await h.stop(); });

const RUN = '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70';
const OTHER_RUN = '0190a0a0-0000-7000-8000-000000000000';
// Pages are no operations of the contract: read unchecked.
const page = (path: string) => request(h.process.app!).get(path);

function expectStrictPage(res: request.Response) {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  const csp = res.headers['content-security-policy'] as string;
  // Nothing may load or run: no script (inline or not), no style, no frame, no form target.
  expect(csp).toMatch(/^default-src 'none'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|script-src/);
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.text).not.toMatch(/<script|<style|style=|<link |<img|<iframe|https?:\/\//);
}

const linksOf = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);

it('serves / as a page that says what Herald is and links to Swagger UI and the description', async () => {
  const res = await page('/');
  expectStrictPage(res);
  expect(res.text).toContain('<h1>Herald</h1>');
  expect(res.text).toMatch(/read-only SQL queries/);
  expect(linksOf(res.text)).toEqual(expect.arrayContaining(['/docs', '/api/v1/openapi.yaml', '/api/v1/openapi.json']));
  const head = await request(h.process.app!).head('/');
  expect([head.status, head.text ?? '']).toEqual([200, '']);
});

it('serves /runs/<id> as a page that links to the run\'s JSON, its result file and Swagger UI', async () => {
  const res = await page(`/runs/${RUN}`);
  expectStrictPage(res);
  expect(res.text).toContain(`Herald run <code>${RUN}</code>`);
  expect(linksOf(res.text)).toEqual(expect.arrayContaining([
    `/api/v1/runs/${RUN}`, `/api/v1/runs/${RUN}/result?format=csv`, `/api/v1/runs/${RUN}/result?format=xlsx`, '/docs',
  ]));
  // The links lead to the API, which asks for credentials as usual.
  expect((await h.http.get(`/api/v1/runs/${RUN}`)).status).toBe(401);
  expect((await h.http.get(`/api/v1/runs/${RUN}/result`)).status).toBe(401);
  // Static: the page of another run differs only in the id, so it shows nothing the store holds.
  const other = await page(`/runs/${OTHER_RUN}`);
  expect(other.text.replaceAll(OTHER_RUN, 'ID')).toBe(res.text.replaceAll(RUN, 'ID'));
  const log = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.message === 'http request' && l.route === '/runs/:id');
  expect(log).toMatchObject({ status: 200 });
});

it('serves /reports/<id> the same way, linking to the report and its runs', async () => {
  const res = await page(`/reports/${RUN}`);
  expectStrictPage(res);
  expect(linksOf(res.text)).toEqual(expect.arrayContaining([`/api/v1/reports/${RUN}`, `/api/v1/runs?report_id=${RUN}`, '/docs']));
});

it('answers any other path under /runs/ and /reports/ with a 404 problem document, as before', async () => {
  for (const path of ['/runs/not-a-run', '/runs/', '/runs', `/runs/${RUN}/result`, '/runs/<script>', '/reports/42', '/nothing-here']) {
    const res = await page(path);
    expect([path, res.status, res.headers['content-type']]).toEqual([path, 404, expect.stringMatching(/^application\/problem\+json/)]);
    expect([path, res.body.code]).toEqual([path, 'not_found']);
  }
  // A page takes GET (and HEAD) only.
  expect((await request(h.process.app!).post(`/runs/${RUN}`)).status).toBe(404);
});

it('is served by the API listener only, not by the probe listener', async () => {
  const probe = clientFor(h.process.probeApp!);
  for (const path of ['/', `/runs/${RUN}`]) {
    const res = await probe.get(path);
    expect([path, res.status, res.body.code]).toEqual([path, 404, 'not_found']);
  }
});
