/**
 * The soak's webhook receiver on loopback: counts every request by its webhook-id (the delivery
 * attempt's id, the same on every send of it), and answers 503 to the first request of one id in
 * `failEvery` (its retry then brings it), 200 otherwise.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  /** Requests per webhook-id (every request, the refused ones included). */
  received: Map<string, number>;
  /** The webhook-ids whose first request was answered 503 on purpose. */
  refused: Set<string>;
  close(): Promise<void>;
}

export async function startReceiver(failEvery = 20): Promise<Receiver> {
  const received = new Map<string, number>();
  let seen = 0;
  const refused = new Set<string>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      const before = received.get(id) ?? 0;
      received.set(id, before + 1);
      if (before === 0 && id !== '') {
        seen += 1;
        if (failEvery > 0 && seen % failEvery === 0) {
          refused.add(id);
          res.writeHead(503, { 'Retry-After': '1' }).end();
          return;
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    refused,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
