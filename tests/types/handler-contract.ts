/**
 * Compile-time proof that handlers are bound to openapi.yaml: `make test` type-checks this file,
 * and each @ts-expect-error below must stay an error — if the typing loosened, tsc would fail on
 * the now-unused directive.
 */
import type { Handler, HandlerMap } from '../../src/handlers/types.js';
import { NOT_IMPLEMENTED } from '../../src/handlers/types.js';

export const fine: Handler<'getLiveness'> = async () => ({ status: 200, body: { status: 'ok' } });

// @ts-expect-error a body the document does not allow
export const wrongBody: Handler<'getLiveness'> = async () => ({ status: 200, body: { status: 'fine' } });

// @ts-expect-error a status the document does not declare
export const wrongStatus: Handler<'getLiveness'> = async () => ({ status: 201, body: { status: 'ok' } });

export const readsBody: Handler<'login'> = async (req) => {
  // @ts-expect-error a request field the document does not declare
  const unknownField: string = req.body.username;
  void unknownField;
  throw new Error('not called');
};

// @ts-expect-error a map without every operation
export const incomplete: HandlerMap = { getLiveness: NOT_IMPLEMENTED };

// ---- Typed streams: which operations may answer a file or an event stream -----------------------
import { Readable } from 'node:stream';
import type { HandlerResult, ResultFor, ServerSentEvent } from '../../src/handlers/types.js';

const bytes = Readable.from([Buffer.from('id\n')]);
async function* events(): AsyncGenerator<ServerSentEvent> { yield { event: 'run.updated', id: 1, data: { id: 'r1' } }; }

/** Operation shapes as openapi-typescript writes them, for contents no operation declares yet. */
interface CsvDownload { responses: { 200: { content: { 'text/csv': string; 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': string } } } }
interface EventStream { responses: { 200: { content: { 'text/event-stream': string } } } }

export const csvFile: ResultFor<CsvDownload> = { status: 200, stream: bytes, contentType: 'text/csv; charset=utf-8', filename: 'r.csv' };
export const xlsxFile: ResultFor<CsvDownload> = {
  status: 200, stream: bytes, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', length: 10,
};
// @ts-expect-error a file of a media type the operation does not declare
export const pdfFile: ResultFor<CsvDownload> = { status: 200, stream: bytes, contentType: 'application/pdf' };
// @ts-expect-error an event stream where the document declares none
export const csvEvents: ResultFor<CsvDownload> = { status: 200, events: events() };

export const sse: ResultFor<EventStream> = { status: 200, events: events(), retryMs: 3000 };
// @ts-expect-error a file where the document declares an event stream
export const sseFile: ResultFor<EventStream> = { status: 200, stream: bytes, contentType: 'text/event-stream' };
// @ts-expect-error a whole body where the document declares an event stream
export const sseBody: ResultFor<EventStream> = { status: 200, body: 'event: x\n\n' };

// JSON operations answer JSON only.
// @ts-expect-error no file where the document declares JSON
export const jsonFile: HandlerResult<'getLiveness'> = { status: 200, stream: bytes, contentType: 'application/json' };
// @ts-expect-error no event stream where the document declares JSON
export const jsonEvents: HandlerResult<'getLiveness'> = { status: 200, events: events() };
// @ts-expect-error one kind of answer at a time: a body beside a stream is refused
export const bodyAndStream: HandlerResult<'getLiveness'> = { status: 200, body: { status: 'ok' }, stream: bytes };

// getMetrics declares text/plain: a text body (its content type required) or a file of that type.
export const metricsText: HandlerResult<'getMetrics'> = { status: 200, body: '# TYPE x counter\n', contentType: 'text/plain; version=0.0.4; charset=utf-8' };
export const metricsFile: HandlerResult<'getMetrics'> = { status: 200, stream: bytes, contentType: 'text/plain' };
// @ts-expect-error a text body must say its declared type
export const metricsUntyped: HandlerResult<'getMetrics'> = { status: 200, body: '# TYPE x counter\n' };
// streamEvents declares text/event-stream: an event stream, and not a JSON body.
export const eventStream: HandlerResult<'streamEvents'> = { status: 200, events: events() };
// @ts-expect-error no JSON body where the document declares an event stream
export const eventsAsJson: HandlerResult<'streamEvents'> = { status: 200, body: { x: 1 } };

// Statuses without content take no body.
export const noContent: HandlerResult<'logout'> = { status: 204 };
// @ts-expect-error a body where the document declares none
export const noContentBody: HandlerResult<'logout'> = { status: 204, body: { x: 1 } };
