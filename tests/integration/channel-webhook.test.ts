/**
 * The webhook channel plugin against a real receiver on loopback, through the guarded client:
 * the JSON body, the Standard Webhooks signature (checked with the standardwebhooks package),
 * custom headers; answers mapped to transient (5xx, 429 with Retry-After, a peer that never
 * answers) and permanent (4xx, a refused address); validate()'s URL and header checks.
 */
import { randomBytes } from 'node:crypto';
import nodeHttp from 'node:http';
import { Webhook } from 'standardwebhooks';
import { createOutboundHttp } from '../../src/infra/outbound/http.js';
import type { DomainError } from '../../src/core/errors.js';
import { ChannelSendError } from '../../src/domain/plugins/channel.js';
import { webhookChannel } from '../../src/plugins/webhook/index.js';
import { channelContext, sampleMessage } from '../support/channel-message.js';
import { silentServer, type FakeServer } from '../support/fake-servers.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const http = createOutboundHttp({ allow: ['127.0.0.1'] });
let peer: HttpPeer;
let silent: FakeServer;

beforeAll(async () => {
  peer = await httpPeer();
  silent = await silentServer();
});
afterAll(async () => {
  http.close();
  await peer.close();
  await silent.close();
});
beforeEach(() => {
  peer.requests.length = 0;
  peer.script.length = 0;
});

async function failure(promise: Promise<unknown>): Promise<ChannelSendError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ChannelSendError);
  return err as ChannelSendError;
}

describe('send', () => {
  it('follows a redirect to another origin without the channel\'s headers (its token), keeping the body and the signature; to the same origin with them', async () => {
    const other = await httpPeer();
    try {
      const ctx = channelContext(http);
      const settings = { url: `${peer.url}/hook`, signing_secret: SECRET, headers: { Authorization: 'Bearer hook-token', 'X-Team': 'ops' } };
      peer.script.push({ status: 307, headers: { location: `${other.url}/moved` } });
      const outcome = await webhookChannel.send(settings, {}, sampleMessage(), ctx);
      expect(outcome).toMatchObject({ statusCode: 200 });
      expect(other.requests).toHaveLength(1);
      const there = other.requests[0]!;
      expect(there).toMatchObject({ method: 'POST', path: '/moved' });
      expect(there.headers.authorization).toBeUndefined();
      expect(there.headers['x-team']).toBeUndefined();
      expect(there.headers['content-type']).toBe('application/json');
      new Webhook(SECRET).verify(there.body, {
        'webhook-id': String(there.headers['webhook-id']), 'webhook-timestamp': String(there.headers['webhook-timestamp']),
        'webhook-signature': String(there.headers['webhook-signature']),
      });

      // A channel that refuses redirects to another origin fails there, permanently, and names the status.
      peer.script.push({ status: 307, headers: { location: `${other.url}/moved` } });
      const refused = await failure(webhookChannel.send({ ...settings, cross_origin_redirects: 'refuse' }, {}, sampleMessage(), channelContext(http)));
      expect(refused.code).toBe('outbound.refused');
      expect(refused.options.transient).toBe(false);
      expect(refused.message).toContain('HTTP 307');
      expect(other.requests).toHaveLength(1);

      peer.script.push({ status: 308, headers: { location: `${peer.url}/same-origin` } });
      await webhookChannel.send(settings, {}, sampleMessage(), channelContext(http));
      const same = peer.requests.at(-1)!;
      expect(same.path).toBe('/same-origin');
      expect(same.headers.authorization).toBe('Bearer hook-token');
      expect(same.headers['x-team']).toBe('ops');
    } finally {
      await other.close();
    }
  });

  it('posts the JSON body signed per Standard Webhooks, with the custom headers', async () => {
    const ctx = channelContext(http);
    const message = sampleMessage({
      link: { url: 'https://herald.example.com/r/tok', expiresAt: new Date('2025-04-01T00:00:00.000Z') },
      attachment: { filename: 'sales.csv', contentType: 'text/csv', content: Buffer.from('region,total\r\nEU,12.5\r\n') },
    });
    const outcome = await webhookChannel.send(
      { url: `${peer.url}/hook?token=abc`, signing_secret: SECRET, headers: { Authorization: 'Bearer hook-token', 'X-Team': 'ops' } },
      {}, message, ctx,
    );
    expect(outcome).toEqual({ statusCode: 200, peerMessageId: null, detail: 'HTTP 200' });
    expect(peer.requests).toHaveLength(1);
    const req = peer.requests[0]!;
    expect(req).toMatchObject({ method: 'POST', path: '/hook?token=abc' });
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBe('Bearer hook-token');
    expect(req.headers['x-team']).toBe('ops');
    expect(req.headers['webhook-id']).toBe(ctx.messageId);
    expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(SECRET).verify(req.body, headers);
    expect(verified).toEqual({
      type: 'report.delivered',
      id: ctx.messageId,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      report: { id: 'rep_1', title: 'Daily sales' },
      run: { id: 'run_1', status: 'success', trigger: 'schedule', row_count: 3, created_at: '2025-03-04T05:06:07.000Z', url: 'https://herald.example.com/runs/run_1' },
      subject: 'Daily sales: 3 rows',
      body: 'Hello team,\nhere are the sales.',
      table: { columns: ['region', 'total'], rows: [['EU', 12.5], ['US', 7], ['<b>&', null]], total_rows: 3 },
      link: { url: 'https://herald.example.com/r/tok', expires_at: '2025-04-01T00:00:00.000Z' },
      attachment: { filename: 'sales.csv', content_type: 'text/csv', content_base64: Buffer.from('region,total\r\nEU,12.5\r\n').toString('base64') },
    });
    // A body changed on the way no longer verifies.
    expect(() => new Webhook(SECRET).verify(req.body.replace('Daily', 'Weekly'), headers)).toThrow();
  });

  it('sends the same webhook-id on a resend of the attempt, and no signature without a secret', async () => {
    const ctx = channelContext(http, { messageId: 'att_fixed' });
    const message = sampleMessage({ table: null });
    await webhookChannel.send({ url: `${peer.url}/plain` }, {}, message, ctx);
    await webhookChannel.send({ url: `${peer.url}/plain` }, {}, message, ctx);
    expect(peer.requests.map((r) => r.headers['webhook-id'])).toEqual(['att_fixed', 'att_fixed']);
    expect(peer.requests[0]!.headers['webhook-signature']).toBeUndefined();
    expect(JSON.parse(peer.requests[0]!.body)).toMatchObject({ table: null, link: null, attachment: null });
  });

  it('maps a 503 to a transient peer error with its status', async () => {
    peer.script.push({ status: 503, body: 'down for maintenance' });
    const err = await failure(webhookChannel.send({ url: `${peer.url}/h?token=secret-q` }, {}, sampleMessage(), channelContext(http)));
    expect(err.code).toBe('delivery.peer_error');
    expect(err.options).toMatchObject({ transient: true, statusCode: 503, retryAfterMs: null });
    expect(err.message).toContain('down for maintenance');
    expect(err.message).not.toContain('secret-q');
    expect(err.message).not.toContain('/h');
  });

  it('reads Retry-After of a 429 as seconds or as an HTTP date', async () => {
    peer.script.push({ status: 429, headers: { 'retry-after': '2' } });
    const seconds = await failure(webhookChannel.send({ url: `${peer.url}/h` }, {}, sampleMessage(), channelContext(http)));
    expect(seconds.options).toMatchObject({ transient: true, statusCode: 429, retryAfterMs: 2000 });
    const now = new Date('2025-03-04T10:00:00.000Z');
    peer.script.push({ status: 429, headers: { 'retry-after': 'Tue, 04 Mar 2025 10:00:30 GMT' } });
    const date = await failure(webhookChannel.send({ url: `${peer.url}/h` }, {}, sampleMessage(), channelContext(http, { now: () => now })));
    expect(date.options.retryAfterMs).toBe(30_000);
  });

  it('maps a 400 to a permanent refusal carrying at most 200 characters of the answer', async () => {
    peer.script.push({ status: 400, body: `bad payload ${'x'.repeat(500)}` });
    const err = await failure(webhookChannel.send({ url: `${peer.url}/h` }, {}, sampleMessage(), channelContext(http)));
    expect(err.code).toBe('delivery.rejected');
    expect(err.options).toMatchObject({ transient: false, statusCode: 400 });
    expect(err.message).toContain('bad payload');
    expect(err.message.length).toBeLessThan(260);
  });

  it('maps a 408 to transient', async () => {
    peer.script.push({ status: 408 });
    const err = await failure(webhookChannel.send({ url: `${peer.url}/h` }, {}, sampleMessage(), channelContext(http)));
    expect(err.options).toMatchObject({ transient: true, statusCode: 408 });
  });

  it('a large body read slowly is not cut off: the time limit is on silence, not on the whole upload', async () => {
    // The peer reads 40 MB at about 8 MB/s: five seconds in all, against a limit of 3 s.
    let received = 0;
    let requests = 0;
    const slow = nodeHttp.createServer((req, res) => {
      requests += 1;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        req.pause();
        setTimeout(() => req.resume(), Math.ceil(chunk.length / 8_000));
      });
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', () => r()));
    const port = (slow.address() as { port: number }).port;
    try {
      const body = Buffer.alloc(40 * 1024 * 1024, 'x');
      const started = Date.now();
      const answer = await http.request({ method: 'POST', url: `http://127.0.0.1:${port}/upload`, body, timeoutMs: 3000 }, new AbortController().signal);
      expect(answer.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThan(3000);
      expect(received).toBe(body.length);
      expect(requests).toBe(1);
    } finally {
      await new Promise<void>((r) => slow.close(() => r()));
    }
  }, 60_000);

  it('gives up on a peer that never answers: delivery.timeout, transient', async () => {
    const started = Date.now();
    const err = await failure(webhookChannel.send({ url: `http://127.0.0.1:${silent.port}/slow?token=t` }, {}, sampleMessage(), channelContext(http, { timeoutMs: 300 })));
    expect(err.code).toBe('delivery.timeout');
    expect(err.options.transient).toBe(true);
    expect(err.message).not.toContain('token');
    expect(Date.now() - started).toBeLessThan(15_000); // its 300 ms, not the default's (room for a loaded machine)
  });

  it('is refused by the address guard when loopback is not allowed', async () => {
    const guarded = createOutboundHttp({ allow: [] });
    try {
      const err = await failure(webhookChannel.send({ url: `${peer.url}/h?token=t` }, {}, sampleMessage(), channelContext(guarded)));
      expect(err.code).toBe('outbound.refused');
      expect(err.options.transient).toBe(false);
      expect(err.message).not.toContain('token');
      expect(peer.requests).toHaveLength(0);
    } finally {
      guarded.close();
    }
  });
});

describe('validate', () => {
  const problems = (settings: Record<string, unknown>, allowed = false) => {
    try {
      webhookChannel.validate(settings, { allowsHost: () => allowed });
      return [];
    } catch (err) {
      return (err as DomainError).extras.errors ?? [{ field: '?', code: String(err) }];
    }
  };

  it('wants https unless the host is allowed', () => {
    expect(problems({ url: 'https://example.com/hook' })).toEqual([]);
    expect(problems({ url: 'http://example.com/hook' })).toEqual([expect.objectContaining({ field: 'settings.url', code: 'validation.format' })]);
    expect(problems({ url: 'http://receiver.internal/hook' }, true)).toEqual([]);
    expect(problems({ url: 'ftp://example.com/x' }, true)).toEqual([expect.objectContaining({ field: 'settings.url', code: 'validation.format' })]);
  });

  it('refuses headers Herald sets itself and names or values a request cannot carry', () => {
    const url = 'https://example.com/hook';
    expect(problems({ url, headers: { Authorization: 'Bearer x', 'X-Api-Key': 'k' } })).toEqual([]);
    for (const name of ['Host', 'content-length', 'Content-Type', 'webhook-id', 'Webhook-Signature', 'webhook-anything', 'bad name', 'x:y']) {
      expect(problems({ url, headers: { [name]: 'v' } })).toEqual([expect.objectContaining({ field: `settings.headers.${name}`, code: 'validation.invalid' })]);
    }
    expect(problems({ url, headers: { 'X-Evil': 'a\r\nHost: other' } })).toEqual([expect.objectContaining({ field: 'settings.headers.X-Evil' })]);
  });

  it('addresses only the channel when testing', () => {
    expect(webhookChannel.testTarget('someone@example.com')).toEqual({});
  });
});
