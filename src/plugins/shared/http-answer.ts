/**
 * How channel plugins read an HTTP peer's answer: 2xx is sent; 408, 429 and 5xx are transient
 * (retried, honouring Retry-After); any other status is a permanent refusal. Messages carry at
 * most 200 characters of the peer's answer and never the URL's path or query (a token may live
 * there).
 */
import { ChannelSendError, type ChannelContext, type OutboundResponse } from '../../domain/plugins/channel.js';

/**
 * The time left of a send's limit (ctx.timeoutMs, measured from this call), for each of its
 * requests: a send of several requests (Slack's upload flow) stays within one limit.
 */
export function timeBudget(ctx: Pick<ChannelContext, 'timeoutMs'>): () => number {
  const deadline = Date.now() + ctx.timeoutMs;
  return () => Math.max(1, deadline - Date.now());
}

/** Retry-After in ms (seconds or an HTTP date), or null. */
export function retryAfterMs(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** Throws ChannelSendError for an answer that is not a success. */
export function checkAnswer(res: OutboundResponse, peer: string, now: Date): void {
  if (res.status >= 200 && res.status < 300) return;
  const said = res.body.replace(/\s+/g, ' ').trim().slice(0, 200);
  const message = `${peer} answered HTTP ${res.status}${said ? `: ${said}` : ''}`;
  if (res.status === 408 || res.status === 429 || res.status >= 500) {
    throw new ChannelSendError('delivery.peer_error', message, {
      transient: true, statusCode: res.status, retryAfterMs: retryAfterMs(res.headers['retry-after'], now),
    });
  }
  throw new ChannelSendError('delivery.rejected', message, { transient: false, statusCode: res.status });
}

/** https, or plain http to a host SVC_OUTBOUND_ALLOW names (a self-hosted receiver). */
export function urlProblem(url: unknown, allowsHost: (url: string) => boolean): string | null {
  if (typeof url !== 'string') return null;
  let u: URL;
  try { u = new URL(url); } catch { return 'must be a URL'; }
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && allowsHost(url)) return null;
  return 'must be an https URL (plain http only to a host SVC_OUTBOUND_ALLOW names)';
}
