/**
 * A small result's gzip bytes (src/infra/artifacts/small-gzip.ts): up to STORED_MAX bytes one
 * stored deflate block in a gzip member, past it deflated; every size reads back through gunzip
 * (zlib's, and the streaming gunzip the downloads use) to the same bytes, and the system's gzip
 * tool tests the member whole (its CRC and length).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createGunzip, gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { gzipResult, STORED_MAX } from '../../src/infra/artifacts/small-gzip.js';

const textOf = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => 'αβ[1,"x"]\n'[i % 10]!).join('')).subarray(0, n);

describe('gzipResult', () => {
  it.each([0, 1, 57, 1000, STORED_MAX - 1, STORED_MAX])('stores %i bytes without deflate, read back whole', async (n) => {
    const text = textOf(n);
    const gz = gzipResult(text);
    expect(gz.length).toBe(n + 18 + 5); // gzip's header and trailer, one stored block's header
    expect(gz[10]).toBe(0x01); // BFINAL, BTYPE stored
    expect(gunzipSync(gz).equals(text)).toBe(true);
    expect((await buffer(Readable.from([gz]).pipe(createGunzip()))).equals(text)).toBe(true);
  });

  it('deflates a text past STORED_MAX', () => {
    const text = textOf(STORED_MAX + 1);
    const gz = gzipResult(text);
    expect(gz.length).toBeLessThan(text.length);
    expect(gunzipSync(gz).equals(text)).toBe(true);
  });

  it('takes a string as UTF-8 and random bytes as they are', () => {
    expect(gunzipSync(gzipResult('{"columns":[]}\n[1,"é"]\n')).toString('utf8')).toBe('{"columns":[]}\n[1,"é"]\n');
    const noise = randomBytes(1500);
    expect(gunzipSync(gzipResult(noise)).equals(noise)).toBe(true);
  });

  it('makes a member the gzip tool tests as whole', () => {
    const gz = gzipResult(textOf(700));
    expect(() => execFileSync('gzip', ['-t'], { input: gz })).not.toThrow();
    const broken = Buffer.from(gz);
    broken.writeUInt8(broken.readUInt8(broken.length - 6) ^ 0xff, broken.length - 6); // the CRC
    expect(() => execFileSync('gzip', ['-t'], { input: broken, stdio: ['pipe', 'ignore', 'ignore'] })).toThrow();
  });
});
