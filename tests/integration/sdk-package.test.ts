/**
 * GET /sdk/herald-sdk.tgz (src/http/sdk-package.ts): the packed SDK as a file, with its type, a
 * caching that asks again each time (its ETag answers 304), HEAD, the API's strict headers, and
 * 404 where no package was built. The package itself, installed and run by npx from this address,
 * is tests/process/sdk-package.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import request, { type Test } from 'supertest';
import { startHerald, type Herald } from '../support/harness.js';

let h: Herald;
let dir: string;
const packed = gzipSync(Buffer.from('package/package.json stands in for a packed SDK'));

const bytes = (test: Test) => test.buffer(true).parse((res, done) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
});

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'herald-sdk-route-'));
  writeFileSync(path.join(dir, 'herald-sdk.tgz'), packed);
  h = await startHerald({ sdkPackage: path.join(dir, 'herald-sdk.tgz') });
});
afterAll(async () => {
  await h?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('serves the package as application/gzip, public, asked for again each time', async () => {
  const res = await bytes(h.http.get('/sdk/herald-sdk.tgz'));
  expect(res.status).toBe(200);
  expect(Buffer.compare(res.body as Buffer, packed)).toBe(0);
  expect(res.headers).toMatchObject({
    'content-type': 'application/gzip',
    'content-length': String(packed.length),
    'content-disposition': 'attachment; filename="herald-sdk.tgz"',
    'cache-control': 'public, no-cache',
    // The API's own policy: a file that nothing may run or frame.
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'x-content-type-options': 'nosniff',
  });
  expect(res.headers.etag).toEqual(expect.any(String));
  expect(res.headers['last-modified']).toEqual(expect.any(String));

  // npm and proxies revalidate: an unchanged package answers 304 without a body.
  const again = await h.http.get('/sdk/herald-sdk.tgz').set('If-None-Match', res.headers.etag!);
  expect(again.status).toBe(304);
  const head = await request(h.process.app!).head('/sdk/herald-sdk.tgz');
  expect([head.status, head.headers['content-length'], head.headers['content-type']]).toEqual([200, String(packed.length), 'application/gzip']);
});

it('answers 404 (a problem document) where no package was built', async () => {
  const bare = await startHerald({ sdkPackage: path.join(dir, 'not-built.tgz') });
  try {
    const res = await bare.http.get('/sdk/herald-sdk.tgz');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found' });
  } finally {
    await bare.stop();
  }
});

it('serves nothing else under /sdk', async () => {
  expect((await h.http.get('/sdk/')).status).toBe(404);
  expect((await h.http.get('/sdk/herald-sdk.tgz/x')).status).toBe(404);
  expect((await h.http.post('/sdk/herald-sdk.tgz')).status).toBe(404);
});
