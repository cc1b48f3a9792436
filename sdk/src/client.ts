/**
 * createClient: the openapi-fetch client (`raw`, every path typed) behind a retrying fetch, and the
 * hand-written layer on it: `call` by operationId, `paginate`, downloads, events and runReport.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/schema.js';
import { operationTable } from './generated/operations.js';
import { HeraldError } from './errors.js';
import { retryingFetch, type FetchLike, type RetryOptions } from './retry.js';
import { conditionalFetch, type EtagOptions } from './conditional.js';
import type { CallParams, CallResult, OperationId, PageItem, PaginatedOperationId } from './types.js';
import { download, type Download, type DownloadOptions } from './download.js';
import { events, type EventsOptions } from './events.js';
import { runReport, type FinishedRun, type RunReportOptions } from './run-report.js';
import type { HeraldEvent } from './types.js';

export const SDK_VERSION = '0.1.0';

export interface ClientOptions {
  /** Herald's address, e.g. https://herald.example.com (no /api/v1). */
  baseUrl: string;
  /** An API key (hk_…), sent as `Authorization: Bearer`. Without one, bring a `fetch` that sends cookies. */
  apiKey?: string;
  /** A fetch to use instead of the global one (cookies, proxies, tests). */
  fetch?: FetchLike;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Retries of 429, 503 and connection errors (default 3); false turns them off. */
  retry?: RetryOptions | false;
  /** Prepended to the User-Agent `herald-sdk/<version>`. */
  userAgent?: string;
  /**
   * Conditional GETs (default off): keep the JSON answers that carry an ETag (every list and
   * single resource) and ask again with If-None-Match; a 304 is answered from what was kept, as a 200.
   * `true` keeps up to 200 answers; `{max}` sets how many.
   */
  etags?: boolean | EtagOptions;
}

/** `params` may be left out where the operation takes nothing required. */
export type CallArgs<I extends OperationId> = object extends CallParams<I> ? [params?: CallParams<I>] : [params: CallParams<I>];

export interface HeraldClient {
  /** The openapi-fetch client: `raw.GET('/api/v1/runs/{runId}', {params: {path: {runId}}})`; answers {data, error, response}. */
  readonly raw: Client<paths>;
  /** Calls an operation by its operationId; resolves with the 2xx body or throws HeraldError. */
  call<I extends OperationId>(operationId: I, ...args: CallArgs<I>): Promise<CallResult<I>>;
  /** Every item of a cursor-paginated list, page after page (following next_cursor). */
  paginate<I extends PaginatedOperationId>(operationId: I, ...args: CallArgs<I>): AsyncIterableIterator<PageItem<I>>;
  /** GET /runs/{runId}/result as a stream, with the file name. */
  download(runId: string, options?: DownloadOptions): Promise<Download>;
  /** GET /r/{token} (a shared link) as a stream, with the file name. */
  downloadShared(token: string, options?: { formulaSafe?: boolean; signal?: AbortSignal }): Promise<Download>;
  /** The event stream, reconnecting with Last-Event-ID; ends when `signal` aborts. */
  events(options?: EventsOptions): AsyncIterableIterator<HeraldEvent>;
  /** Queues a run (with an Idempotency-Key) and, with `wait`, resolves once it finished. */
  runReport(reportId: string, options?: RunReportOptions): Promise<FinishedRun>;
  /** The fetch every request goes through (auth headers, retries). */
  readonly fetch: (url: string, init?: RequestInit) => Promise<Response>;
}

export function createClient(options: ClientOptions): HeraldClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = {
    'User-Agent': `${options.userAgent ? `${options.userAgent} ` : ''}herald-sdk/${SDK_VERSION}`,
    ...options.headers,
  };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  const inner: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  const retrying = retryingFetch(inner, options.retry);
  const fetcher = options.etags ? conditionalFetch(retrying, options.etags === true ? {} : options.etags) : retrying;
  const raw = createFetchClient<paths>({ baseUrl, headers, fetch: fetcher });

  const plainFetch = (url: string, init: RequestInit = {}) => {
    const h = new Headers(headers);
    new Headers(init.headers).forEach((v, k) => h.set(k, v));
    return fetcher(new Request(new URL(url, `${baseUrl}/`), { ...init, headers: h }));
  };

  type Requester = (method: string, path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const request = raw.request as unknown as Requester;

  async function call<I extends OperationId>(operationId: I, ...args: CallArgs<I>): Promise<CallResult<I>> {
    const meta = (operationTable as Record<string, { method: string; path: string } | undefined>)[operationId];
    if (!meta) throw new TypeError(`unknown operationId ${String(operationId)}`);
    const given = args[0] as { body?: unknown; path?: object; query?: object; header?: object } | undefined;
    const { body, ...params } = given ?? {};
    const { data, error, response } = await request(meta.method.toUpperCase(), meta.path, {
      params, ...(body === undefined ? {} : { body }),
    });
    if (!response.ok) throw new HeraldError(response.status, response.headers, error);
    return data as CallResult<I>;
  }

  async function* paginate<I extends PaginatedOperationId>(operationId: I, ...args: CallArgs<I>): AsyncIterableIterator<PageItem<I>> {
    const params = (args[0] ?? {}) as { query?: Record<string, unknown> };
    let cursor: string | undefined;
    do {
      const query = { ...params.query, ...(cursor === undefined ? {} : { cursor }) };
      const page = await (call as (id: string, p: object) => Promise<{ items: PageItem<I>[]; next_cursor?: string }>)(
        operationId, { ...params, query });
      yield* page.items;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  const client: HeraldClient = {
    raw,
    call,
    paginate,
    fetch: plainFetch,
    download: (runId, o) => download(plainFetch, `/api/v1/runs/${encodeURIComponent(runId)}/result`, o ?? {}),
    downloadShared: (token, o) => download(plainFetch, `/r/${encodeURIComponent(token)}`, o ?? {}),
    events: (o) => events(plainFetch, o ?? {}),
    runReport: (reportId, o) => runReport(client, reportId, o ?? {}),
  };
  return client;
}
