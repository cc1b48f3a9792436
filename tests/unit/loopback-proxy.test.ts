/**
 * The tests' loopback proxy (tests/support/loopback-proxy.ts) counts as in flight only the event
 * streams whose client is still there: a client that left before the server answered is not one
 * (sdk-streams.test.ts once saw 2 streams where one was open, on a busy CI).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLoopbackProxy, type LoopbackProxy } from '../support/loopback-proxy.js';

let upstream: http.Server;
let proxy: LoopbackProxy;

beforeAll(async () => {
  // An event stream whose headers come 300 ms late, then stays open.
  upstream = http.createServer((_req, res) => {
    setTimeout(() => { res.writeHead(200, { 'Content-Type': 'text/event-stream' }); res.write(': hello\n\n'); }, 300);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  proxy = await startLoopbackProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
});

afterAll(async () => {
  await proxy.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

const open = (): http.ClientRequest => http.get(`${proxy.url}/api/v1/events`).on('error', () => undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a stream whose client left before the answer is not counted; one still open is', async () => {
  const left = open();
  await sleep(50);
  left.destroy(); // gone before the upstream answers
  const staying = open();
  await new Promise<void>((resolve) => staying.on('response', () => resolve()));
  await sleep(100); // the first one's late answer has come by now
  expect(proxy.dropEventStreams()).toBe(1);
  await sleep(50);
  expect(proxy.dropEventStreams()).toBe(0);
});
