/**
 * The first step of every request: its id (X-Request-ID), and once it is answered (or abandoned by
 * the client) its log line and its metrics sample.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { OperationId } from '../generated/operations.js';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../infra/log/logger.js';
import { onAbort } from '../core/abort.js';

/** What the edge knows of a request as it goes (res.locals). */
export interface Locals {
  requestId: string;
  operationId?: OperationId;
  route?: string;
  userId?: string;
}

export const localsOf = (res: Response) => res.locals as Locals;

/** One request, with labels of bounded cardinality (operation: an operationId, "page", "options" or "unmatched"). */
export interface RequestDone {
  operation: string;
  method: string;
  status: number;
  seconds: number;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * A request's own id: 80 random bits drawn once per process, then a counter, in the shape of a
 * UUID (8-4-4-4-12 hex digits). Unique across processes (the random part) and within one (the
 * counter), at a fraction of a random UUID's cost per request; not secret, as no request id is.
 */
const ID_PREFIX = (() => {
  const h = randomBytes(10).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-`;
})();
let idCounter = 0;
export function newRequestId(): string {
  idCounter = (idCounter + 1) % 0x1000000000000;
  return ID_PREFIX + idCounter.toString(16).padStart(12, '0');
}
const METRIC_METHODS = new Set(['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE', 'OPTIONS']);
const QUIET_OPERATIONS = new Set<string>(['getLiveness', 'getReadiness', 'getMetrics']);

/** The route a served page matched in its express router (e.g. /docs/errors/:code), if any. */
function pageRouteOf(req: Request): string | undefined {
  const p = (req as { route?: { path?: string | string[] } }).route?.path;
  return Array.isArray(p) ? p[0] : p;
}

/** The metric label of a request: never the raw path, so a scan of random paths adds no series. */
function operationLabel(req: Request, res: Response, pageRoute: string | undefined): string {
  const { operationId } = localsOf(res);
  if (operationId) return operationId;
  if (req.method === 'OPTIONS' && res.statusCode === 204) return 'options';
  return pageRoute !== undefined ? 'page' : 'unmatched';
}

/** The request's id: the caller's X-Request-ID when it is a sensible one, else a new one. */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newRequestId();
}

/** What is known of a request when its answer is done: its log line (at its level) and metrics. */
export interface RequestReport {
  requestId: string;
  method: string;
  operationId: string | undefined;
  route: string | undefined;
  /** The metric label (operationLabel). */
  operation: string;
  userId: string | undefined;
  status: number;
  seconds: number;
  aborted: boolean;
}

/** The log line of a finished request (only built when its level is on) and its metrics. */
export function reportRequest(logger: Logger, onRequestDone: ((info: RequestDone) => void) | undefined, r: RequestReport): void {
  const quiet = r.operationId !== undefined && QUIET_OPERATIONS.has(r.operationId) && r.status < 400;
  // 501 (not built yet) and 503 from the readiness probe are answers, not faults.
  const expected = r.status === 501 || (r.operationId === 'getReadiness' && r.status === 503);
  const level = quiet ? 'debug' : expected ? 'warn' : r.status >= 500 ? 'error' : 'info';
  // A line below the level is not even built.
  if (logger.isLevelEnabled(level)) {
    logger.log(level, 'http request', {
      request_id: r.requestId, method: r.method, route: r.route ?? 'unmatched', operation_id: r.operationId,
      status: r.status, duration_ms: Math.round(r.seconds * 1000), user_id: r.userId,
      ...(r.aborted ? { aborted: true } : {}),
    });
  }
  onRequestDone?.({ operation: r.operation, method: METRIC_METHODS.has(r.method) ? r.method : 'OTHER', status: r.status, seconds: r.seconds });
}

export function requestLog(logger: Logger, onRequestDone: ((info: RequestDone) => void) | undefined): RequestHandler {
  return (req, res, next) => {
    const requestId = requestIdOf(req);
    localsOf(res).requestId = requestId;
    res.setHeader('X-Request-ID', requestId);
    const started = process.hrtime.bigint();
    let reported = false;
    // 'finish': the answer is complete; 'close' without it: the client went away first.
    const done = () => {
      if (reported) return;
      reported = true;
      const { operationId, route, userId } = localsOf(res);
      const pageRoute = route ?? pageRouteOf(req);
      reportRequest(logger, onRequestDone, {
        requestId, method: req.method, operationId, route: pageRoute, operation: operationLabel(req, res, pageRoute), userId,
        status: res.statusCode, seconds: Number(process.hrtime.bigint() - started) / 1e9, aborted: !res.writableFinished,
      });
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

/**
 * What a 401 asks for (RFC 9110 §11.6.1): API keys as bearer tokens (RFC 6750, with
 * error="invalid_token" when one was sent and refused), and browser sessions as the cookie set by
 * signing in (the Cookie scheme of draft-broyer-http-cookie-auth); /metrics wants its own token.
 */
export function challengeOf(operationId: string | undefined, authorization: string | undefined): string {
  const invalid = authorization !== undefined && /^Bearer\s/i.test(authorization) ? ', error="invalid_token"' : '';
  if (operationId === 'getMetrics') return `Bearer realm="herald-metrics"${invalid}`;
  return `Bearer realm="herald"${invalid}, Cookie realm="herald", form-action="/api/v1/auth/login", cookie-name="svc_session"`;
}

/** A handler's ctx.signal (made when the handler first asks for it): aborted when the client leaves before the answer is complete, or when the process drains. */
export function requestSignal(res: Response, shutdown: AbortSignal | undefined): AbortSignal {
  const controller = new AbortController();
  const abort = () => controller.abort();
  // Asked for late (it is made on first use): the client may have gone already, and 'close' will
  // not come again (listeners added now would stay on the shutdown signal for good).
  if ((res.destroyed || res.closed) && !res.writableFinished) { abort(); return controller.signal; }
  const stopWatching = shutdown ? onAbort(shutdown, abort) : undefined;
  res.on('close', () => {
    stopWatching?.();
    if (!res.writableFinished) abort();
  });
  return controller.signal;
}
