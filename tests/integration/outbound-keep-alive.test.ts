/**
 * Outbound HTTP's kept-alive connections against real servers on loopback
 * (src/infra/outbound/http.ts): a reused connection the peer closed at the moment of reuse does
 * not fail the request (it goes again once on a new connection); a connection that fails fresh is
 * not tried again, nor is one reset after its answer began; an idle connection is closed by Herald within the time the peer's Keep-Alive
 * header announces, before the peer closes it under a request.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setImmediate as tick } from 'node:timers/promises';
import { createOutboundHttp } from '../../src/infra/outbound/http.js';
import { ChannelSendError } from '../../src/core/errors.js';

interface Peer {
  url: string;
  /** Every connection the peer accepted, in order. */
  sockets: Socket[];
  /** The bodies of the requests it answered. */
  bodies: string[];
  close(): Promise<void>;
}

async function peer(options: { keepAliveTimeout: number; headers?: Record<string, string>; onRequest?: (req: http.IncomingMessage) => boolean }): Promise<Peer> {
  const sockets: Socket[] = [];
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    if (options.onRequest && !options.onRequest(req)) return;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'text/plain', ...(options.headers ?? {}) });
      res.end('ok');
    });
  });
  server.keepAliveTimeout = options.keepAliveTimeout;
  server.on('connection', (s: Socket) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`, sockets, bodies,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const post = (body: string) => ({ method: 'POST' as const, url: '', body, headers: { 'content-type': 'text/plain' } });

describe('kept-alive outbound connections', () => {
  it('a request whose reused connection the peer closed at that moment goes again on a new one, and arrives once', async () => {
    const p = await peer({ keepAliveTimeout: 60_000 });
    const out = createOutboundHttp({ allow: ['127.0.0.1'] });
    try {
      const first = await out.request({ ...post('one'), url: p.url }, new AbortController().signal);
      expect(first.status).toBe(200);
      await tick(); // the connection is back in the agent's free list
      expect(p.sockets).toHaveLength(1);
      // The peer drops the idle connection just as the next request takes it (no I/O between the
      // two: Herald cannot have seen the close yet), as a server whose idle limit ends then does.
      p.sockets[0]!.destroy();
      const second = await out.request({ ...post('two'), url: p.url }, new AbortController().signal);
      expect(second.status).toBe(200);
      expect(p.sockets).toHaveLength(2);
      expect(p.bodies).toEqual(['one', 'two']);
    } finally {
      out.close();
      await p.close();
    }
  });

  it('a reused connection reset after the answer began is a failure: the request is not sent again', async () => {
    // The second request is answered in part (headers and a first chunk), then its connection reset.
    let n = 0;
    const p = await peer({
      keepAliveTimeout: 60_000,
      onRequest: (req) => {
        n += 1;
        if (n === 1) return true;
        req.resume();
        req.on('end', () => {
          req.socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100\r\n\r\npart', () => {
            setTimeout(() => req.socket.resetAndDestroy(), 20);
          });
        });
        return false;
      },
    });
    const out = createOutboundHttp({ allow: ['127.0.0.1'] });
    try {
      expect((await out.request({ ...post('one'), url: p.url }, new AbortController().signal)).status).toBe(200);
      await tick();
      const err = await out.request({ ...post('two'), url: p.url }, new AbortController().signal).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(ChannelSendError);
      expect(err).toMatchObject({ code: 'delivery.unreachable' });
      expect(n).toBe(2);
      expect(p.sockets).toHaveLength(1);
    } finally {
      out.close();
      await p.close();
    }
  });

  it('a fresh connection that fails is a failure at once: not sent again', async () => {
    // The peer resets every connection as soon as the request arrives.
    const p = await peer({ keepAliveTimeout: 60_000, onRequest: (req) => { req.socket.destroy(); return false; } });
    const out = createOutboundHttp({ allow: ['127.0.0.1'] });
    try {
      const err = await out.request({ ...post('one'), url: p.url }, new AbortController().signal).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(ChannelSendError);
      expect(err).toMatchObject({ code: 'delivery.unreachable' });
      expect((err as Error).message).toMatch(/could not be reached \(ECONNRESET\)/);
      expect(p.sockets).toHaveLength(1);
    } finally {
      out.close();
      await p.close();
    }
  });

  it('an idle connection is closed by Herald before the time the peer announces (Keep-Alive: timeout=2), not left for the peer to close', async () => {
    // The peer never closes an idle connection itself (keepAliveTimeout 0) but announces 2 s: only
    // Herald can close it, and it must, a second early (Node's margin), or it would reuse a
    // connection that a peer true to its word closes at that moment.
    const p = await peer({ keepAliveTimeout: 0, headers: { 'keep-alive': 'timeout=2' } });
    const out = createOutboundHttp({ allow: ['127.0.0.1'] });
    try {
      const answer = await out.request({ ...post('one'), url: p.url }, new AbortController().signal);
      expect(answer.status).toBe(200);
      expect(answer.headers['keep-alive']).toBe('timeout=2');
      // Closed after the hint's 2 s less Node's margin of 1 s; without the hint Herald's own 4 s
      // would apply, so the close must come well before that (3 s: room for a loaded machine).
      const socket = p.sockets[0]!;
      const closed = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 3_000);
        socket.once('close', () => { clearTimeout(timer); resolve(true); });
      });
      expect(closed).toBe(true);
    } finally {
      out.close();
      await p.close();
    }
  });
});
