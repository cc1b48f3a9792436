/**
 * The typed contract between openapi.yaml and the code: each operationId gets a handler whose
 * request and result types come from the generated document types, so a handler that returns a
 * body the document does not allow fails to compile.
 */
import type { Response } from 'express';
import type { operations } from '../generated/openapi.js';
import type { OperationId } from '../generated/operations.js';
import type { Principal } from '../domain/identity/principal.js';
import type { Log } from '../core/log.js';

type Op<K extends OperationId> = operations[K];

type ParamsOf<K extends OperationId, Where extends 'path' | 'query'> =
  Op<K>['parameters'] extends { [P in Where]?: infer T } ? ([T] extends [never] ? Record<string, never> : NonNullable<T>) : Record<string, never>;

type BodyOf<K extends OperationId> =
  Op<K> extends { requestBody: { content: { 'application/json': infer B } } } ? B
    : Op<K> extends { requestBody?: { content: { 'application/json': infer B } } } ? B | undefined
      : undefined;

type Responses<K extends OperationId> = Op<K>['responses'];
type StatusOf<K extends OperationId> = Extract<keyof Responses<K>, number>;
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : undefined;

/** Everything a handler may know of the caller and the request, already authenticated and validated. */
export interface RequestContext {
  requestId: string;
  principal: Principal | null;
  ip: string;
  userAgent: string | undefined;
  /** Raw credentials the edge read; handlers that sign in or out need the session token. */
  sessionToken: string | undefined;
  /** The svc_device_<account> cookies (proofs of earlier sign-ins from this browser), by name. */
  deviceTokens: Readonly<Record<string, string>>;
  log: Log;
}

export interface HandlerRequest<K extends OperationId> {
  params: ParamsOf<K, 'path'>;
  query: ParamsOf<K, 'query'>;
  body: BodyOf<K>;
  headers: Record<string, string | undefined>;
  ctx: RequestContext;
}

export interface CookieToSet {
  name: string;
  value: string;
  httpOnly: boolean;
  /** Seconds; 0 clears the cookie. */
  maxAge: number;
  /** Default / */
  path?: string;
}

/** A handler's answer: one of the statuses the document declares, with the body it declares. */
export type HandlerResult<K extends OperationId> = {
  [S in StatusOf<K>]: {
    status: S;
    body: ContentOf<Responses<K>[S]>;
    contentType?: string;
    headers?: Record<string, string>;
    cookies?: CookieToSet[];
  }
}[StatusOf<K>] | RawResult;

/** The untyped view of any handler's answer, for the response writer. */
export type AnyResult = {
  status: number;
  body: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  cookies?: CookieToSet[];
} | RawResult;

/** For streams and files: the handler writes the response itself. */
export interface RawResult {
  raw: (res: Response) => Promise<void> | void;
}

export type Handler<K extends OperationId> = (req: HandlerRequest<K>) => Promise<HandlerResult<K>>;

/** Marks an operation whose issue has not landed: it answers 501 not_implemented. */
export const NOT_IMPLEMENTED = Symbol('not_implemented');

export type HandlerMap = { [K in OperationId]: Handler<K> | typeof NOT_IMPLEMENTED };
