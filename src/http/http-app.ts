/**
 * The HTTP edge: express → openapi-backend routing → access → request validation → typed handler
 * → one response writer. Errors from anywhere become problem documents.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { parse as parseCookies } from 'cookie';
import type { OpenAPIBackend, Context, Document, Operation } from 'openapi-backend';
import type { ErrorObject } from 'ajv';
import { operationIds, operationMeta, type OperationId } from '../generated/operations.js';
import { NOT_IMPLEMENTED, type AnyResult, type HandlerMap, type HandlerRequest, type RequestContext } from '../handlers/types.js';
import type { Authenticator } from '../domain/identity/principal.js';
import { DomainError } from '../core/errors.js';
import type { Logger } from '../infra/log/logger.js';
import { buildProblem, sendProblem, type ProblemMembers } from './problem.js';
import { AccessDenied, enforceAccess } from './access.js';
import { toFieldProblems } from '../infra/validation/ajv-errors.js';
import { docsRouter, isDescriptionPath, servedDocument } from './docs.js';
import { documentedCodes, isProblemCode, statusForCode } from '../handlers/error-status.js';
import { pagesRouter } from './pages.js';
import { webUiRouter } from './web-ui.js';
import { sdkPackageRouter } from './sdk-package.js';
import { isRedisUnavailable } from '../infra/queue/queues.js';
import { SSE_HEARTBEAT_MS, conditionalAnswer, writeResult } from './respond.js';
import { callerOf } from '../handlers/entity-tags.js';
import { apiSecurityHeaders, pagePolicy, securityHeaders } from './security-headers.js';
import { livenessLane, probeContext } from './liveness-lane.js';
import { cors } from './cors.js';
import { inSequence } from './in-sequence.js';
import { ValidReads, type ValidParameters } from './valid-reads.js';
import { challengeOf, localsOf, requestLog, requestSignal, type RequestDone } from './request-log.js';

export type { RequestDone };

export interface HttpAppDeps {
  publicUrl: string;
  /** Proxies whose X-Forwarded-For names the client (SVC_TRUST_PROXY). */
  trustProxy: string[] | false;
  api: OpenAPIBackend;
  handlers: HandlerMap;
  authenticator: Authenticator;
  logger: Logger;
  /** openapi.yaml, parsed; served with this instance's address and its 501 operations marked. */
  document: Document;
  bodyLimit?: string;
  /** When given, the only operations served; every other path answers 404 (a probe listener). */
  only?: ReadonlySet<string>;
  /** Called once per finished (or abandoned) request, e.g. to feed metrics. */
  onRequestDone?: (info: RequestDone) => void;
  /** Aborted when the process drains: open event streams end (`event: shutdown`), so server.close() is not held up. */
  shutdownSignal?: AbortSignal;
  /** Milliseconds between heartbeat comments on event streams (default 15 s). */
  sseHeartbeatMs?: number;
  /** How long a download or event stream waits for a client that takes nothing before letting it go (default 60 s). */
  sendTimeoutMs?: number;
  /** SVC_CORS_ORIGINS: exact origins allowed to call the API from a browser; empty or absent: CORS off. */
  corsOrigins?: readonly string[];
  /** SVC_WEB_DIR: the built web UI, served at `/`; absent: the static pages. */
  webDir?: string | undefined;
  /** The packed SDK (herald-sdk.tgz) served at /sdk/herald-sdk.tgz; absent: that path answers 404. */
  sdkPackage?: string;
}

const ROUTED_METHODS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'];
/** Public operations without parameters or body that probes call often: answered before the rest (step 2b). */
const PROBE_LANE: readonly OperationId[] = ['getLiveness', 'getReadiness'];
/** HEAD is answered as GET without the body (express leaves the body out). */
const routingMethod = (method: string) => (method === 'HEAD' ? 'GET' : method);
const STORE_DOWN = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED',
  'CONNECTION_ENDED', 'CONNECTION_DESTROYED', '57P01', '57P02', '57P03', '53300',
  '57014', // statement timeout: the store is too slow right now
]);
/**
 * SQLSTATE class 08, connection exception: how a pooler in front of the store (PgBouncer: "server
 * conn crashed?", "pgbouncer cannot connect to server", 08P01) says that the store is away.
 */
const storeDown = (code: string | undefined): boolean => code !== undefined && (STORE_DOWN.has(code) || /^08[0-9A-Z]{3}$/.test(code));

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * The API key of the Authorization header. Another scheme (Basic from a proxy in front, say) is
 * no Herald credential: beside a session cookie it is ignored; alone it counts as a credential
 * that fails, so the caller learns it is not signed in.
 */
function bearerOf(req: Request, hasSession: boolean): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (m) return m[1];
  return hasSession ? undefined : header;
}

function errorCodeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown; cause?: { code?: unknown } })?.code ?? (err as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

export function createHttpApp(deps: HttpAppDeps): express.Express {
  const errorsBase = `${deps.publicUrl}/docs/errors`;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  app.set('query parser', 'simple');

  const problem = (res: Response, code: string, detail?: string, extras: DomainError['extras'] = {}, members?: ProblemMembers) => {
    if (statusForCode(code) === 401) res.setHeader('WWW-Authenticate', challengeOf(localsOf(res).operationId, res.req.headers.authorization));
    sendProblem(res, buildProblem(errorsBase, localsOf(res).requestId, code, detail, extras, members), extras.retryAfterSeconds);
  };
  const matchOperation = (method: string, path: string) =>
    deps.api.router.matchOperation({ method: routingMethod(method), path, headers: {} }) as Operation | undefined;
  /** The operation each request was routed to (step 4), so that it is routed once. */
  const routed = new WeakMap<Request, Operation>();
  /** The methods a path answers on this listener (HEAD wherever GET). */
  const methodsOf = (path: string): string[] => {
    const allowed = ROUTED_METHODS.filter((m) => {
      const op = matchOperation(m, path);
      return op?.operationId !== undefined && (!deps.only || deps.only.has(op.operationId));
    });
    if (allowed.includes('GET')) allowed.push('HEAD');
    return allowed;
  };

  // 0. GET/HEAD /health/live without a query, credentials or an Origin, ahead of everything
  //    (liveness-lane.ts: the same answer and headers, its log line and metrics).
  const apiHeaders = apiSecurityHeaders(deps.publicUrl);
  const liveness = !deps.only || deps.only.has('getLiveness')
    ? livenessLane({
      handler: deps.handlers.getLiveness, headers: apiHeaders, logger: deps.logger,
      onRequestDone: deps.onRequestDone, shutdownSignal: deps.shutdownSignal,
    })
    : undefined;
  if (liveness) app.use(liveness);

  // Steps 1 to 5 run as one layer of Express (in-sequence.ts), in this order.
  const steps: RequestHandler[] = [];

  // 1. Request id, the request log line and metrics.
  steps.push(requestLog(deps.logger, deps.onRequestDone));

  // 2. Security headers on every answer, and CORS (OPTIONS is answered there).
  steps.push(securityHeaders(apiHeaders));
  steps.push(cors({
    origins: deps.corsOrigins ?? [], methodsOf,
    notFound: (_req, res) => problem(res, 'not_found', 'There is nothing at this address'),
  }));

  // 2b. The probes (GET or HEAD /health/live and /health/ready, public, without parameters or
  //     body) answered here, through their handlers and the one response writer, with the headers
  //     above: the page routers, routing through the document, the body steps, request validation
  //     and access are of no use to them (issue 29: /health/live at 0.49x of bare Express spent
  //     most of its own time there). A probe that carries credentials (a cookie, an Authorization
  //     header) takes the ordinary way, so that every rule about credentials still applies to it.
  const probeLane = new Map<string, OperationId>();
  for (const id of PROBE_LANE) if (!deps.only || deps.only.has(id)) probeLane.set(operationMeta[id].path, id);
  steps.push((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.headers.cookie !== undefined || req.headers.authorization !== undefined) { next(); return; }
    const operationId = probeLane.get(req.path);
    if (operationId === undefined) { next(); return; }
    const handler = deps.handlers[operationId];
    if (handler === NOT_IMPLEMENTED) { next(); return; }
    const locals = localsOf(res);
    locals.operationId = operationId;
    locals.route = operationMeta[operationId].path;
    res.setHeader('Cache-Control', 'no-store');
    const ctx = probeContext(req, locals.requestId, deps.logger, deps.shutdownSignal);
    type ProbeRequest = HandlerRequest<'getLiveness' | 'getReadiness'>;
    (handler as unknown as (r: ProbeRequest) => Promise<AnyResult>)({ params: {}, query: {}, body: undefined, headers: {}, ctx } as ProbeRequest)
      .then((result) => writeResult(res, result, {
        secureCookies: false, head: req.method === 'HEAD', heartbeatMs: deps.sseHeartbeatMs ?? SSE_HEARTBEAT_MS, shutdown: deps.shutdownSignal,
        sendTimeoutMs: deps.sendTimeoutMs,
      }))
      .catch(next);
  });

  // 3. The description, Swagger UI, error pages and the SDK's package.
  //    An operation's path under /api/v1/ other than the description's two files goes past them
  //    without walking their routes (a dozen layers, each matched by a regular expression).
  if (!deps.only) {
    const notBuilt = new Set(operationIds.filter((id) => deps.handlers[id] === NOT_IMPLEMENTED));
    const policy = pagePolicy(deps.publicUrl);
    const pages = express.Router();
    pages.use(docsRouter(servedDocument(deps.document, deps.publicUrl, notBuilt), documentedCodes, policy));
    if (deps.webDir) pages.use(webUiRouter(deps.webDir, policy));
    pages.use(pagesRouter(policy));
    if (deps.sdkPackage) pages.use(sdkPackageRouter(deps.sdkPackage));
    steps.push((req, res, next) => {
      if (req.path.startsWith('/api/v1/') && !isDescriptionPath(req.path)) { next(); return; }
      pages(req, res, next);
    });
  }

  // 4. The operation, known before the body is read: its route names the request's log line
  //    whatever happens next, and a body sent to no operation is answered by routing (404/405).
  steps.push((req, res, next) => {
    const op = matchOperation(req.method, req.path);
    if (op?.operationId) routed.set(req, op);
    if (op?.operationId && (!deps.only || deps.only.has(op.operationId))) {
      localsOf(res).operationId = op.operationId as OperationId;
      localsOf(res).route = op.path;
    }
    next();
  });

  // 5. Bodies: JSON only, bounded.
  steps.push((req, res, next) => {
    if (localsOf(res).route === undefined) { next(); return; }
    if (!hasBody(req) || ['GET', 'HEAD', 'OPTIONS'].includes(req.method)) { next(); return; }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json' && !/^application\/[a-z0-9.+-]*\+json$/.test(type)) {
      problem(res, 'request.unsupported_media_type', 'Send the body with Content-Type: application/json');
      return;
    }
    next();
  });
  // An empty body (Content-Length: 0, or chunked with no bytes) is no body: body-parser would make it {}.
  const parseJson = express.json({
    limit: deps.bodyLimit ?? '1mb', strict: false, type: ['application/json', 'application/*+json'],
    verify: (req, _res, buf) => { if (buf.length === 0) (req as { emptyBody?: boolean }).emptyBody = true; },
  });
  // Only a body sent to an operation is read; routing answers the rest (404/405) unread.
  steps.push((req, res, next) => {
    // No body (most reads): nothing to parse, req.body stays undefined as the parser would leave it.
    if (localsOf(res).route === undefined || !hasBody(req)) { next(); return; }
    parseJson(req, res, (err?: unknown) => {
      if (!err && (req as { emptyBody?: boolean }).emptyBody) req.body = undefined;
      next(err);
    });
  });
  app.use(inSequence(steps));
  app.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') { problem(res, 'request.too_large', `The body exceeds ${deps.bodyLimit ?? '1mb'}`); return; }
    if (type === 'entity.parse.failed') { problem(res, 'request.malformed', 'The body is not valid JSON'); return; }
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      problem(res, 'request.unsupported_media_type', 'Send the body as UTF-8 JSON'); return;
    }
    next(err);
  });

  // 6. Routing, access, validation and the handler, all from openapi.yaml. A read's address
  //    validated before is not validated again (valid-reads.ts).
  const validReads = new ValidReads(deps.api.definition);
  const dispatch = async (context: Context, req: Request, res: Response, read?: { key: string; valid?: ValidParameters }): Promise<void> => {
    const operationId = context.operation.operationId as OperationId;
    if (deps.only && !deps.only.has(operationId)) throw new DomainError('not_found', 'This process serves its probes and metrics only');
    const meta = operationMeta[operationId];
    const locals = localsOf(res);
    locals.operationId = operationId;
    locals.route = meta.path;
    const cookies = parseCookies(req.headers.cookie ?? '');
    // Answers of the API are personal and may hold secrets shown once: never stored by caches.
    res.setHeader('Cache-Control', 'no-store');
    const sessionToken = cookies.svc_session || undefined;
    const credentials = {
      sessionToken,
      bearerToken: bearerOf(req, sessionToken !== undefined),
      ip: req.ip ?? req.socket.remoteAddress ?? '',
      userAgent: req.headers['user-agent'],
    };
    const csrf = req.headers['x-csrf-token'];
    const principal = await enforceAccess(deps.authenticator, {
      operationId, access: meta.access, method: meta.method, credentials,
      csrfHeader: typeof csrf === 'string' ? csrf : undefined,
    });
    if (principal) locals.userId = principal.user.id;

    // An operation not built yet answers 501 whatever the request carries (after access, before
    // validation): its request body is declared ahead of the feature.
    const handler = deps.handlers[operationId];
    if (handler === NOT_IMPLEMENTED) {
      throw new DomainError('not_implemented', `${operationId} is declared in the contract but not built yet`);
    }
    let valid = read?.valid;
    if (valid === undefined) {
      const validation = deps.api.validateRequest(context.request, context.operation);
      if (!validation.valid) {
        throw new DomainError('validation.failed', 'Some fields are not valid', {
          errors: toFieldProblems((validation.errors ?? []) as ErrorObject[]),
        });
      }
      valid = {
        params: (validation.coerced.params ?? context.request.params) as Record<string, unknown>,
        query: (validation.coerced.query ?? context.request.query) as Record<string, unknown>,
      };
      if (read) validReads.remember(read.key, valid);
    }
    let requestLogger: Logger | undefined;
    let signal: AbortSignal | undefined;
    const ctx: RequestContext = {
      requestId: locals.requestId,
      principal,
      ip: credentials.ip,
      userAgent: credentials.userAgent,
      sessionToken: credentials.sessionToken,
      deviceTokens: Object.fromEntries(Object.entries(cookies).filter(([name, v]) => name.startsWith('svc_device_') && !!v)) as Record<string, string>,
      oidcFlowToken: cookies.svc_oidc || undefined,
      // Made when a handler first logs: most requests never do.
      get log() { return (requestLogger ??= deps.logger.child({ request_id: locals.requestId })); },
      // Made when a handler first asks (streams, previews): most never do.
      get signal() { return (signal ??= requestSignal(res, deps.shutdownSignal)); },
    };
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const request = {
      params: valid.params,
      query: valid.query,
      body: req.body as unknown,
      headers,
      ctx,
    } as HandlerRequest<typeof operationId>;
    const answered = await (handler as unknown as (r: typeof request) => Promise<AnyResult>)(request);
    const result = meta.conditional ? conditionalAnswer(answered, [operationId, callerOf(ctx), req.originalUrl], headers['if-none-match']) : answered;
    const written = writeResult(res, result, {
      secureCookies: deps.publicUrl.startsWith('https:'), head: req.method === 'HEAD',
      heartbeatMs: deps.sseHeartbeatMs ?? SSE_HEARTBEAT_MS, shutdown: deps.shutdownSignal, sendTimeoutMs: deps.sendTimeoutMs,
    });
    if (result.events !== undefined && res.headersSent) {
      // An event stream lives as long as its client, hours maybe: once its headers are out it goes
      // on by itself, so that this request's frames, from routing, validation and access to here,
      // are not held as long by every open stream (a tenth of a stream's heap: 10,000 of them are
      // normal). A break after the first bytes ends as step 7 ends one: a cut connection. (One that
      // failed before its headers went out is awaited below: step 7 answers it with a problem.)
      written.catch((err: unknown) => {
        deps.logger.warn('an answer broke off after it started', { request_id: locals.requestId, err });
        res.destroy();
      });
      return;
    }
    await written;
  };

  deps.api.register({
    notFound: (_c: Context, _req: Request, res: Response) => problem(res, 'not_found', 'There is nothing at this address'),
    methodNotAllowed: (_c: Context, req: Request, res: Response) => {
      const allowed = methodsOf(req.path);
      if (allowed.length === 0) { problem(res, 'not_found', 'There is nothing at this address'); return; }
      res.setHeader('Allow', allowed.join(', '));
      problem(res, 'request.method_not_allowed', `This path accepts ${allowed.join(', ')}`);
    },
  });
  for (const operationId of Object.keys(operationMeta)) deps.api.register(operationId, dispatch);

  app.use(async (req, res, next) => {
    try {
      // A JSON string body goes to openapi-backend as its JSON text: it re-parses strings, and
      // would call a valid "text" body invalid JSON instead of the wrong type.
      const body: unknown = typeof req.body === 'string' ? JSON.stringify(req.body) : req.body;
      const operation = routed.get(req);
      const key = operation && req.body === undefined ? validReads.keyOf(operation, req.originalUrl, req.headers) : undefined;
      const valid = key === undefined ? undefined : validReads.get(key);
      if (operation && key !== undefined && valid !== undefined) {
        // A read of an address validated before: dispatched with what it was validated to.
        await dispatch({ api: deps.api, operation } as Context, req, res, { key, valid });
        return;
      }
      const request = { method: routingMethod(req.method), path: req.path, query: req.query as Record<string, string>, headers: req.headers as Record<string, string>, body };
      if (operation) {
        // Routed in step 4: parsed against that operation and dispatched, not routed again.
        await dispatch({ api: deps.api, operation, request: deps.api.router.parseRequest(request, operation) } as Context, req, res,
          key === undefined ? undefined : { key });
      } else {
        // No operation: openapi-backend tells 404 from 405.
        await deps.api.handleRequest(request, req, res);
      }
    } catch (err) {
      next(err);
    }
  });

  // 7. Anything thrown becomes a problem document; a 500 says nothing beyond its request id.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      // A stream broke after its first bytes: the client sees a cut connection, never a short answer.
      deps.logger.warn('an answer broke off after it started', { request_id: localsOf(res).requestId, err });
      res.destroy();
      return;
    }
    if (err instanceof DomainError) {
      // A code the contract's catalogue does not list answers 500 (statusForCode); say why.
      if (!isProblemCode(err.code)) deps.logger.error('an error code missing from openapi.yaml x-problem-codes', { request_id: localsOf(res).requestId, code: err.code, err });
      problem(res, isProblemCode(err.code) ? err.code : 'internal', err.message, err.extras, err instanceof AccessDenied ? err.members : undefined);
      return;
    }
    const code = errorCodeOf(err);
    if (storeDown(code) || isRedisUnavailable(err)) {
      deps.logger.error('a dependency is unavailable', { request_id: localsOf(res).requestId, err });
      problem(res, 'unavailable', undefined, { retryAfterSeconds: 5 });
      return;
    }
    deps.logger.error('unhandled error', { request_id: localsOf(res).requestId, err });
    problem(res, 'internal');
  });
  return app;
}
