/**
 * A server-sent events client for tests: listens the app on a free loopback port, reads
 * GET /api/v1/events with a bearer key (and Last-Event-ID when given) and parses each event.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface SseEvent {
  event: string;
  id: number | undefined;
  data: Record<string, unknown>;
}

export interface SseClient {
  events: SseEvent[];
  /** Waits until `check` holds for the events read so far. */
  until(check: (events: SseEvent[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function serve(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export async function openSse(baseUrl: string, token: string, lastEventId?: number): Promise<SseClient> {
  const controller = new AbortController();
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (lastEventId !== undefined) headers['Last-Event-ID'] = String(lastEventId);
  const res = await fetch(`${baseUrl}/api/v1/events`, { headers, signal: controller.signal });
  if (res.status !== 200) throw new Error(`GET /events answered ${res.status}`);
  const reader = res.body!.getReader();
  const events: SseEvent[] = [];
  let text = '';
  let ended = false;
  const pump = (async () => {
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += Buffer.from(chunk.value).toString('utf8');
        let cut: number;
        while ((cut = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          const field = (name: string) => block.split('\n').find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
          const event = field('event');
          if (event === undefined) continue; // the retry line, comments
          const id = field('id');
          events.push({ event, id: id === undefined ? undefined : Number(id), data: JSON.parse(field('data') ?? '{}') as Record<string, unknown> });
        }
      }
    } catch { /* aborted */ } finally { ended = true; }
  })();
  return {
    events,
    async until(check, ms = 20_000) {
      const deadline = Date.now() + ms;
      while (!check(events)) {
        if (ended) throw new Error(`the stream ended; events: ${JSON.stringify(events)}`);
        if (Date.now() > deadline) throw new Error(`timed out; events: ${JSON.stringify(events)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      controller.abort();
      await pump;
    },
  };
}
