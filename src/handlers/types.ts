/**
 * The typed contract between openapi.yaml and the code: each operationId gets a handler whose
 * request and result types come from the generated document types, so a handler that returns a
 * body the document does not allow fails to compile.
 */
import type { components, operations } from '../generated/openapi.js';
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
  /** The svc_oidc cookie: binds a single sign-on flow to the browser that started it. */
  oidcFlowToken?: string | undefined;
  log: Log;
  /** Aborted when the client goes away before the answer is complete, or when the process drains. */
  signal: AbortSignal;
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

/** What every kind of answer may carry besides its content. */
interface AnswerExtras {
  headers?: Record<string, string>;
  cookies?: CookieToSet[];
}

/** A media type as the document declares it, optionally with parameters (`text/plain; version=0.0.4`). */
type MediaTypeOf<M extends string> = M | `${M}; ${string}`;

/** A JSON (or text) body, written whole. */
export interface BodyResult<S extends number = number, B = unknown, M extends string = string> extends AnswerExtras {
  status: S;
  body: B;
  contentType?: MediaTypeOf<M>;
  stream?: never;
  events?: never;
}

/** A declared status without content (204, 202 without a body). */
export interface EmptyResult<S extends number = number> extends AnswerExtras {
  status: S;
  body?: undefined;
  stream?: never;
  events?: never;
}

/** The bytes of a file, streamed: a Node Readable or any async iterable of Buffers. */
export type ByteSource = NodeJS.ReadableStream | AsyncIterable<Buffer | Uint8Array>;

/**
 * A file download, streamed to the client: the writer sets Content-Type, Content-Disposition
 * (RFC 6266, with filename* for names beyond ASCII) when a filename is given, and Content-Length
 * when the length is known; the source is destroyed when the client goes away.
 */
export interface FileResult<S extends number = number, M extends string = string> extends AnswerExtras {
  status: S;
  stream: ByteSource;
  contentType: MediaTypeOf<M>;
  /** The download name the browser proposes (Content-Disposition: attachment). */
  filename?: string;
  /** Bytes, when known in advance (Content-Length). */
  length?: number;
  /** 'inline' shows the file in the browser where it can; default 'attachment' (only with filename). */
  disposition?: 'attachment' | 'inline';
  body?: never;
  events?: never;
}

/** One server-sent event; `data` is sent as one line of JSON. */
export interface ServerSentEvent {
  event: string;
  id?: string | number;
  data: unknown;
}

/** An event source's iterator that can hand events straight to the writer (live-stream.ts). */
export type { FollowableEvents } from '../domain/events/live-stream.js';

/**
 * A server-sent event stream (text/event-stream). The writer flushes each event as it comes,
 * sends a comment line as heartbeat, calls the iterator's return() when the client goes away and
 * ends the stream (with a final `event: shutdown`) when the process drains. An event source that
 * waits on something should also stop on the request's ctx.signal.
 */
export interface EventStreamResult<S extends number = number> extends AnswerExtras {
  status: S;
  events: AsyncIterable<ServerSentEvent>;
  /** Milliseconds a client should wait before reconnecting (the `retry:` field). */
  retryMs?: number;
  body?: never;
  stream?: never;
}

type JsonMedia = 'application/json' | `application/${string}+json`;

declare const jsonOf: unique symbol;

/**
 * A JSON body already serialised: the bytes of a B, as the writer would have made them (an answer
 * kept by its tag, src/handlers/answer-cache.ts). Made only by `jsonBytes`, so that no other
 * Buffer passes for a JSON body.
 */
export type JsonBytes<B> = Buffer & { readonly [jsonOf]: B };

/**
 * JSON documents that may also be streamed as a file, being too large to build in memory: a run's
 * whole result (GET /runs/{runId}/result?format=json). Every other JSON answer is a body.
 */
type StreamableJson = components['schemas']['ResultFile'];

/** The answers one declared media type allows: SSE for text/event-stream, files where the content is not JSON. */
type AnswersFor<S extends number, M extends string, B> =
  M extends 'text/event-stream' ? EventStreamResult<S>
    : M extends JsonMedia ? BodyResult<S, B | JsonBytes<B>, M> | (B extends string | StreamableJson ? FileResult<S, M> : never)
      : BodyResult<S, string | Buffer, M> & { contentType: MediaTypeOf<M> } | FileResult<S, M>;

type AnswersForStatus<S extends number, R> =
  R extends { content: infer C } ? { [M in keyof C & string]: AnswersFor<S, M, C[M]> }[keyof C & string] : EmptyResult<S>;

type ResponsesOf<O> = O extends { responses: infer R } ? R : never;

/**
 * Every answer an operation object allows: for each declared status, per declared media type, a
 * JSON body of its schema, a text body or a file stream where the content is not JSON, an event
 * stream where it is text/event-stream; nothing else.
 */
export type ResultFor<O> = {
  [S in Extract<keyof ResponsesOf<O>, number>]: AnswersForStatus<S, ResponsesOf<O>[S]>
}[Extract<keyof ResponsesOf<O>, number>];

/** A handler's answer: one of the statuses the document declares, with the content it declares. */
export type HandlerResult<K extends OperationId> = ResultFor<Op<K>>;

/** The untyped view of any handler's answer, for the response writer. */
export type AnyResult = BodyResult | EmptyResult | FileResult | EventStreamResult;

export type Handler<K extends OperationId> = (req: HandlerRequest<K>) => Promise<HandlerResult<K>>;

/** Marks an operation whose issue has not landed: it answers 501 not_implemented. */
export const NOT_IMPLEMENTED = Symbol('not_implemented');

export type HandlerMap = { [K in OperationId]: Handler<K> | typeof NOT_IMPLEMENTED };
