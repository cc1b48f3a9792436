/**
 * GET and HEAD /health/live answered first, before the rest of the edge (issue 29: the liveness
 * probe at >= 0.8x of a bare Express app serving the same bytes). Orchestrators ask it every few
 * seconds per instance; its answer never depends on the store, Redis or the caller.
 *
 * The answer is its handler's (getLiveness), with every header the edge gives an API answer: the
 * request id, the security headers, Cache-Control: no-store, the JSON content type; its log line
 * (debug, as a probe's) and its metrics are the ones requestLog writes. Written straight to the
 * socket: no middleware chain, no routing through the document, no ETag (an answer marked
 * no-store is never revalidated).
 *
 * A probe with a query string, credentials (a cookie, an Authorization header) or an Origin takes
 * the ordinary way, so that every rule about those still applies to it (the probe lane of
 * http-app.ts, CORS).
 */
import type { Request, RequestHandler } from 'express';
import type { Logger } from '../infra/log/logger.js';
import type { RequestDone } from './request-log.js';
import { localsOf, reportRequest, requestIdOf } from './request-log.js';
import { NOT_IMPLEMENTED, type HandlerMap, type HandlerRequest, type RequestContext } from '../handlers/types.js';

const neverAborted = new AbortController().signal;

/**
 * A public probe's request context: no principal, no session; its logger made on first use; its
 * signal the process's stop only (a probe's work is a few milliseconds: it is not stopped when
 * its client leaves).
 */
export function probeContext(req: Request, requestId: string, logger: Logger, shutdownSignal: AbortSignal | undefined): RequestContext {
  let log: Logger | undefined;
  return {
    requestId, principal: null, get ip() { return req.ip ?? req.socket.remoteAddress ?? ''; }, userAgent: req.headers['user-agent'],
    sessionToken: undefined, deviceTokens: {}, get log() { return (log ??= logger.child({ request_id: requestId })); },
    signal: shutdownSignal ?? neverAborted,
  };
}

export function livenessLane(deps: {
  handler: HandlerMap['getLiveness'];
  headers: ReadonlyArray<readonly [string, string]>;
  logger: Logger;
  onRequestDone: ((info: RequestDone) => void) | undefined;
  /** Aborted when the process stops (handlers that wait stop then); a probe's work is not stopped when its client leaves. */
  shutdownSignal?: AbortSignal | undefined;
}): RequestHandler | undefined {
  const handler = deps.handler;
  if (handler === NOT_IMPLEMENTED) return undefined;
  const route = '/health/live';
  return (req, res, next) => {
    if (req.url !== route || (req.method !== 'GET' && req.method !== 'HEAD')) { next(); return; }
    const h = req.headers;
    if (h.cookie !== undefined || h.authorization !== undefined || h.origin !== undefined) { next(); return; }
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req);
    const locals = localsOf(res);
    Object.assign(locals, { requestId, operationId: 'getLiveness', route });
    const ctx = probeContext(req, requestId, deps.logger, deps.shutdownSignal);
    handler({ params: {}, query: {}, body: undefined, headers: {}, ctx } as HandlerRequest<'getLiveness'>).then((result) => {
      // A final newline, as every JSON answer of the edge has.
      const body = Buffer.from(`${JSON.stringify(result.body)}\n`);
      res.statusCode = result.status;
      res.setHeader('X-Request-ID', requestId);
      for (const [name, value] of deps.headers) res.setHeader(name, value);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', body.length);
      res.end(req.method === 'HEAD' ? undefined : body);
      reportRequest(deps.logger, deps.onRequestDone, {
        requestId, method: req.method, operationId: 'getLiveness', route, operation: 'getLiveness', userId: undefined,
        status: res.statusCode, seconds: Number(process.hrtime.bigint() - started) / 1e9, aborted: false,
      });
    }, next);
  };
}
