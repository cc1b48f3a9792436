/**
 * One delivery's send with its quick retries: transient failures (timeouts, connection errors,
 * 5xx, 429) are sent again after a wait with equal jitter, a bounded number of times; permanent
 * ones are not. A Retry-After longer than the longest quick wait, or a circuit that opened
 * meanwhile, ends the quick retries early: the attempt then waits for the automatic retry
 * schedule (nextRetry) instead of holding its worker. Every request is one entry of the
 * attempt's history, a request cut short by the signal included.
 */
import type { Clock } from '../../core/clock.js';
import type { AttemptSend } from '../channels/model.js';
import type { AttemptEnd } from '../channels/ports.js';
import { ChannelSendError, type ChannelMessage, type ChannelPlugin, type DeliveryTarget, type OutboundHttp, type OutboundRequest, type OutboundResponse } from '../plugins/channel.js';
import { RunCancelled, RunTimedOut } from '../runs/model.js';

/**
 * The wait before the retry that follows send number `sends`: the exponential step d (the base,
 * doubled each time, at most the policy's maximum), with equal jitter: d/2 plus a random part of
 * d/2, so retries spread out but never bunch at zero (full jitter once sent three requests within
 * 150 ms); a longer Retry-After is honoured up to the maximum. `random` is in [0, 1).
 */
export function retryDelay(policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, sends: number, retryAfterMs: number | null | undefined, random: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (sends - 1));
  return Math.min(policy.maxDelayMs, Math.max(step / 2 + random * (step / 2), retryAfterMs ?? 0));
}

/**
 * The automatic retry after an attempt's quick retries failed transiently: the schedule's next
 * wait (a longer Retry-After wins), unless the schedule is spent or the retry would come later
 * than `maxAgeMs` after the attempt was planned. Null: no automatic retry.
 */
export function nextRetry(schedule: { waitsMs: readonly number[]; maxAgeMs: number }, attempt: { retries: number; createdAt: Date },
  failure: { transient: boolean; retryAfterMs: number | null; notBefore?: number | null | undefined }, now: Date): { at: Date; retries: number } | null {
  if (!failure.transient || attempt.retries >= schedule.waitsMs.length) return null;
  const wait = Math.max(schedule.waitsMs[attempt.retries]!, failure.retryAfterMs ?? 0);
  const at = Math.max(now.getTime() + wait, failure.notBefore ?? 0);
  if (at - attempt.createdAt.getTime() > schedule.maxAgeMs) return null;
  return { at: new Date(at), retries: attempt.retries + 1 };
}

/** How a send with its quick retries ended: the attempt's end, and whether its failure is worth an automatic retry. */
export interface SendOutcome {
  end: Omit<AttemptEnd, 'finishedAt'>;
  /** The last failure was transient (a timeout, a connection error, 5xx, 429): the schedule may retry it. */
  transient: boolean;
  /** The peer's Retry-After on the last failure. */
  retryAfterMs: number | null;
}

/** What a send tells its channel's gate, and asks it between quick retries. */
export interface SendHooks {
  /** Each request's end: taken (true) or failed (false). */
  onSend?(ok: boolean): void | Promise<void>;
  /** Asked before each quick retry: false ends them (the channel's circuit opened meanwhile). */
  mayRetry?(): boolean | Promise<boolean>;
}

export interface RetryPolicy {
  /** Sends per attempt, the first included (SVC_DELIVERY_SENDS). */
  sends: number;
  /** The first retry's delay; each later one doubles, with equal jitter (SVC_DELIVERY_BACKOFF_MS; see retryDelay). */
  baseDelayMs: number;
  /** No single wait is longer (a longer Retry-After is cut to it). */
  maxDelayMs: number;
  /** One send's time limit. */
  sendTimeoutMs: number;
}

/** A delivery job's time limit passed while it sent: the attempt ends delivery.timeout (transient: retried on the schedule). */
export class DeliveryTimedOut extends Error {
  constructor(readonly limitMs: number) { super(`The delivery took longer than its limit of ${Math.round(limitMs / 1000)} s`); this.name = 'DeliveryTimedOut'; }
}

/** How a send cut short by the worker's shutdown shows in the attempt's history. */
const HANDED_BACK = { code: 'worker.shutdown', message: 'The worker stopped while this request was under way; the attempt was handed back to be sent again' };

/**
 * How an attempt whose send the signal stopped ends: failed with the run's reason when the run
 * was cancelled or ran out of time, delivery.timeout when its job did; undefined for any other
 * reason (the worker shutting down), when the attempt is handed back for the next try.
 */
export function stoppedBy(reason: unknown): { code: string; message: string } | undefined {
  if (reason instanceof DeliveryTimedOut) return { code: 'delivery.timeout', message: reason.message };
  if (reason instanceof RunCancelled) return { code: 'run.cancelled', message: 'The run was cancelled while this delivery was being sent' };
  if (reason instanceof RunTimedOut) return { code: 'run.timeout', message: 'The run reached its time limit while this delivery was being sent' };
  return undefined;
}

/**
 * The outbound client as one send's plugin sees it, noting the bytes of the bodies it writes and
 * the start of the last answer, for the send's entry in the attempt's history.
 */
function watched(http: OutboundHttp) {
  const seen = {
    bytes: null as number | null,
    excerpt: null as string | null,
    http: {
      ...http,
      agents: (url?: string) => http.agents(url),
      allowsHost: (url: string) => http.allowsHost(url),
      async request(req: OutboundRequest, signal: AbortSignal): Promise<OutboundResponse> {
        seen.bytes = (seen.bytes ?? 0) + (req.body === undefined ? 0 : Buffer.byteLength(req.body));
        const res = await http.request(req, signal);
        const said = res.body.replace(/\s+/g, ' ').trim().slice(0, 200);
        seen.excerpt = said === '' ? null : said;
        return res;
      },
    } satisfies OutboundHttp,
  };
  return seen;
}

export function createSendWithRetries(deps: {
  retry: RetryPolicy; http: OutboundHttp; clock: Clock; sleep(ms: number, signal: AbortSignal): Promise<void>;
}) {
  /**
   * One send with its retries; answers how the attempt ends. `made.sends` counts the requests made
   * as they are made, so that a caller stopped by the signal knows how many reached the peer.
   */
  return async function sendWithRetries(plugin: ChannelPlugin, settings: Record<string, unknown>, target: DeliveryTarget,
    message: ChannelMessage, messageId: string, signal: AbortSignal, made: { sends: number; history: AttemptSend[] }, hooks: SendHooks = {}): Promise<SendOutcome> {
    let sends = 0;
    let last: ChannelSendError | undefined;
    for (;;) {
      signal.throwIfAborted();
      sends += 1;
      made.sends = sends;
      const at = deps.clock.now();
      const began = performance.now();
      const seen = watched(deps.http);
      const record = (statusCode: number | null, error: AttemptSend['error']) => made.history.push({
        at, durationMs: Math.round(performance.now() - began), statusCode, error, bytesSent: seen.bytes, responseExcerpt: seen.excerpt,
      });
      try {
        const outcome = await plugin.send(settings, target, message, {
          signal, timeoutMs: deps.retry.sendTimeoutMs, http: seen.http, messageId, now: () => deps.clock.now(),
        });
        record(outcome.statusCode, null);
        await hooks.onSend?.(true);
        return {
          end: { status: 'sent', sends, statusCode: outcome.statusCode, peerMessageId: outcome.peerMessageId, detail: outcome.detail, error: null, history: made.history },
          transient: false, retryAfterMs: null,
        };
      } catch (err) {
        if (signal.aborted) {
          record(null, stoppedBy(signal.reason) ?? HANDED_BACK);
          throw signal.reason;
        }
        last = err instanceof ChannelSendError ? err
          : new ChannelSendError('delivery.peer_error', `The channel failed: ${String((err as Error)?.message ?? err).slice(0, 300)}`, { transient: false });
        record(last.options.statusCode ?? null, { code: last.code, message: last.message });
        // Only a transient failure counts against the channel: a refusal (4xx) shows the receiver is up.
        await hooks.onSend?.(!last.options.transient);
        if (!last.options.transient || sends >= deps.retry.sends) break;
        // A Retry-After past the longest quick wait is the schedule's to honour, not this worker's.
        if ((last.options.retryAfterMs ?? 0) > deps.retry.maxDelayMs) break;
        if (hooks.mayRetry && !(await hooks.mayRetry())) break;
        await deps.sleep(retryDelay(deps.retry, sends, last.options.retryAfterMs, Math.random()), signal);
      }
    }
    return {
      end: {
        status: 'failed', sends, statusCode: last.options.statusCode ?? null, peerMessageId: null, detail: null,
        error: { code: last.code, message: last.message }, history: made.history,
      },
      transient: last.options.transient === true, retryAfterMs: last.options.retryAfterMs ?? null,
    };
  };
}
