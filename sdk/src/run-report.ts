/**
 * runReport: queues a manual run with an Idempotency-Key (a new UUID unless given; the retries of
 * the request send the same one) and, with `wait`, follows the event stream until the run
 * finished (polling GET /runs/{id} every second if the stream fails, and every few seconds beside
 * it in case an event was missed), then answers the finished run.
 */
import { RunFailedError, RunTimeoutError } from './errors.js';
import type { HeraldClient } from './client.js';
import type { Run } from './types.js';

export interface RunReportOptions {
  /** Wait until the run finished (default false: resolve with the queued, pending run). */
  wait?: boolean;
  /** How long to wait (default 10 minutes); then RunTimeoutError. */
  timeoutMs?: number;
  /** False runs the query and condition and keeps the result, sending nothing (default true). */
  deliver?: boolean;
  /** Repeats within 24 hours with the same key answer the same run (default: a new UUID). */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Polling interval when the event stream fails (default 1000 ms). */
  pollIntervalMs?: number;
}

/** The run as GET /runs/{id} answers it; `partial` flags a run whose deliveries partly failed. */
export type FinishedRun = Run & { readonly partial: boolean };

/** A wait that ends early (resolving) when `signal` aborts, leaving no timer behind. */
function pause<T>(ms: number, value: T, signal: AbortSignal): Promise<T> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(value); };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}

const FINISHED = new Set(['success', 'partial', 'skipped', 'failed', 'cancelled']);

const finished = (run: Run): FinishedRun => {
  if (run.status === 'failed' || run.status === 'cancelled') throw new RunFailedError(run);
  return { ...run, partial: run.status === 'partial' };
};

export async function runReport(client: HeraldClient, reportId: string, options: RunReportOptions): Promise<FinishedRun> {
  const key = options.idempotencyKey ?? globalThis.crypto.randomUUID();
  const queue = () => client.call('runReport', {
    path: { reportId }, header: { 'Idempotency-Key': key }, ...(options.deliver === undefined ? {} : { body: { deliver: options.deliver } }),
  });
  if (!options.wait) {
    const run = await queue();
    return { ...run, partial: run.status === 'partial' };
  }
  const timeoutMs = options.timeoutMs ?? 600_000;
  const pollMs = options.pollIntervalMs ?? 1000;
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop.abort(new Error('timeout')), timeoutMs);
  const get = (id: string) => client.call('getRun', { path: { runId: id } });
  // The stream is opened before the run is queued, so that none of its events can come first.
  let opened!: () => void;
  const open = new Promise<void>((resolve) => { opened = resolve; });
  let streamUp = false;
  const stream = client.events({
    signal: stop.signal,
    onOpen: () => { streamUp = true; opened(); },
    onDrop: () => { streamUp = false; opened(); },
  });
  const firstEvent = stream.next();
  let streamFailed = false;
  firstEvent.catch(() => { streamFailed = true; opened(); });
  let latest: Run | undefined;
  try {
    const opening = new AbortController();
    await Promise.race([open, pause(2000, undefined, opening.signal)]);
    opening.abort();
    latest = await queue();
    const runId = latest.id;
    let pending: Promise<IteratorResult<unknown>> | undefined = streamFailed ? undefined : firstEvent;
    let lastPoll = 0;
    while (!stop.signal.aborted) {
      // Beside a working stream, a slow poll in case an event was missed; without one, every pollMs.
      const pollEvery = pending && streamUp ? 5 * pollMs : pollMs;
      if (Date.now() - lastPoll >= pollEvery) {
        latest = await get(runId);
        lastPoll = Date.now();
        if (FINISHED.has(latest.status)) return finished(latest);
      }
      const ticking = new AbortController();
      const wait = pause(pollEvery - (Date.now() - lastPoll), 'tick' as const, AbortSignal.any([ticking.signal, stop.signal]));
      const next = pending ? await Promise.race([pending.then((r) => r, () => 'failed' as const), wait]) : await wait;
      ticking.abort();
      if (next === 'tick') continue;
      if (next === 'failed' || next.done) { pending = undefined; continue; }
      const event = next.value as { event: string; data: { id?: string; status?: string } };
      pending = stream.next();
      if (event.event === 'run.updated' && event.data.id === runId && FINISHED.has(event.data.status ?? '')) lastPoll = 0;
    }
    if (options.signal?.aborted) throw options.signal.reason;
    throw new RunTimeoutError(latest, timeoutMs);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort();
    await stream.return?.(undefined).catch(() => undefined);
  }
}
