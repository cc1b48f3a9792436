/**
 * Outbound HTTP for channels (webhooks, chats, buckets): every request goes through agents that
 * check the address a name resolved to at connect time (request-filtering-agent), so a host name
 * that resolves to loopback, a private, link-local or metadata address is refused, and so is a
 * redirect to one. SVC_OUTBOUND_ALLOW names the exceptions: CIDRs or addresses (checked on the
 * resolved address) and host names (a request to that very name may reach a private address).
 *
 * Every request has a limit on inactivity (connecting, a stall of the upload, the wait for the
 * answer once the body is written: each at most its timeout) and a ceiling of 10 minutes; redirects are followed (at most 3, GET after 303, never from
 * https to http) under the same guard; a redirect to another origin carries only the headers the
 * request names as safe there (`crossOriginHeaders`), never its credentials. Answers are read
 * up to 64 KiB (or the request's `maxBodyBytes`).
 *
 * Connections are kept alive between requests, each idle one for at most 4 s (as undici does), or
 * less when the peer's Keep-Alive header announces less (Node's agent honours that hint only when
 * the agent has an idle time of its own). A peer may still close an idle connection at the moment
 * it is reused (its own idle limit, unannounced, as nginx's): a request whose reused connection is
 * reset at once, before any answer, goes again on another connection (Node's documented remedy,
 * `request.reusedSocket`), instead of failing as unreachable and waiting for the retry's backoff.
 * Only at once (within STALE_RESET_MS): that is the race with the peer's close; a reset that comes
 * later (a proxy dropping a long request) is a failure of the request, as before, and is not sent
 * again here (an AI provider's call or a single-use code must not be made twice). The agents' idle
 * time never limits a request: each sets its own timeout from the start, connecting included.
 *
 * This is the domain's OutboundHttp port (src/domain/plugins/channel.ts), handed to channel
 * plugins and to the OIDC client. Failures throw ChannelSendError: `outbound.refused` (not
 * transient), `delivery.timeout` and `delivery.unreachable` (transient). Messages never carry the URL's path or query, which may
 * hold a token (Slack and Teams webhook URLs do).
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { ChannelSendError } from '../../core/errors.js';
import type { OutboundHttp, OutboundRequest, OutboundResponse } from '../../domain/plugins/channel.js';

const MAX_BODY = 64 * 1024;
const MAX_REDIRECTS = 3;
/** The ceiling of one exchange, however it keeps moving. */
const MAX_EXCHANGE_MS = 10 * 60_000;
/** How long a kept-alive connection may sit idle before Herald closes it (undici's default). */
const IDLE_CONNECTION_MS = 4_000;
/** How many reused connections in a row a request may find reset before it counts as a failure. */
const MAX_STALE_CONNECTIONS = 3;
/** How soon after a request took a reused connection a reset counts as the peer's idle close. */
const STALE_RESET_MS = 1_000;

/** A request whose reused connection was reset before any answer: it may go again on another. */
class StaleConnection extends Error {
  constructor(readonly failure: ChannelSendError) {
    super(failure.message);
  }
}

import { originOf } from '../../core/urls.js';

export { originOf };

export interface OutboundHttpOptions {
  /** SVC_OUTBOUND_ALLOW: CIDRs, addresses and host names. */
  allow: readonly string[];
  /** Default time limit of a request. */
  timeoutMs?: number;
}

export function createOutboundHttp(options: OutboundHttpOptions): OutboundHttp & { close(): void } {
  const cidrs = options.allow.filter((item) => isIP(item.split('/')[0]!) !== 0);
  const hostNames = new Set(options.allow.filter((item) => isIP(item.split('/')[0]!) === 0).map((h) => h.toLowerCase()));
  const defaultTimeout = options.timeoutMs ?? 30_000;
  const filter = { allowIPAddressList: cidrs, allowPrivateIPAddress: false, allowMetaIPAddress: false, keepAlive: true, timeout: IDLE_CONNECTION_MS };
  const trustedOptions = { allowPrivateIPAddress: true, allowMetaIPAddress: true, keepAlive: true, timeout: IDLE_CONNECTION_MS };
  const guarded = { http: new RequestFilteringHttpAgent(filter), https: new RequestFilteringHttpsAgent(filter) };
  // Requests to a host name the allow-list names: private addresses allowed, metadata too (the admin said so).
  const trusted = {
    http: new RequestFilteringHttpAgent(trustedOptions),
    https: new RequestFilteringHttpsAgent(trustedOptions),
  };

  const hostOf = (url: string): string => {
    try {
      return new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
    } catch {
      return '';
    }
  };
  const allowsHost = (url: string): boolean => {
    const host = hostOf(url);
    if (!host) return false;
    if (hostNames.has(host)) return true;
    if (isIP(host) === 0) return false;
    // An address literal: allowed when it falls in an allowed CIDR (checked by the agent too).
    return cidrs.some((c) => c === host || (c.includes('/') && inCidr(host, c)));
  };
  const agentFor = (url: URL) => {
    const set = hostNames.has(url.hostname.toLowerCase()) ? trusted : guarded;
    return url.protocol === 'https:' ? set.https : set.http;
  };

  function once(req: OutboundRequest, url: URL, signal: AbortSignal, timeoutMs: number): Promise<OutboundResponse & { location?: string }> {
    return new Promise((resolve, reject) => {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        reject(new ChannelSendError('outbound.refused', `Only http and https URLs can be reached (${url.protocol})`, { transient: false }));
        return;
      }
      const lib = url.protocol === 'https:' ? https : http;
      const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
      const headers: Record<string, string> = { 'user-agent': 'Herald', ...(req.headers ?? {}) };
      if (body) headers['content-length'] = String(body.length);
      let settled = false;
      const done = (fn: () => void) => { if (!settled) { settled = true; clearTimeout(timer); signal.removeEventListener('abort', onAbort); fn(); } };
      const started = Date.now();
      let answered = false;
      // `timeout` here as well as setTimeout below: the agent applies it as the socket is assigned,
      // so the agents' idle time (IDLE_CONNECTION_MS) never limits the connecting (a slow lookup).
      const request = lib.request(url, { method: req.method, headers, agent: agentFor(url), timeout: timeoutMs }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        const limit = req.maxBodyBytes ?? MAX_BODY;
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < limit) chunks.push(chunk.subarray(0, limit - size));
          size += chunk.length;
        });
        res.on('end', () => done(() => {
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks).toString('utf8'), ...(res.headers.location ? { location: res.headers.location } : {}) });
        }));
        res.on('error', (err) => done(() => reject(failure(err, url))));
      });
      // Inactivity, not a total: connecting, each stretch of the upload while the peer reads, and
      // the wait for the answer after the body was written may each last `timeoutMs`, so a large
      // body read slowly is not cut off (and sent again) while it moves. A peer that trickles
      // forever still ends at MAX_EXCHANGE_MS.
      const seconds = Math.round(timeoutMs / 100) / 10;
      request.setTimeout(timeoutMs, () => {
        done(() => reject(new ChannelSendError('delivery.timeout', `${originOf(url.href)} was silent for ${seconds} s`, { transient: true })));
        request.destroy();
      });
      const timer = setTimeout(() => {
        done(() => reject(new ChannelSendError('delivery.timeout', `${originOf(url.href)} did not finish within ${MAX_EXCHANGE_MS / 60_000} min`, { transient: true })));
        request.destroy();
      }, Math.max(timeoutMs, MAX_EXCHANGE_MS));
      const onAbort = () => {
        done(() => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted')));
        request.destroy();
      };
      if (signal.aborted) { onAbort(); return; }
      signal.addEventListener('abort', onAbort, { once: true });
      request.on('error', (err: Error & { code?: string }) => done(() => {
        const reset = err.code === 'ECONNRESET' || err.code === 'EPIPE';
        const stale = request.reusedSocket && reset && !answered && !signal.aborted && Date.now() - started < STALE_RESET_MS;
        reject(stale ? new StaleConnection(failure(err, url)) : failure(err, url));
      }));
      request.end(body);
    });
  }

  /** What of a request's headers follows a redirect to another origin: only what it names as safe. */
  function crossOriginHeaders(req: OutboundRequest): Record<string, string> {
    const keep = new Set((req.crossOriginHeaders ?? ['content-type']).map((h) => h.toLowerCase()));
    return Object.fromEntries(Object.entries(req.headers ?? {}).filter(([name]) => keep.has(name.toLowerCase())));
  }

  /** `once`, sent again when the connection it reused was reset before any answer (see the top). */
  async function onFreshConnection(req: OutboundRequest, url: URL, signal: AbortSignal, timeoutMs: number): Promise<OutboundResponse & { location?: string }> {
    for (let stale = 0; ; stale++) {
      try {
        return await once(req, url, signal, timeoutMs);
      } catch (err) {
        if (!(err instanceof StaleConnection)) throw err;
        if (stale + 1 >= MAX_STALE_CONNECTIONS) throw err.failure;
      }
    }
  }

  async function request(req: OutboundRequest, signal: AbortSignal): Promise<OutboundResponse> {
    const timeoutMs = req.timeoutMs ?? defaultTimeout;
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      throw new ChannelSendError('outbound.refused', 'The destination is not a valid URL', { transient: false });
    }
    let current = req;
    for (let hop = 0; ; hop++) {
      const answer = await onFreshConnection(current, url, signal, timeoutMs);
      const { location, ...response } = answer;
      if (!location || ![301, 302, 303, 307, 308].includes(answer.status)) return response;
      if (hop >= MAX_REDIRECTS) return response;
      const next = new URL(location, url);
      if (url.protocol === 'https:' && next.protocol !== 'https:') {
        throw new ChannelSendError('outbound.refused', `${originOf(url.href)} redirected (HTTP ${answer.status}) to a plain http address`, { transient: false });
      }
      if (next.origin !== url.origin) {
        if (req.refuseCrossOrigin) {
          throw new ChannelSendError('outbound.refused', `${originOf(url.href)} redirected (HTTP ${answer.status}) to another address (${originOf(next.href)}), which this channel refuses`, { transient: false });
        }
        current = { ...current, headers: crossOriginHeaders(current) };
      }
      url = next;
      current = answer.status === 303 ? { ...current, method: 'GET', body: undefined } : current;
    }
  }

  return {
    request,
    /** Fresh guarded agents each call: an SDK that destroys its agents when done touches no one else's sockets. */
    agents: (url?: string) => {
      const options = url && hostNames.has(hostOf(url)) ? trustedOptions : filter;
      return { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) };
    },
    allowsHost,
    close() {
      for (const a of [guarded.http, guarded.https, trusted.http, trusted.https]) a.destroy();
    },
  };
}

function failure(err: Error & { code?: string }, url: URL): ChannelSendError {
  const origin = originOf(url.href);
  // request-filtering-agent's refusal: "DNS lookup <ip>(family:4, host:<name>) is not allowed. Because, It is private IP address."
  if (/is not allowed/i.test(err.message)) {
    return new ChannelSendError('outbound.refused', `${origin} resolves to an address Herald may not reach (loopback, private, link-local or metadata); SVC_OUTBOUND_ALLOW can allow it`, { transient: false });
  }
  if (err.code === 'ENOTFOUND') return new ChannelSendError('delivery.unreachable', `${origin}: the host name does not resolve`, { transient: true });
  const what = err.code ?? 'connection error';
  return new ChannelSendError('delivery.unreachable', `${origin} could not be reached (${what})`, { transient: true });
}

function inCidr(address: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  const a = toBits(address);
  const b = toBits(base!);
  if (!a || !b || a.length !== b.length) return false;
  return a.slice(0, bits) === b.slice(0, bits);
}

function toBits(address: string): string | undefined {
  if (isIP(address) === 4) return address.split('.').map((p) => Number(p).toString(2).padStart(8, '0')).join('');
  if (isIP(address) === 6) {
    const [head, tail] = address.split('::');
    const h = head ? head.split(':') : [];
    const t = tail !== undefined ? (tail ? tail.split(':') : []) : [];
    const groups = tail !== undefined ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
    if (groups.length !== 8) return undefined;
    return groups.map((g) => parseInt(g || '0', 16).toString(2).padStart(16, '0')).join('');
  }
  return undefined;
}
