/**
 * Typed streams through the real HTTP edge: a file download and a server-sent event stream,
 * answered by test-only handlers (the operations that will stream still answer 501 in the service).
 * The app is the real createHttpApp on the real contract; only the handler map and the
 * authenticator are the test's. These operations declare no 200 yet in openapi.yaml, so the
 * answers are read raw here, not through the contract checker (see the report of the edge work).
 */
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import request from 'supertest';
import type { Express } from 'express';
import { loadContract } from '../../src/http/contract.js';
import { createHttpApp } from '../../src/http/http-app.js';
import { contentDisposition, formatEvent } from '../../src/http/respond.js';
import { operationIds } from '../../src/generated/operations.js';
import { NOT_IMPLEMENTED, type Handler, type HandlerMap, type HandlerRequest, type ServerSentEvent } from '../../src/handlers/types.js';
import type { Principal } from '../../src/domain/identity/principal.js';
import { createLogger } from '../../src/infra/log/logger.js';
import { openLiveEvents } from '../../src/domain/events/live-stream.js';
import { quietFeed } from '../support/event-feed.js';

const KEY = 'hk_test-key-for-streams';
const viewer: Principal = {
  kind: 'api_key', apiKeyId: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70', scope: 'read',
  user: { id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f71', name: 'Vera', role: 'viewer', mustChangePassword: false },
};

/** What the test-only handlers answer, set by each test. */
let fileAnswer: () => unknown = () => undefined;
let eventAnswer: (req: HandlerRequest<'streamEvents'>) => unknown = () => undefined;
const logs: string[] = [];

async function makeApp(options: { publicUrl?: string; shutdownSignal?: AbortSignal; sendTimeoutMs?: number } = {}): Promise<Express> {
  const publicUrl = options.publicUrl ?? 'http://127.0.0.1:8080';
  const contract = await loadContract(publicUrl);
  const none = Object.fromEntries(operationIds.map((id) => [id, NOT_IMPLEMENTED])) as HandlerMap;
  // Casts: these operations declare no 200 yet, so their typed results allow only the 501.
  const handlers: HandlerMap = {
    ...none,
    downloadSharedLink: (async () => fileAnswer()) as unknown as Handler<'downloadSharedLink'>,
    streamEvents: (async (req: HandlerRequest<'streamEvents'>) => eventAnswer(req)) as unknown as Handler<'streamEvents'>,
  };
  return createHttpApp({
    publicUrl,
    trustProxy: false,
    api: contract.api,
    handlers,
    authenticator: { authenticate: async (c) => (c.bearerToken === KEY ? viewer : null) },
    logger: createLogger({ format: 'json', level: 'debug', stream: new Writable({ write(chunk: Buffer, _e, cb) { logs.push(chunk.toString()); cb(); } }) }),
    document: contract.document,
    sseHeartbeatMs: 20,
    ...(options.shutdownSignal ? { shutdownSignal: options.shutdownSignal } : {}),
    ...(options.sendTimeoutMs ? { sendTimeoutMs: options.sendTimeoutMs } : {}),
  });
}

/** An endless source of 1 KiB chunks that says when it is destroyed. */
function endlessSource(): { stream: Readable; destroyed: Promise<void> } {
  let resolve!: () => void;
  const destroyed = new Promise<void>((r) => { resolve = r; });
  const stream = new Readable({ read() { this.push(Buffer.alloc(1024, 97)); } });
  stream.on('close', () => resolve());
  return { stream, destroyed };
}

/** An event source driven by the test: push() yields an event; return() is recorded. */
function eventSource() {
  const queue: ServerSentEvent[] = [];
  let wake: (() => void) | undefined;
  let returned!: () => void;
  const returnCalled = new Promise<void>((r) => { returned = r; });
  const iterator: AsyncIterator<ServerSentEvent> = {
    async next() {
      while (queue.length === 0) await new Promise<void>((r) => { wake = r; });
      return { done: false, value: queue.shift()! };
    },
    async return() { returned(); return { done: true, value: undefined }; },
  };
  return {
    events: { [Symbol.asyncIterator]: () => iterator } as AsyncIterable<ServerSentEvent>,
    push(e: ServerSentEvent) { queue.push(e); wake?.(); },
    returnCalled,
  };
}

/** Listens on a free loopback port; keep-alive sockets linger long, so only ended streams let close() finish. */
async function listen(app: Express): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(app);
  server.keepAliveTimeout = 10 * 60 * 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Opens a GET and collects the body as it comes; `until` resolves when the text matches. */
function openStream(url: string, agent?: http.Agent) {
  let text = '';
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  let response: http.IncomingMessage | undefined;
  let resolveEnd!: () => void;
  const ended = new Promise<void>((r) => { resolveEnd = r; });
  const req = http.get(url, { headers: { authorization: `Bearer ${KEY}` }, agent }, (r) => {
    response = r;
    r.setEncoding('utf8');
    r.on('data', (chunk: string) => {
      text += chunk;
      for (const w of [...waiters]) if (w.re.test(text)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
    });
    r.on('end', resolveEnd);
    r.on('close', resolveEnd);
  });
  req.on('error', resolveEnd);
  return {
    request: req,
    get text() { return text; },
    get response() { return response!; },
    ended,
    until(re: RegExp) { return re.test(text) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ re, resolve })); },
  };
}

let app: Express;
beforeAll(async () => { app = await makeApp(); });

describe('file streams', () => {
  it('streams a file with its type, length and an RFC 6266 download name', async () => {
    const chunks = ['id,amount\n', '1,10\n', '2,20\n'];
    fileAnswer = () => ({
      status: 200, stream: Readable.from(chunks.map((c) => Buffer.from(c))), contentType: 'text/csv; charset=utf-8',
      filename: 'Umsätze März.csv', length: chunks.join('').length,
    });
    const res = await request(app).get('/r/some-token');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(chunks.join('').length));
    expect(res.headers['content-disposition']).toBe(`attachment; filename="Umsatze Marz.csv"; filename*=UTF-8''Ums%C3%A4tze%20M%C3%A4rz.csv`);
    expect(res.text).toBe(chunks.join(''));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('streams an async iterable of buffers without a known length', async () => {
    fileAnswer = () => ({
      status: 200, contentType: 'application/octet-stream',
      stream: (async function* () { yield Buffer.from('ab'); yield Buffer.from('cd'); })(),
    });
    const res = await request(app).get('/r/some-token').buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    });
    expect(res.status).toBe(200);
    expect((res.body as Buffer).toString()).toBe('abcd');
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('answers HEAD with the headers only and releases the source unread', async () => {
    const source = endlessSource();
    fileAnswer = () => ({ status: 200, stream: source.stream, contentType: 'text/csv', filename: 'a.csv', length: 10 });
    const res = await request(app).head('/r/some-token');
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="a.csv"');
    await source.destroyed;
  });

  it('destroys the source when the client goes away mid-download', async () => {
    const source = endlessSource();
    fileAnswer = () => ({ status: 200, stream: source.stream, contentType: 'application/octet-stream', filename: 'big.bin' });
    const { server, url } = await listen(app);
    try {
      const download = openStream(`${url}/r/some-token`);
      await download.until(/a{2048}/);
      download.request.destroy();
      await source.destroyed;
      expect(source.stream.destroyed).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('answers a problem document, without the file headers, when the source fails before its first byte', async () => {
    fileAnswer = () => ({
      status: 200, contentType: 'text/csv', filename: 'x.csv', length: 99,
      stream: new Readable({ read() { this.destroy(new Error('the artifact store is gone')); } }),
    });
    const res = await request(app).get('/r/some-token');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.body.code).toBe('internal');
  });

  it('cuts the connection when the source fails halfway, so a short file never looks whole', async () => {
    fileAnswer = () => ({
      status: 200, contentType: 'text/csv', filename: 'x.csv',
      stream: (async function* () { yield Buffer.from('id\n1\n'); await new Promise((r) => setImmediate(r)); throw new Error('disk gone'); })(),
    });
    const { server, url } = await listen(app);
    try {
      const download = openStream(`${url}/r/some-token`);
      await download.ended;
      expect(download.response.complete).toBe(false);
      expect(download.text).toBe('id\n1\n');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('writes filename* only when the name is not plain ASCII, and never a line break or a quote', () => {
    expect(contentDisposition('report.csv')).toBe('attachment; filename="report.csv"');
    expect(contentDisposition('a"b\r\nc.csv')).toBe(`attachment; filename="a_b__c.csv"; filename*=UTF-8''a%22b__c.csv`);
    expect(contentDisposition('日本.xlsx', 'inline')).toBe(`inline; filename="__.xlsx"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.xlsx`);
  });
});

describe('server-sent event streams', () => {
  it('sends each event as it comes, heartbeats between them, and stops the source when the client leaves', async () => {
    const source = eventSource();
    let signal: AbortSignal | undefined;
    eventAnswer = (req) => { signal = req.ctx.signal; return { status: 200, events: source.events, retryMs: 3000 }; };
    const { server, url } = await listen(app);
    try {
      const stream = openStream(`${url}/api/v1/events`);
      await stream.until(/^retry: 3000\n\n/);
      expect(stream.response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(stream.response.headers['cache-control']).toMatch(/no-cache/);
      expect(stream.response.headers['x-request-id']).toBeDefined();
      source.push({ event: 'run.updated', id: 1, data: { id: 'r1', status: 'running' } });
      await stream.until(/event: run\.updated\nid: 1\ndata: \{"id":"r1","status":"running"\}\n\n/);
      await stream.until(/\n: heartbeat\n\n/);
      source.push({ event: 'report.updated', data: { id: 'p1' } });
      await stream.until(/event: report\.updated\ndata: \{"id":"p1"\}\n\n/);
      expect(signal?.aborted).toBe(false);
      stream.request.destroy();
      await source.returnCalled;
      expect(signal?.aborted).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('writes a live stream\'s events straight from the fan-out while the client keeps up, and through the loop while its connection is full: every event once, in order', async () => {
    const { feed, history, event } = quietFeed();
    let took = 0;
    let refused = 0;
    let opened!: () => void;
    const isOpen = new Promise<void>((r) => { opened = r; });
    eventAnswer = (async (req: HandlerRequest<'streamEvents'>) => {
      const live = await openLiveEvents(feed, history, { userId: viewer.user.id }, req.ctx.signal);
      const follow = live.follow.bind(live);
      live.follow = (sink) => follow((e) => { const ok = sink(e); if (ok) took += 1; else refused += 1; return ok; });
      opened();
      return { status: 200, events: live };
    }) as unknown as typeof eventAnswer;
    const { server, url } = await listen(app);
    const COUNT = 3_000;
    const pad = 'x'.repeat(16_384); // 48 MB in all: more than loopback's socket buffers hold
    try {
      const chunks: string[] = [];
      let response!: http.IncomingMessage;
      const headers = new Promise<void>((resolve) => {
        http.get(`${url}/api/v1/events`, { headers: { authorization: `Bearer ${KEY}` } }, (r) => {
          response = r;
          r.setEncoding('utf8');
          r.pause(); // a reader that does not keep up: the server's socket fills
          resolve();
        });
      });
      await headers;
      await isOpen;
      // Some while the client reads nothing, in the feed's batches.
      for (let seq = 1; seq <= COUNT; seq += 100) {
        feed.offer(Array.from({ length: 100 }, (_, i) => event(seq + i, { id: `r${seq + i}`, pad })));
        await new Promise<void>((r) => setImmediate(r));
      }
      await new Promise<void>((r) => setTimeout(r, 50));
      // Some went straight from the fan-out; the connection then filled (48 MB is more than
      // loopback's socket buffers hold) and the rest went through next(), whether the sink was
      // asked and refused one (refused) or the writer was still busy when they came.
      expect(took).toBeGreaterThan(0);
      expect(took).toBeLessThan(COUNT);
      expect(refused).toBeLessThanOrEqual(1); // a refusal hands over until the writer catches up
      const all = new Promise<void>((resolve) => {
        let tail = '';
        response.on('data', (chunk: string) => {
          chunks.push(chunk);
          if ((tail + chunk).includes(`id: ${COUNT}\n`)) resolve();
          tail = chunk.slice(-32);
        });
      });
      response.resume();
      await all;
      const ids = [...chunks.join('').matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids).toEqual(Array.from({ length: COUNT }, (_, i) => i + 1));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await feed.close();
    }
  });

  it('gives a handler that asks for its signal only after the client left an aborted one (the signal is made on first use)', async () => {
    let gone!: () => void;
    const clientGone = new Promise<void>((r) => { gone = r; });
    let asked!: (s: AbortSignal) => void;
    const signalSeen = new Promise<AbortSignal>((r) => { asked = r; });
    let entered!: () => void;
    const handlerEntered = new Promise<void>((r) => { entered = r; });
    eventAnswer = async (req) => {
      entered();
      await clientGone;
      asked(req.ctx.signal);
      return { status: 200, events: eventSource().events };
    };
    const { server, url } = await listen(app);
    server.once('connection', (socket) => socket.once('close', () => gone()));
    try {
      const stream = openStream(`${url}/api/v1/events`);
      await handlerEntered;
      stream.request.destroy();
      expect((await signalSeen).aborted).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('cuts a stream whose source fails after its first bytes, and says so in the log', async () => {
    let calls = 0;
    const failing: AsyncIterable<ServerSentEvent> = {
      [Symbol.asyncIterator]: () => ({
        async next() {
          calls += 1;
          if (calls === 1) return { done: false, value: { event: 'run.updated', id: 1, data: { id: 'r1' } } };
          await new Promise((r) => setTimeout(r, 50)); // the first event reaches the client
          throw new Error('the history is gone');
        },
      }),
    };
    eventAnswer = () => ({ status: 200, events: failing });
    logs.length = 0;
    const { server, url } = await listen(app);
    try {
      const stream = openStream(`${url}/api/v1/events`);
      await stream.ended;
      expect(stream.response.statusCode).toBe(200);
      expect(stream.text).toContain('event: run.updated\nid: 1\n');
      expect(stream.response.complete).toBe(false);
      expect(logs.some((l) => l.includes('an answer broke off after it started') && l.includes('the history is gone'))).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('answers a problem, not a cut connection, when a stream fails before its headers go out', async () => {
    eventAnswer = () => ({ status: 200, events: eventSource().events, headers: { 'X-Bad\nName': 'x' } });
    const res = await request(app).get('/api/v1/events').set('Authorization', `Bearer ${KEY}`);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('internal');
  });

  it('formats events on one data line and refuses line breaks in names and ids', () => {
    expect(formatEvent({ event: 'a', data: { text: 'two\nlines' } })).toBe('event: a\ndata: {"text":"two\\nlines"}\n\n');
    expect(() => formatEvent({ event: 'a\ndata: forged', data: 1 })).toThrow(/line break/);
    expect(() => formatEvent({ event: 'a', id: '1\n2', data: 1 })).toThrow(/line break/);
  });

  it('still needs the operation\'s access: no stream without a credential', async () => {
    eventAnswer = () => { throw new Error('not reached'); };
    const res = await request(app).get('/api/v1/events');
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('a client that takes nothing (the send timeout)', () => {
  /**
   * Opens a GET whose response is not read once its headers are in. `readToEnd()` then reads what
   * reached it and resolves with whether the response was complete (a cut one is not); a paused
   * client sees the server's end only once it reads again.
   */
  function stalledClient(url: string) {
    let response!: http.IncomingMessage;
    const headers = new Promise<void>((resolve) => {
      http.get(url, { headers: { authorization: `Bearer ${KEY}` } }, (r) => { r.pause(); response = r; resolve(); }).on('error', () => undefined);
    });
    const readToEnd = () => new Promise<boolean>((resolve) => {
      response.on('error', () => undefined);
      response.on('close', () => resolve(response.complete));
      response.resume();
    });
    return { headers, readToEnd };
  }

  it('lets an event stream go when its client takes nothing for the send timeout, and stops its source', async () => {
    const stalled = await makeApp({ sendTimeoutMs: 300 });
    const source = eventSource();
    eventAnswer = () => ({ status: 200, events: source.events });
    const { server, url } = await listen(stalled);
    try {
      const client = stalledClient(`${url}/api/v1/events`);
      await client.headers;
      // More than loopback's socket buffers hold: the writer ends up waiting for room.
      const pad = 'x'.repeat(65_536);
      for (let i = 1; i <= 1_000; i += 1) source.push({ event: 'run.updated', id: i, data: { pad } });
      await source.returnCalled;
      expect(await client.readToEnd()).toBe(false);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('cuts a download whose client takes nothing for the send timeout, and releases the source', async () => {
    const stalled = await makeApp({ sendTimeoutMs: 300 });
    const { stream, destroyed } = endlessSource();
    fileAnswer = () => ({ status: 200, stream, contentType: 'text/csv', filename: 'big.csv' });
    const { server, url } = await listen(stalled);
    try {
      const client = stalledClient(`${url}/r/some-token`);
      await client.headers;
      await destroyed;
      expect(await client.readToEnd()).toBe(false);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('draining', () => {
  it('ends every open event stream with event: shutdown, so server.close() completes', async () => {
    const shutdown = new AbortController();
    const drained = await makeApp({ shutdownSignal: shutdown.signal });
    const sources = [eventSource(), eventSource()];
    let n = 0;
    eventAnswer = () => ({ status: 200, events: sources[n++]!.events });
    const { server, url } = await listen(drained);
    const agent = new http.Agent({ keepAlive: true });
    try {
      const streams = [openStream(`${url}/api/v1/events`, agent), openStream(`${url}/api/v1/events`, agent)];
      sources[0]!.push({ event: 'run.updated', id: 1, data: { id: 'r1' } });
      await streams[0]!.until(/event: run\.updated/);
      await streams[1]!.until(/: heartbeat/);
      // However many streams (and their requests' signals) wait on the drain, its signal has one
      // listener for them all: EventTarget compares every listener added with each one there
      // (10,000 streams took 4.5 s of CPU to open, in addEventListener alone).
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
      const closed = new Promise((r) => server.close(r));
      shutdown.abort();
      await Promise.all(streams.map((s) => s.ended));
      for (const s of streams) {
        expect(s.text.endsWith('event: shutdown\ndata: {}\n\n')).toBe(true);
        expect(s.response.complete).toBe(true);
      }
      await Promise.all(sources.map((s) => s.returnCalled));
      // Held by nothing: the keep-alive timeout is ten minutes, the test's limit 30 s.
      await closed;
      // A stream asked for while draining ends at once.
      const lateSource = eventSource();
      eventAnswer = () => ({ status: 200, events: lateSource.events });
      const late = await request(drained).get('/api/v1/events').set('Authorization', `Bearer ${KEY}`);
      expect(late.text).toBe('event: shutdown\ndata: {}\n\n');
      await lateSource.returnCalled;
    } finally {
      agent.destroy();
      server.closeAllConnections();
    }
  });
});
