/**
 * Answers kept by their entity tag, as bytes: a read whose tag the store's versions make
 * (src/handlers/entity-tags.ts) asks for the versions first, as it does for If-None-Match; when
 * this process has already answered that very tag, it sends those bytes again instead of reading
 * and building the answer. The tag names everything the answer depends on (the operation, its
 * view's revision, the caller with role and scope, the request's parameters and the store's
 * versions of what it shows), which is the promise a 304 already rests on: what a client may keep
 * under a tag, a server may keep too. Nothing here is ever stale: the versions are read from the
 * store on every request, so a write from any process moves the tag at once, and an old entry is
 * simply never asked for again and falls out as newer ones come (least recently used first).
 * After a change, the pollers of a list all miss its new tag at once: one of them reads and builds
 * the answer, the others wait for its bytes (`making`), as a CDN collapses the requests for an
 * object it does not hold yet.
 *
 * The Rails way (a fragment cached under the records' `cache_key_with_version`), process-local,
 * bounded in bytes (SVC_ANSWER_CACHE_MB; 0 keeps nothing).
 */

import type { JsonBytes } from './types.js';

/** What a cached answer's bytes say they are: the JSON every read answers. */
export const CACHED_JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON body as it goes out: one line, then a newline (a shell prompt after `curl` starts on its own line). */
export const jsonText = (body: unknown): string => `${JSON.stringify(body)}\n`;

/**
 * A body's bytes, made once: what the writer would send for it, in memory of their own (a small
 * Buffer.from would be a slice of Node's shared 8 KiB pool, and keeping it would keep the whole
 * block: a 13-byte answer holding 8 KiB).
 */
export function jsonBytes<B>(body: B): JsonBytes<B> {
  const text = jsonText(body);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text, 'utf8');
  return bytes as JsonBytes<B>;
}

/**
 * What an entry costs beyond its bytes and its tag: the Map's slot, the Buffer's objects and its
 * memory's own allocation. Measured: 200,000 entries of a 13-byte answer under 31-character tags
 * grew the process by 841 bytes each (380 of them on the heap), so tiny answers count as 1 KiB
 * each and the budget bounds the number of entries too.
 */
export const ENTRY_OVERHEAD = 1024;

/** The memory an entry holds, counted against the budget. */
const costOf = (tag: string, bytes: Buffer) => bytes.length + tag.length * 2 + ENTRY_OVERHEAD;

/** Bytes that own their memory: a slice of a larger block (the pool) is copied out of it. */
const owned = (bytes: Buffer): Buffer => {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
};

export interface AnswerCache {
  /** False when nothing is kept (SVC_ANSWER_CACHE_MB=0): a read then asks for no versions it does not need. */
  readonly keeps: boolean;
  /** The bytes answered under this tag, if still kept; a hit makes the entry the most recent. */
  get(tag: string): Buffer | undefined;
  /** Keeps an answer's bytes under its tag (not one costing more than an eighth of the budget). */
  put(tag: string, bytes: Buffer): void;
  /** Memory the kept answers hold now: their bytes, their tags and each entry's own cost. */
  readonly size: number;
  /**
   * One making per tag at a time: when another request of this process is already making the
   * answer under `tag` (a read that missed it), the promise of its bytes, which this request
   * waits for instead of reading and building the same answer again (after a change, every
   * poller of a list misses its new tag at once); undefined bytes when that making could not
   * keep its answer under this tag (its rows had moved on, or it failed): make your own. When
   * none is, undefined, and this request is now the one making it: it must call `made` with its
   * bytes under this tag, or undefined, whatever happens.
   */
  making(tag: string): Promise<Buffer | undefined> | undefined;
  made(tag: string, bytes: Buffer | undefined): void;
}

export interface AnswerCacheOptions {
  maxBytes: number;
  /**
   * Each lookup's outcome (svc_answer_cache_total): a hit or a miss; and of the misses, those
   * answered by the bytes another request was making (`shared`).
   */
  observe?: (outcome: 'hit' | 'miss' | 'shared') => void;
}

/** A Map keeps insertion order: the first key is the least recently used. */
export function createAnswerCache({ maxBytes, observe }: AnswerCacheOptions): AnswerCache {
  if (maxBytes <= 0) return NO_ANSWER_CACHE;
  const kept = new Map<string, Buffer>();
  const makings = new Map<string, { promise: Promise<Buffer | undefined>; resolve(bytes: Buffer | undefined): void }>();
  const largest = Math.floor(maxBytes / 8);
  let size = 0;
  return {
    keeps: true,
    get(tag) {
      const bytes = kept.get(tag);
      observe?.(bytes === undefined ? 'miss' : 'hit');
      if (bytes !== undefined) { kept.delete(tag); kept.set(tag, bytes); }
      return bytes;
    },
    put(tag, answer) {
      const bytes = owned(answer);
      const cost = costOf(tag, bytes);
      if (cost > largest) return;
      const before = kept.get(tag);
      if (before !== undefined) { kept.delete(tag); size -= costOf(tag, before); }
      kept.set(tag, bytes);
      size += cost;
      for (const [oldest, old] of kept) {
        if (size <= maxBytes) break;
        kept.delete(oldest);
        size -= costOf(oldest, old);
      }
    },
    get size() { return size; },
    making(tag) {
      const other = makings.get(tag);
      if (other !== undefined) {
        return observe === undefined ? other.promise
          : other.promise.then((bytes) => { if (bytes !== undefined) observe('shared'); return bytes; });
      }
      let resolve!: (bytes: Buffer | undefined) => void;
      const promise = new Promise<Buffer | undefined>((res) => { resolve = res; });
      makings.set(tag, { promise, resolve });
      return undefined;
    },
    made(tag, bytes) {
      const making = makings.get(tag);
      if (making === undefined) return;
      makings.delete(tag);
      making.resolve(bytes);
    },
  };
}

/** Keeps nothing: reads behave as without a cache (tests, and SVC_ANSWER_CACHE_MB=0). */
export const NO_ANSWER_CACHE: AnswerCache = {
  keeps: false, get: () => undefined, put: () => undefined, size: 0, making: () => undefined, made: () => undefined,
};
