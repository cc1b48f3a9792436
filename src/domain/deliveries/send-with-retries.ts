/**
 * One delivery's send with its retries: transient failures (timeouts, connection errors, 5xx,
 * 429 with Retry-After) are sent again after a wait with equal jitter, a bounded number of times;
 * permanent ones are not. Every request is one entry of the attempt's history, a request cut
 * short by the signal included.
 */
import type { Clock } from '../../core/clock.js';
import type { AttemptSend } from '../channels/model.js';
import type { AttemptEnd } from '../channels/ports.js';
import { ChannelSendError, type ChannelMessage, type ChannelPlugin, type DeliveryTarget, type OutboundHttp } from '../plugins/channel.js';
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

/** How a send cut short by the worker's shutdown shows in the attempt's history. */
const HANDED_BACK = { code: 'worker.shutdown', message: 'The worker stopped while this request was under way; the attempt was handed back to be sent again' };

/**
 * How an attempt whose send the signal stopped ends: failed with the run's reason when the run
 * was cancelled or ran out of time; undefined for any other reason (the worker shutting down, a
 * resend's job out of time), when the attempt is handed back for the next try.
 */
export function stoppedBy(reason: unknown): { code: string; message: string } | undefined {
  if (reason instanceof RunCancelled) return { code: 'run.cancelled', message: 'The run was cancelled while this delivery was being sent' };
  if (reason instanceof RunTimedOut) return { code: 'run.timeout', message: 'The run reached its time limit while this delivery was being sent' };
  return undefined;
}

export function createSendWithRetries(deps: {
  retry: RetryPolicy; http: OutboundHttp; clock: Clock; sleep(ms: number, signal: AbortSignal): Promise<void>;
}) {
  /**
   * One send with its retries; answers how the attempt ends. `made.sends` counts the requests made
   * as they are made, so that a caller stopped by the signal knows how many reached the peer.
   */
  return async function sendWithRetries(plugin: ChannelPlugin, settings: Record<string, unknown>, target: DeliveryTarget,
    message: ChannelMessage, messageId: string, signal: AbortSignal, made: { sends: number; history: AttemptSend[] }): Promise<Omit<AttemptEnd, 'finishedAt'>> {
    let sends = 0;
    let last: ChannelSendError | undefined;
    for (;;) {
      signal.throwIfAborted();
      sends += 1;
      made.sends = sends;
      const at = deps.clock.now();
      const began = performance.now();
      const record = (statusCode: number | null, error: AttemptSend['error']) =>
        made.history.push({ at, durationMs: Math.round(performance.now() - began), statusCode, error });
      try {
        const outcome = await plugin.send(settings, target, message, {
          signal, timeoutMs: deps.retry.sendTimeoutMs, http: deps.http, messageId, now: () => deps.clock.now(),
        });
        record(outcome.statusCode, null);
        return { status: 'sent', sends, statusCode: outcome.statusCode, peerMessageId: outcome.peerMessageId, detail: outcome.detail, error: null, history: made.history };
      } catch (err) {
        if (signal.aborted) {
          record(null, stoppedBy(signal.reason) ?? HANDED_BACK);
          throw signal.reason;
        }
        last = err instanceof ChannelSendError ? err
          : new ChannelSendError('delivery.peer_error', `The channel failed: ${String((err as Error)?.message ?? err).slice(0, 300)}`, { transient: false });
        record(last.options.statusCode ?? null, { code: last.code, message: last.message });
        if (!last.options.transient || sends >= deps.retry.sends) break;
        await deps.sleep(retryDelay(deps.retry, sends, last.options.retryAfterMs, Math.random()), signal);
      }
    }
    return {
      status: 'failed', sends, statusCode: last.options.statusCode ?? null, peerMessageId: null, detail: null,
      error: { code: last.code, message: last.message }, history: made.history,
    };
  };
}
