/** The errors the SDK throws: a problem answer (HeraldError), a run that failed, a wait that ran out. */
import type { components } from './generated/schema.js';
import type { ProblemCode } from './generated/operations.js';

export type Problem = components['schemas']['Problem'];
export type FieldError = components['schemas']['FieldError'];
export type Run = components['schemas']['Run'];

/** Seconds from a Retry-After header (delay-seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/**
 * An answer that was not 2xx, with the problem document's fields. Match on `code` (the contract's
 * x-problem-codes), never on `title` or `detail`.
 */
export class HeraldError extends Error {
  override readonly name = 'HeraldError';
  readonly status: number;
  /** The problem's stable code; `unknown` when the answer was not a problem document. */
  readonly code: ProblemCode | 'unknown';
  readonly title: string;
  readonly detail: string | undefined;
  /** Per-field errors of a validation.failed problem. */
  readonly errors: FieldError[];
  /** X-Request-ID of the answer (or the problem's request_id): quote it when asking for help. */
  readonly requestId: string | undefined;
  /** Retry-After of a 429 or 503, in seconds. */
  readonly retryAfterSeconds: number | undefined;
  /** The problem document as sent, or the body text when it was not one. */
  readonly problem: Problem | undefined;
  readonly body: unknown;

  constructor(status: number, headers: Headers, body: unknown) {
    const problem = isProblem(body) ? body : undefined;
    const title = problem?.title ?? `HTTP ${status}`;
    super(problem?.detail ? `${problem.code}: ${problem.detail}` : `${problem?.code ?? status}: ${title}`);
    this.status = status;
    this.code = (problem?.code as ProblemCode | undefined) ?? 'unknown';
    this.title = title;
    this.detail = problem?.detail;
    this.errors = problem?.errors ?? [];
    this.requestId = headers.get('x-request-id') ?? problem?.request_id;
    this.retryAfterSeconds = retryAfterSeconds(headers.get('retry-after'));
    this.problem = problem;
    this.body = body;
  }

  /** Builds the error from a fetch Response whose body has not been read. */
  static async from(response: Response): Promise<HeraldError> {
    const text = await response.text().catch(() => '');
    let body: unknown = text;
    try { body = text ? JSON.parse(text) : undefined; } catch { /* not JSON: keep the text */ }
    return new HeraldError(response.status, response.headers, body);
  }
}

function isProblem(body: unknown): body is Problem {
  return typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string'
    && typeof (body as { status?: unknown }).status === 'number';
}

/** runReport's run ended failed or cancelled; `run` is the finished run (GET /runs/{id}). */
export class RunFailedError extends Error {
  override readonly name = 'RunFailedError';
  constructor(readonly run: Run) {
    super(`run ${run.id} ended ${run.status}${run.error ? `: ${run.error.code}${run.error.message ? ` (${run.error.message})` : ''}` : ''}`);
  }
}

/** runReport's wait ran out before the run finished; `run` is its latest state. */
export class RunTimeoutError extends Error {
  override readonly name = 'RunTimeoutError';
  constructor(readonly run: Run, readonly timeoutMs: number) {
    super(`run ${run.id} is still ${run.status} after ${timeoutMs} ms`);
  }
}
