/**
 * GET /events as an async iterator of typed events. A dropped connection is reopened with
 * Last-Event-ID (the last id received), after a backoff, so no event is missed or repeated; the
 * iterator ends when `signal` aborts. Problems other than 429/5xx (401, 403) end it with HeraldError.
 */
import { HeraldError } from './errors.js';
import { backoffMs } from './retry.js';
import type { HeraldEvent } from './types.js';

export interface EventsOptions {
  /** Resume after this id (the stream sends every later event first). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** The first reconnect wait (default: the stream's `retry:`, else 1 s); doubled, up to 30 s. */
  reconnectDelayMs?: number;
  /** Called each time the stream is open (the answer's headers arrived). */
  onOpen?: () => void;
  /** Called each time the stream could not be opened or dropped (before the reconnect's wait). */
  onDrop?: () => void;
}

interface Frame { event: string; id: string | undefined; data: string }

/** Splits server-sent events text into frames (WHATWG event-stream rules: fields, comments, retry). */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  retryMs: number | undefined;

  /** A chunk ended in \r: a \n starting the next one belongs to that line break. */
  private afterCr = false;

  push(text: string): Frame[] {
    if (this.afterCr && text.startsWith('\n')) text = text.slice(1);
    this.afterCr = false;
    this.buffer += text;
    const frames: Frame[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      if (match[0] === '\r' && this.buffer === '') this.afterCr = true;
      const frame = this.line(line);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  private line(line: string): Frame | undefined {
    if (line === '') {
      const frame = this.data.length > 0 ? { event: this.event || 'message', id: this.id, data: this.data.join('\n') } : undefined;
      this.data = [];
      this.event = '';
      this.id = undefined;
      return frame;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function* events(
  fetcher: (url: string, init?: RequestInit) => Promise<Response>, options: EventsOptions,
): AsyncIterableIterator<HeraldEvent> {
  const { signal } = options;
  let lastEventId = options.lastEventId;
  let failures = 0;
  let serverRetryMs: number | undefined;
  while (!signal?.aborted) {
    let response: Response | undefined;
    try {
      const headers: Record<string, string> = { Accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
      response = await fetcher('/api/v1/events', { headers, ...(signal ? { signal } : {}) });
    } catch (err) {
      if (signal?.aborted) return;
      // A connection error (fetch's TypeError; matched by name, as it may come from another realm).
      if ((err as { name?: unknown } | null)?.name !== 'TypeError') throw err;
      options.onDrop?.();
    }
    if (response && !response.ok) {
      const error = await HeraldError.from(response);
      if (response.status !== 429 && response.status < 500) throw error;
      options.onDrop?.();
      if (error.retryAfterSeconds !== undefined) serverRetryMs = error.retryAfterSeconds * 1000;
    } else if (response?.body) {
      options.onOpen?.();
      const parser = new SseParser();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const frame of parser.push(value)) {
            if (frame.id !== undefined) lastEventId = frame.id;
            failures = 0;
            let data: unknown;
            try { data = JSON.parse(frame.data); } catch { continue; }
            yield { event: frame.event, ...(frame.id === undefined ? {} : { id: frame.id }), data } as HeraldEvent;
          }
        }
      } catch {
        // The connection dropped (or the signal aborted it): reconnect below, or end.
      } finally {
        if (!signal?.aborted) options.onDrop?.();
        reader.cancel().catch(() => undefined);
        serverRetryMs = parser.retryMs ?? serverRetryMs;
      }
    }
    if (signal?.aborted) return;
    const base = options.reconnectDelayMs ?? serverRetryMs ?? 1000;
    // Equal jitter: half the step for sure, the other half random.
    const step = Math.min(30_000, base * 2 ** failures);
    await sleep(step / 2 + backoffMs(0, step / 2, 30_000), signal);
    failures = Math.min(failures + 1, 5);
  }
}
