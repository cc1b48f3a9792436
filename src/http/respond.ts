/**
 * The one response writer: a handler's typed answer (JSON or text body, file stream, server-sent
 * event stream) onto the wire.
 */
import { Readable } from 'node:stream';
import type { Response } from 'express';
import { serialize as serializeCookie } from 'cookie';
import type { AnyResult, BodyResult, EmptyResult, EventStreamResult, FileResult, FollowableEvents, ServerSentEvent } from '../handlers/types.js';
import { entityTag, noneMatchHolds } from '../handlers/entity-tags.js';
import { jsonText } from '../handlers/answer-cache.js';
import { onAbort } from '../core/abort.js';

export interface WriteOptions {
  secureCookies: boolean;
  /** HEAD: headers as for GET, no content (sources are released unread). */
  head: boolean;
  /** Milliseconds between heartbeat comments on event streams. */
  heartbeatMs: number;
  /** Aborted when the process drains: open event streams end with `event: shutdown`. */
  shutdown?: AbortSignal;
  /**
   * Longest a file download or event stream waits for its client to take what was written before
   * it lets the client go (the connection is cut); default SEND_TIMEOUT_MS.
   */
  sendTimeoutMs?: number;
}

/** The default heartbeat: a comment line at least every 15 s keeps proxies from closing the stream. */
export const SSE_HEARTBEAT_MS = 15_000;

/**
 * How long a response waits for its client to take bytes already written (nginx's send_timeout):
 * a client that reads nothing for a minute (a laptop gone to sleep, a stuck consumer) is let go,
 * instead of holding its connection, its event stream's backlog or its download's file until the
 * kernel gives up on the peer, a quarter of an hour later. Reconnecting resumes an event stream
 * (Last-Event-ID) and a download starts again.
 */
export const SEND_TIMEOUT_MS = 60_000;

export async function writeResult(res: Response, result: AnyResult, options: WriteOptions): Promise<void> {
  for (const cookie of result.cookies ?? []) {
    res.append('Set-Cookie', serializeCookie(cookie.name, cookie.value, {
      httpOnly: cookie.httpOnly, sameSite: 'lax', secure: options.secureCookies, path: cookie.path ?? '/', maxAge: cookie.maxAge,
    }));
  }
  for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
  res.status(result.status);
  if (result.events !== undefined) { await writeEventStream(res, result as EventStreamResult, options); return; }
  if (result.stream !== undefined) { await writeFile(res, result as FileResult, options); return; }
  writeBody(res, result as BodyResult | EmptyResult);
}

/** A body's bytes as they go out: JSON with a final newline (a shell prompt after `curl` starts on its own line). */
export function bodyText(body: unknown): string | Buffer {
  return typeof body === 'string' || Buffer.isBuffer(body) ? body : jsonText(body);
}

/**
 * A conditional operation's answer (its contract declares 304): a 200 whose handler made no tag
 * of its own (the reports make theirs from the store's versions) is tagged from its bytes and
 * from `parts` (the operation, the caller, the address with its query), and answers 304 with no
 * body when If-None-Match names that tag. The body is serialised once, here.
 */
export function conditionalAnswer(result: AnyResult, parts: ReadonlyArray<string>, ifNoneMatch: string | undefined): AnyResult {
  if (result.status !== 200 || result.body === undefined || result.stream !== undefined || result.events !== undefined) return result;
  if (Object.keys(result.headers ?? {}).some((h) => h.toLowerCase() === 'etag')) return result;
  const bytes = bodyText(result.body);
  const tag = entityTag([...parts, typeof bytes === 'string' ? bytes : bytes.toString('base64')]);
  const headers = { ...result.headers, ETag: tag };
  if (noneMatchHolds(ifNoneMatch, tag)) return { status: 304, headers, cookies: result.cookies } as EmptyResult;
  const text = typeof result.body === 'string' || Buffer.isBuffer(result.body);
  return { ...result, headers, body: bytes, contentType: (result as BodyResult).contentType ?? (text ? 'text/plain' : 'application/json') } as BodyResult;
}

/**
 * Written with res.end, not Express's res.send: that one would add an ETag of its own and answer
 * 304 to operations whose contract declares neither (the conditional ones get theirs from the
 * dispatcher, see conditionalAnswer).
 */
function writeBody(res: Response, result: BodyResult | EmptyResult): void {
  if (result.body === undefined) { res.end(); return; }
  const text = typeof result.body === 'string' || Buffer.isBuffer(result.body);
  endWith(res, (result as BodyResult).contentType ?? (text ? 'text/plain' : 'application/json'), bodyText(result.body));
}

/** Content-Type (UTF-8 for text), Content-Length and the bytes: what res.send does, without its ETag and 304. */
export function endWith(res: Response, type: string, bytes: string | Buffer): void {
  res.type(type);
  // A string goes out as UTF-8, and says so (whatever charset the type carried, as res.send did).
  if (typeof bytes === 'string') {
    res.setHeader('Content-Type', `${String(res.getHeader('Content-Type')).replace(/;\s*charset=[^;]*/i, '')}; charset=utf-8`);
  }
  res.setHeader('Content-Length', typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length);
  res.end(bytes);
}

/**
 * Content-Disposition per RFC 6266: an ASCII fallback in filename= and, when the name has other
 * characters, the exact name in filename* (RFC 8187, UTF-8, percent-encoded).
 */
export function contentDisposition(filename: string, disposition: 'attachment' | 'inline' = 'attachment'): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = filename.replace(/[\u0000-\u001f\u007f/\\]/g, '_');
  const fallback = cleaned.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]/g, '_').replace(/["%]/g, '_');
  const header = `${disposition}; filename="${fallback}"`;
  if (fallback === cleaned) return header;
  const encoded = encodeURIComponent(cleaned).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${header}; filename*=UTF-8''${encoded}`;
}

const FILE_HEADERS = ['Content-Type', 'Content-Disposition', 'Content-Length'];

function sourceOf(stream: FileResult['stream']): Readable {
  return stream instanceof Readable ? stream : Readable.from(stream as AsyncIterable<Buffer>, { objectMode: false });
}

/**
 * Resolves when `res` takes more ('drain') or closes. A client that takes nothing for `timeoutMs`
 * is let go: the connection is destroyed (which closes it, so this resolves).
 */
function writable(res: Response, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => { res.destroy(); }, timeoutMs);
    const done = () => { clearTimeout(timer); res.off('drain', done); res.off('close', done); resolve(); };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function writeFile(res: Response, result: FileResult, options: WriteOptions): Promise<void> {
  const source = sourceOf(result.stream);
  res.setHeader('Content-Type', result.contentType);
  if (result.filename !== undefined) res.setHeader('Content-Disposition', contentDisposition(result.filename, result.disposition));
  else if (result.disposition === 'inline') res.setHeader('Content-Disposition', 'inline');
  if (result.length !== undefined) res.setHeader('Content-Length', String(result.length));
  if (options.head) { source.destroy(); res.end(); return; }
  // The client went away: release the source (a file handle, a cursor on the store).
  const onClose = () => { if (!res.writableFinished) source.destroy(); };
  res.on('close', onClose);
  try {
    for await (const chunk of source) {
      if (res.destroyed) break;
      if (!res.write(chunk as Buffer)) await writable(res, options.sendTimeoutMs ?? SEND_TIMEOUT_MS);
    }
    if (!res.destroyed) res.end();
  } catch (err) {
    if (res.destroyed) return; // the client left; the source ended with it
    if (!res.headersSent) {
      // Nothing sent yet: the error answers a problem document instead of the file.
      for (const h of FILE_HEADERS) res.removeHeader(h);
      throw err;
    }
    // Halfway: the client must see a broken transfer, never a short file that looks whole.
    res.destroy();
    throw err;
  } finally {
    res.off('close', onClose);
  }
}

const NEWLINE = /[\r\n]/;

/** Events as bytes, by event object: an event carried by thousands of streams is serialised and encoded once. */
const encoded = new WeakMap<ServerSentEvent, Buffer>();

/** formatEvent's bytes, made once per event object. */
export function encodeEvent(e: ServerSentEvent): Buffer {
  let bytes = encoded.get(e);
  if (!bytes) { bytes = Buffer.from(formatEvent(e), 'utf8'); encoded.set(e, bytes); }
  return bytes;
}

/** One event in the text/event-stream format; data is JSON on one line. */
export function formatEvent(e: ServerSentEvent): string {
  if (NEWLINE.test(e.event) || (e.id !== undefined && NEWLINE.test(String(e.id)))) {
    throw new Error('an event name or id must not contain a line break');
  }
  const id = e.id === undefined ? '' : `id: ${String(e.id)}\n`;
  return `event: ${e.event}\n${id}data: ${JSON.stringify(e.data ?? null)}\n\n`;
}

async function writeEventStream(res: Response, result: EventStreamResult, options: WriteOptions): Promise<void> {
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  // no-transform: a compressing proxy would hold events back; X-Accel-Buffering: nginx likewise.
  res.setHeader('Cache-Control', 'no-cache, no-store, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  const iterator = result.events[Symbol.asyncIterator]();
  if (options.head) {
    res.end();
    await iterator.return?.();
    return;
  }
  const socket = res.socket;
  let stopReason: 'client' | 'shutdown' | undefined;
  // What the loop waits for now (the next event, or room to write) ends early when the stream
  // stops. A wait of its own per turn, not a race against one promise that lives as long as the
  // stream: every race would leave a reaction on that promise until the stream ends (hundreds of
  // MiB over 10,000 streams and a few hundred events).
  let interrupt: (() => void) | undefined;
  const stop = (reason: 'client' | 'shutdown') => { stopReason ??= reason; interrupt?.(); };
  const untilStopped = <T>(work: Promise<T>): Promise<T | undefined> => new Promise<T | undefined>((resolve, reject) => {
    if (stopReason !== undefined) { resolve(undefined); return; }
    interrupt = () => resolve(undefined);
    work.then(resolve, reject);
  }).finally(() => { interrupt = undefined; });
  const onClose = () => stop('client');
  const onShutdown = () => stop('shutdown');
  const send = (text: string | Buffer): boolean => {
    if (res.destroyed || res.writableEnded) return true;
    const ok = res.write(text);
    (res as { flush?: () => void }).flush?.(); // under a compression middleware, send now
    return ok;
  };
  // The connection took more than it could send at once: what comes next waits for 'drain'.
  let full = false;
  const sendTimeoutMs = options.sendTimeoutMs ?? SEND_TIMEOUT_MS;
  const onDrain = () => { full = false; };
  res.on('close', onClose);
  const stopWatching = options.shutdown ? onAbort(options.shutdown, onShutdown) : undefined;
  res.flushHeaders();
  // While the loop below waits caught up, a source that can (live-stream.ts) hands each event over
  // in the turn that brings it; while the connection is full, or once stopped, the loop writes.
  (iterator as Partial<FollowableEvents>).follow?.call(iterator, (e) => {
    if (full || stopReason !== undefined || res.destroyed || res.writableEnded) return false;
    if (!send(encodeEvent(e))) { full = true; res.once('drain', onDrain); }
    return true;
  });
  if (result.retryMs !== undefined) send(`retry: ${Math.max(0, Math.round(result.retryMs))}\n\n`);
  // No heartbeat into a connection that is full: it is not idle, and the bytes would only wait.
  const heartbeat = setInterval(() => { if (!full) send(': heartbeat\n\n'); }, options.heartbeatMs);
  heartbeat.unref();
  let finished = false;
  try {
    while (stopReason === undefined) {
      const pending = iterator.next();
      // Once the stream has stopped nobody awaits this any more: a late failure must not go unhandled.
      pending.catch(() => undefined);
      const next = await untilStopped(pending);
      if (next === undefined) break;
      if (next.done) { finished = true; break; }
      if (full) { await untilStopped(writable(res, sendTimeoutMs)); if (stopReason !== undefined) break; }
      if (!send(encodeEvent(next.value))) { full = true; await untilStopped(writable(res, sendTimeoutMs)); full = false; }
    }
  } finally {
    clearInterval(heartbeat);
    res.off('close', onClose);
    stopWatching?.();
    // A source that has not ended is told to stop (its pending next() may still be waiting).
    if (!finished) void Promise.resolve().then(() => iterator.return?.()).catch(() => undefined);
  }
  if (stopReason === 'shutdown') {
    send('event: shutdown\ndata: {}\n\n');
    // The connection ends with the stream, so a draining server does not wait for it.
    res.end(() => { if (socket && !socket.destroyed) socket.destroySoon(); });
    return;
  }
  if (!res.writableEnded && !res.destroyed) res.end();
}
