/** Types of `call`, derived from the generated `operations` of openapi.yaml. */
import type { components, operations } from './generated/schema.js';
import type { OperationId } from './generated/operations.js';

export type { OperationId };
export type Schemas = components['schemas'];

type Op<I extends OperationId> = operations[I];

/** path, query and header parameters as the contract declares them (never where it has none). */
type ParamsOf<O> = O extends { parameters: infer P } ? Omit<P, 'cookie'> : object;

type JsonBody<O> = O extends { requestBody?: { content: infer C } }
  ? C extends { 'application/json': infer B } ? B : C[keyof C]
  : never;

type BodyParam<O> = O extends { requestBody?: unknown }
  ? [NonNullable<O['requestBody']>] extends [never] ? { body?: never }
    : undefined extends O['requestBody'] ? { body?: JsonBody<O> } : { body: JsonBody<O> }
  : { body?: never };

/** The second argument of `call(operationId, params)`: {path, query, header, body} as the operation takes them. */
export type CallParams<I extends OperationId> = ParamsOf<Op<I>> & BodyParam<Op<I>>;

type ContentOf<R> = R extends { content: infer C }
  ? C extends { 'application/json': infer J } ? J : C[keyof C]
  : undefined;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;

/** The body of the operation's 2xx answer (undefined for 204). */
export type CallResult<I extends OperationId> = Op<I> extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? ContentOf<R[S]> : never }[keyof R]
  : never;

/** Operations whose 200 body is a cursor page: {items, next_cursor?}, taking a `cursor` query parameter. */
export type PaginatedOperationId = {
  [I in OperationId]: CallResult<I> extends { items: unknown[]; next_cursor?: unknown }
    ? Op<I> extends { parameters: { query?: { cursor?: unknown } } } ? I : never
    : never;
}[OperationId];

export type PageItem<I extends PaginatedOperationId> = CallResult<I> extends { items: Array<infer T> } ? T : never;

/** One event of GET /events, narrowed on `event`. */
export type HeraldEvent = Schemas['Event'];
export type Run = Schemas['Run'];
