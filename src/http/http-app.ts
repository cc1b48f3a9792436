/**
 * The HTTP edge: express → openapi-backend routing → access → request validation → typed handler
 * → one response writer. Errors from anywhere become problem documents.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { OpenAPIBackend, Context } from 'openapi-backend';
import type { ErrorObject } from 'ajv';
import { operationMeta, type OperationId } from '../generated/operations.js';
import { NOT_IMPLEMENTED, type AnyResult, type HandlerMap, type HandlerRequest, type RequestContext } from '../handlers/types.js';
import type { Authenticator } from '../domain/identity/principal.js';
import { DomainError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Logger } from '../infra/log/logger.js';
import { buildProblem, sendProblem } from './problem.js';
import { enforceAccess } from './access.js';
import { toFieldProblems } from '../infra/validation/ajv-errors.js';
import { docsRouter } from './docs.js';
import { documentedCodes, isProblemCode } from '../handlers/error-status.js';
import { pagesRouter } from './pages.js';
import { isRedisUnavailable } from '../infra/queue/queues.js';

export interface HttpAppDeps {
  publicUrl: string;
  /** Proxies whose X-Forwarded-For names the client (SVC_TRUST_PROXY). */
  trustProxy: string[] | false;
  api: OpenAPIBackend;
  handlers: HandlerMap;
  authenticator: Authenticator;
  logger: Logger;
  spec: { yaml: string; json: string };
  bodyLimit?: string;
  /** When given, the only operations served; every other path answers 404 (a probe listener). */
  only?: ReadonlySet<string>;
  /** Called once per finished request, e.g. to feed metrics. */
  onRequestDone?: (info: { operationId: string | undefined; status: number; seconds: number }) => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const ROUTED_METHODS = ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'];
/** HEAD is answered as GET without the body (express leaves the body out). */
const routingMethod = (method: string) => (method === 'HEAD' ? 'GET' : method);
const QUIET_OPERATIONS = new Set<string>(['getLiveness', 'getReadiness', 'getMetrics']);
const STORE_DOWN = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED',
  'CONNECTION_ENDED', 'CONNECTION_DESTROYED', '57P01', '57P03', '53300',
  '57014', // statement timeout: the store is too slow right now
]);

interface Locals {
  requestId: string;
  operationId?: OperationId;
  route?: string;
  userId?: string;
}

const localsOf = (res: Response) => res.locals as Locals;

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

/** The route a served page matched in its express router (e.g. /docs/errors/:code), if any. */
function pageRouteOf(req: Request): string | undefined {
  const p = (req as { route?: { path?: string | string[] } }).route?.path;
  return Array.isArray(p) ? p[0] : p;
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

  const problem = (res: Response, code: string, detail?: string, extras: DomainError['extras'] = {}) =>
    sendProblem(res, buildProblem(errorsBase, localsOf(res).requestId, code, detail, extras), extras.retryAfterSeconds);

  // 1. Request id and the request log line.
  app.use((req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newId();
    localsOf(res).requestId = requestId;
    res.setHeader('X-Request-ID', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const { operationId, route, userId } = localsOf(res);
      const quiet = operationId !== undefined && QUIET_OPERATIONS.has(operationId) && res.statusCode < 400;
      // 501 (not built yet) and 503 from the readiness probe are answers, not faults.
      const expected = res.statusCode === 501 || (operationId === 'getReadiness' && res.statusCode === 503);
      const level = quiet ? 'debug' : expected ? 'warn' : res.statusCode >= 500 ? 'error' : 'info';
      deps.logger.log(level, 'http request', {
        request_id: requestId, method: req.method, route: route ?? pageRouteOf(req) ?? 'unmatched', operation_id: operationId,
        status: res.statusCode, duration_ms: Math.round(seconds * 1000), user_id: userId,
      });
      deps.onRequestDone?.({ operationId, status: res.statusCode, seconds });
    });
    next();
  });

  // 2. The description, Swagger UI and error pages.
  if (!deps.only) {
    app.use(docsRouter(deps.spec, documentedCodes));
    app.use(pagesRouter());
  }

  // 3. The operation, known before the body is read: its route names the request's log line
  //    whatever happens next, and a body sent to no operation is answered by routing (404/405).
  const matchOperation = (method: string, path: string) =>
    deps.api.router.matchOperation({ method: routingMethod(method), path, headers: {} }) as { operationId?: string; path: string } | undefined;
  app.use((req, res, next) => {
    const op = matchOperation(req.method, req.path);
    if (op?.operationId && (!deps.only || deps.only.has(op.operationId))) {
      localsOf(res).operationId = op.operationId as OperationId;
      localsOf(res).route = op.path;
    }
    next();
  });

  // 4. Bodies: JSON only, bounded.
  app.use((req, res, next) => {
    if (localsOf(res).route === undefined) { next(); return; }
    if (!hasBody(req) || ['GET', 'HEAD', 'OPTIONS'].includes(req.method)) { next(); return; }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json' && !/^application\/[a-z0-9.+-]*\+json$/.test(type)) {
      problem(res, 'request.unsupported_media_type', 'Send the body with Content-Type: application/json');
      return;
    }
    next();
  });
  const parseJson = express.json({ limit: deps.bodyLimit ?? '1mb', strict: false, type: ['application/json', 'application/*+json'] });
  // Only a body sent to an operation is read; routing answers the rest (404/405) unread.
  app.use((req, res, next) => { if (localsOf(res).route === undefined) next(); else parseJson(req, res, next); });
  app.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') { problem(res, 'request.too_large', `The body exceeds ${deps.bodyLimit ?? '1mb'}`); return; }
    if (type === 'entity.parse.failed') { problem(res, 'request.malformed', 'The body is not valid JSON'); return; }
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      problem(res, 'request.unsupported_media_type', 'Send the body as UTF-8 JSON'); return;
    }
    next(err);
  });

  // 5. Routing, access, validation and the handler, all from openapi.yaml.
  const dispatch = async (context: Context, req: Request, res: Response): Promise<void> => {
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

    const validation = deps.api.validateRequest(context.request, context.operation);
    if (!validation.valid) {
      throw new DomainError('validation.failed', 'Some fields are not valid', {
        errors: toFieldProblems((validation.errors ?? []) as ErrorObject[]),
      });
    }
    const handler = deps.handlers[operationId];
    if (handler === NOT_IMPLEMENTED) {
      throw new DomainError('not_implemented', `${operationId} is declared in the contract but not built yet`);
    }
    const ctx: RequestContext = {
      requestId: locals.requestId,
      principal,
      ip: credentials.ip,
      userAgent: credentials.userAgent,
      sessionToken: credentials.sessionToken,
      deviceTokens: Object.fromEntries(Object.entries(cookies).filter(([name, v]) => name.startsWith('svc_device_') && !!v)) as Record<string, string>,
      log: deps.logger.child({ request_id: locals.requestId }),
    };
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const request = {
      params: validation.coerced.params ?? context.request.params,
      query: validation.coerced.query ?? context.request.query,
      body: req.body as unknown,
      headers,
      ctx,
    } as HandlerRequest<typeof operationId>;
    const result = await (handler as unknown as (r: typeof request) => Promise<AnyResult>)(request);
    await writeResult(res, result, deps.publicUrl.startsWith('https:'));
  };

  deps.api.register({
    notFound: (_c: Context, _req: Request, res: Response) => problem(res, 'not_found', 'There is nothing at this address'),
    methodNotAllowed: (_c: Context, req: Request, res: Response) => {
      const allowed = ROUTED_METHODS.filter((m) => {
        const op = matchOperation(m, req.path);
        return op?.operationId !== undefined && (!deps.only || deps.only.has(op.operationId));
      });
      if (allowed.length === 0) { problem(res, 'not_found', 'There is nothing at this address'); return; }
      if (allowed.includes('GET')) allowed.push('HEAD');
      res.setHeader('Allow', allowed.join(', '));
      problem(res, 'request.method_not_allowed', `This path accepts ${allowed.join(', ')}`);
    },
  });
  for (const operationId of Object.keys(operationMeta)) deps.api.register(operationId, dispatch);

  app.use(async (req, res, next) => {
    try {
      await deps.api.handleRequest(
        { method: routingMethod(req.method), path: req.path, query: req.query as Record<string, string>, headers: req.headers as Record<string, string>, body: req.body },
        req, res,
      );
    } catch (err) {
      next(err);
    }
  });

  // 6. Anything thrown becomes a problem document; a 500 says nothing beyond its request id.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) { res.destroy(); return; }
    if (err instanceof DomainError) {
      // A code the contract's catalogue does not list answers 500 (statusForCode); say why.
      if (!isProblemCode(err.code)) deps.logger.error('an error code missing from openapi.yaml x-problem-codes', { request_id: localsOf(res).requestId, code: err.code, err });
      problem(res, isProblemCode(err.code) ? err.code : 'internal', err.message, err.extras);
      return;
    }
    const code = errorCodeOf(err);
    if ((code && STORE_DOWN.has(code)) || isRedisUnavailable(err)) {
      deps.logger.error('a dependency is unavailable', { request_id: localsOf(res).requestId, err });
      problem(res, 'unavailable', undefined, { retryAfterSeconds: 5 });
      return;
    }
    deps.logger.error('unhandled error', { request_id: localsOf(res).requestId, err });
    problem(res, 'internal');
  });
  return app;
}

async function writeResult(res: Response, result: AnyResult, secureCookies: boolean): Promise<void> {
  if ('raw' in result) { await result.raw(res); return; }
  for (const cookie of result.cookies ?? []) {
    res.append('Set-Cookie', serializeCookie(cookie.name, cookie.value, {
      httpOnly: cookie.httpOnly, sameSite: 'lax', secure: secureCookies, path: cookie.path ?? '/', maxAge: cookie.maxAge,
    }));
  }
  for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
  res.status(result.status);
  if (result.body === undefined) { res.end(); return; }
  if (typeof result.body === 'string' || Buffer.isBuffer(result.body)) {
    res.type(result.contentType ?? 'text/plain').send(result.body);
    return;
  }
  // A final newline, so that a shell prompt after `curl` starts on its own line.
  res.type(result.contentType ?? 'application/json').send(`${JSON.stringify(result.body)}\n`);
}
