/**
 * Herald's svc_* metrics (runs, query rows, delivery sends, the queue, stored bytes, the
 * scheduler's lag, the build, and HTTP requests by operation), registered at start on a registry
 * of this process, plus the default runtime and process collectors. The code where each event
 * happens feeds its metric (svc_http_* the HTTP edge); the shared gauges read the store when
 * scraped.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface SharedGauges {
  /** Runs waiting for a worker, read from the shared store at scrape time. */
  queuePending(): Promise<number>;
  /** Bytes of stored artifacts, read from the shared store at scrape time. */
  storageBytes(): Promise<number>;
}

/**
 * A gauge read from a shared store at scrape time keeps its last value when the store does not
 * answer, so one unavailable dependency cannot take the whole scrape down.
 */
function readOr(read: () => Promise<number>, onError: (err: unknown) => void) {
  return async function collect(this: Gauge) {
    try {
      this.set(await read());
    } catch (err) {
      onError(err);
    }
  };
}

/** One answered request; operation is an operationId, "page", "options" or "unmatched" (bounded labels). */
export interface HttpRequestSample {
  operation: string;
  method: string;
  status: number;
  seconds: number;
}

/** From fast probes to slow reports and long downloads; event streams land in +Inf. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(version: string, shared: SharedGauges, onCollectError: (err: unknown) => void = () => undefined) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = {
    registry,
    runsTotal: new Counter({
      name: 'svc_runs_total', help: 'Finished runs', labelNames: ['status', 'trigger'] as const, registers: [registry],
    }),
    runDuration: new Histogram({
      name: 'svc_run_duration_seconds', help: 'Duration of finished runs, deliveries included',
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900], registers: [registry],
    }),
    queryRows: new Histogram({
      name: 'svc_query_rows', help: 'Rows returned by report queries',
      buckets: [0, 1, 10, 100, 1000, 10000, 100000, 1000000], registers: [registry],
    }),
    deliveriesTotal: new Counter({
      name: 'svc_deliveries_total', help: 'Delivery sends, one per send with its retries',
      labelNames: ['destination', 'status'] as const, registers: [registry],
    }),
    aiGenerationsTotal: new Counter({
      name: 'svc_ai_generations_total', help: 'AI assistant proposals asked for, by kind, provider (off for phrases alone) and outcome',
      labelNames: ['kind', 'provider', 'outcome'] as const, registers: [registry],
    }),
    deliveryDuration: new Histogram({
      name: 'svc_delivery_duration_seconds', help: 'Duration of delivery sends', labelNames: ['destination'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60], registers: [registry],
    }),
    queuePending: new Gauge({
      name: 'svc_queue_pending', help: 'Runs waiting for a worker', registers: [registry],
      collect: readOr(shared.queuePending, onCollectError),
    }),
    storageBytes: new Gauge({
      name: 'svc_storage_bytes', help: 'Bytes of stored artifacts', registers: [registry],
      collect: readOr(shared.storageBytes, onCollectError),
    }),
    schedulerLag: new Gauge({
      name: 'svc_scheduler_lag_seconds', help: 'How late the latest due run was queued', registers: [registry],
    }),
    buildInfo: new Gauge({
      name: 'svc_build_info', help: 'Always 1; the version is the label', labelNames: ['version'] as const, registers: [registry],
    }),
    answerCacheTotal: new Counter({
      name: 'svc_answer_cache_total', help: 'Lookups of kept read answers by their ETag: hit or miss; shared counts the misses answered by the bytes another request was making', labelNames: ['outcome'] as const, registers: [registry],
    }),
    httpRequestsTotal: new Counter({
      name: 'svc_http_requests_total', help: 'Answered HTTP requests by operation, method and status',
      labelNames: ['operation', 'method', 'status'] as const, registers: [registry],
    }),
    httpRequestDuration: new Histogram({
      name: 'svc_http_request_duration_seconds', help: 'Duration of HTTP requests, from arrival to the last byte of the answer',
      labelNames: ['operation', 'method', 'status'] as const, buckets: HTTP_BUCKETS, registers: [registry],
    }),
  };
  metrics.buildInfo.set({ version }, 1);
  /** Feeds svc_http_*; the HTTP edge calls it once per request (HttpAppDeps.onRequestDone). */
  const observeHttpRequest = (r: HttpRequestSample): void => {
    const labels = { operation: r.operation, method: r.method, status: String(r.status) };
    metrics.httpRequestsTotal.inc(labels);
    metrics.httpRequestDuration.observe(labels, r.seconds);
  };
  return { ...metrics, observeHttpRequest };
}

export type Metrics = ReturnType<typeof createMetrics>;
