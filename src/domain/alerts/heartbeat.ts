/**
 * The outbound heartbeat: while every readiness component is ok, the process that holds the
 * operations lease calls the heartbeat URL at its interval (up to 10 % sooner, so that fleets do
 * not call in step), through the outbound guard with a short timeout; while a component is
 * unhealthy it stops calling, and calls the fail URL once (when set) with the reason, so an
 * external monitor (healthchecks.io, Uptime Kuma, Dead Man's Snitch) alerts when Herald is down
 * or stuck. When the store itself is down nothing runs at all, which the monitor sees as silence.
 * Its status (last success, last error, next call) is kept for GET /settings/alerts. Errors never
 * carry the URL (it often holds a token).
 */
import type { Clock } from '../../core/clock.js';
import { ChannelSendError, type OutboundHttp } from '../plugins/channel.js';
import type { Log } from '../../core/log.js';
import type { AlertSettings, HeartbeatMethod, HeartbeatStatus, HeartbeatTargets } from './model.js';
import type { OpsStatusRepo } from './ports.js';

/** One call's time limit. */
export const HEARTBEAT_TIMEOUT_MS = 10_000;

export interface CallResult { ok: boolean; status: number | null; error: { code: string; message: string } | null; elapsedMs: number }

const OFF: HeartbeatStatus = { state: 'off', lastSuccessAt: null, lastError: null, lastErrorAt: null, nextCallAt: null };

export function createHeartbeat(deps: { status: OpsStatusRepo; http: OutboundHttp; clock: Clock; log: Log; random?: () => number }) {
  const random = deps.random ?? Math.random;

  async function call(url: string, method: HeartbeatMethod, body?: string): Promise<CallResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const res = await deps.http.request({
        method, url, timeoutMs: HEARTBEAT_TIMEOUT_MS, refuseCrossOrigin: true,
        ...(method === 'POST' ? { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: body ?? 'ok' } : {}),
      }, AbortSignal.timeout(HEARTBEAT_TIMEOUT_MS + 1000));
      if (res.status >= 200 && res.status < 400) return { ok: true, status: res.status, error: null, elapsedMs: elapsed() };
      return { ok: false, status: res.status, error: { code: 'heartbeat.failed', message: `The heartbeat URL answered HTTP ${res.status}` }, elapsedMs: elapsed() };
    } catch (err) {
      const e = err instanceof ChannelSendError ? { code: err.code, message: err.message }
        : { code: 'heartbeat.failed', message: 'The heartbeat URL could not be called' };
      return { ok: false, status: null, error: e, elapsedMs: elapsed() };
    }
  }

  return {
    call,

    /**
     * One beat of the operations tick: calls when due and healthy; stops (and calls the fail URL
     * once) when not. Answers the status it recorded.
     */
    async tick(now: Date, settings: AlertSettings, targets: HeartbeatTargets, health: { healthy: boolean; reason: string | null }): Promise<HeartbeatStatus> {
      const hb = settings.heartbeat;
      const before = (await deps.status.heartbeat()) ?? OFF;
      if (!hb || !targets.url) {
        if (before.state !== 'off') await deps.status.putHeartbeat({ ...before, state: 'off', nextCallAt: null, failCalled: false }, now);
        return { ...before, state: 'off', nextCallAt: null };
      }
      if (!health.healthy) {
        if (before.state === 'stopped' && before.failCalled) return before;
        let next: HeartbeatStatus = { ...before, state: 'stopped', nextCallAt: null, failCalled: before.state === 'stopped' ? before.failCalled ?? false : false };
        if (targets.failUrl && !next.failCalled) {
          const r = await call(targets.failUrl, 'POST', `Herald is unhealthy: ${health.reason ?? 'a readiness component is unhealthy'}`);
          next = { ...next, failCalled: true, ...(r.ok ? {} : { lastError: `fail URL: ${r.error?.message ?? 'failed'}`, lastErrorAt: now }) };
        }
        deps.log.warn('heartbeat stopped: the instance is unhealthy', { reason: health.reason });
        await deps.status.putHeartbeat(next, now);
        return next;
      }
      // Not due yet, unless the interval was shortened since the next call was set.
      const wait = before.nextCallAt ? before.nextCallAt.getTime() - now.getTime() : 0;
      if (before.state === 'calling' && wait > 0 && wait <= hb.intervalSeconds * 1000) return before;
      if (before.state === 'stopped') deps.log.info('heartbeat resumed: the instance is healthy again');
      const r = await call(targets.url, hb.method);
      const nextCallAt = new Date(now.getTime() + Math.round(hb.intervalSeconds * 1000 * (1 - 0.1 * random())));
      const next: HeartbeatStatus = r.ok
        ? { ...before, state: 'calling', lastSuccessAt: now, nextCallAt, failCalled: false }
        : { ...before, state: 'calling', lastError: r.error?.message ?? 'failed', lastErrorAt: now, nextCallAt, failCalled: false };
      if (!r.ok) deps.log.warn('heartbeat call failed', { code: r.error?.code, status: r.status });
      await deps.status.putHeartbeat(next, now);
      return next;
    },
  };
}

export type Heartbeat = ReturnType<typeof createHeartbeat>;
