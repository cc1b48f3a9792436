/**
 * A loopback HTTP proxy in front of a listening Herald, for client tests: it forwards every
 * request as it is (streaming both ways), records each one (method, path, Idempotency-Key,
 * Last-Event-ID, when), answers injected faults instead of forwarding (a 429 or 503 problem with
 * Retry-After, or a reset connection), and can cut the event streams it is carrying.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  lastEventId: string | undefined;
  at: number;
  /** What the proxy did: forwarded it, or the fault it answered. */
  outcome: 'forwarded' | 'reset' | number;
  /** The If-None-Match sent, if any. */
  ifNoneMatch?: string | undefined;
  /** Herald's status, once a forwarded request is answered. */
  status?: number;
}

export interface Fault {
  method: string;
  /** Matches the path without the query string. */
  path: RegExp;
  /** A status (429 or 503) to answer, or 'reset' to destroy the connection without an answer. */
  answer: 429 | 503 | 'reset';
  retryAfter?: string;
  /** How many matching requests get the fault (default 1). */
  times?: number;
}

export interface LoopbackProxy {
  url: string;
  seen: Seen[];
  inject(fault: Fault): void;
  /** Forgets the faults not yet answered. */
  clearFaults(): void;
  /** Destroys the connections of every event stream in flight; answers how many. */
  dropEventStreams(): number;
  close(): Promise<void>;
}

export async function startLoopbackProxy(target: string): Promise<LoopbackProxy> {
  const upstream = new URL(target);
  const seen: Seen[] = [];
  const faults: Array<Fault & { left: number }> = [];
  const streams = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0]!;
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const record = (outcome: Seen['outcome']): Seen => {
      const entry: Seen = {
        method, path, idempotencyKey: header('idempotency-key'), lastEventId: header('last-event-id'), at: Date.now(), outcome, ifNoneMatch: header('if-none-match'),
      };
      seen.push(entry);
      return entry;
    };
    const fault = faults.find((f) => f.left > 0 && f.method === method && f.path.test(path));
    if (fault) {
      fault.left -= 1;
      record(fault.answer === 'reset' ? 'reset' : fault.answer);
      if (fault.answer === 'reset') { req.socket.destroy(); return; }
      const code = fault.answer === 429 ? 'rate_limited' : 'unavailable';
      res.writeHead(fault.answer, {
        'Content-Type': 'application/problem+json', 'X-Request-ID': `proxy-${seen.length}`,
        ...(fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {}),
      });
      res.end(JSON.stringify({
        type: `about:blank#${code}`, title: 'Injected', status: fault.answer, code, i18n_key: `errors.${code}`, request_id: `proxy-${seen.length}`,
      }));
      return;
    }
    const entry = record('forwarded');
    // A client may leave before Herald answers (the SDK's runReport stops waiting for a stream
    // that is slow to open once its run is done): its stream must not be counted as in flight
    // when the answer comes later. CI once counted such a one in dropEventStreams.
    let gone = false;
    res.on('close', () => { gone = true; streams.delete(res); });
    const forward = http.request({
      host: upstream.hostname, port: upstream.port, method, path: req.url, headers: { ...req.headers, host: upstream.host },
    }, (answer) => {
      entry.status = answer.statusCode;
      if (gone) { answer.destroy(); return; }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (path === '/api/v1/events') streams.add(res);
      answer.pipe(res);
      res.on('close', () => answer.destroy());
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    inject: (fault) => { faults.push({ ...fault, left: fault.times ?? 1 }); },
    clearFaults: () => { faults.length = 0; },
    dropEventStreams() {
      const n = streams.size;
      for (const res of streams) res.socket?.destroy();
      return n;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
