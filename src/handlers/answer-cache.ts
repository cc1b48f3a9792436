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
 *
 * The Rails way (a fragment cached under the records' `cache_key_with_version`), process-local,
 * bounded in bytes (SVC_ANSWER_CACHE_MB; 0 keeps nothing).
 */

import type { JsonBytes } from './types.js';

/** What a cached answer's bytes say they are: the JSON every read answers. */
export const CACHED_JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON body as it goes out: one line, then a newline (a shell prompt after `curl` starts on its own line). */
export const jsonText = (body: unknown): string => `${JSON.stringify(body)}\n`;

/** A body's bytes, made once: what the writer would send for it. */
export const jsonBytes = <B>(body: B): JsonBytes<B> => Buffer.from(jsonText(body), 'utf8') as JsonBytes<B>;

export interface AnswerCache {
  /** False when nothing is kept (SVC_ANSWER_CACHE_MB=0): a read then asks for no versions it does not need. */
  readonly keeps: boolean;
  /** The bytes answered under this tag, if still kept; a hit makes the entry the most recent. */
  get(tag: string): Buffer | undefined;
  /** Keeps an answer's bytes under its tag (not one larger than an eighth of the budget). */
  put(tag: string, bytes: Buffer): void;
  /** Bytes kept now. */
  readonly size: number;
}

export interface AnswerCacheOptions {
  maxBytes: number;
  /** Each lookup's outcome (svc_answer_cache_total). */
  observe?: (outcome: 'hit' | 'miss') => void;
}

/** A Map keeps insertion order: the first key is the least recently used. */
export function createAnswerCache({ maxBytes, observe }: AnswerCacheOptions): AnswerCache {
  if (maxBytes <= 0) return NO_ANSWER_CACHE;
  const kept = new Map<string, Buffer>();
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
    put(tag, bytes) {
      if (bytes.length > largest) return;
      const before = kept.get(tag);
      if (before !== undefined) { kept.delete(tag); size -= before.length; }
      kept.set(tag, bytes);
      size += bytes.length;
      for (const [oldest, old] of kept) {
        if (size <= maxBytes) break;
        kept.delete(oldest);
        size -= old.length;
      }
    },
    get size() { return size; },
  };
}

/** Keeps nothing: reads behave as without a cache (tests, and SVC_ANSWER_CACHE_MB=0). */
export const NO_ANSWER_CACHE: AnswerCache = { keeps: false, get: () => undefined, put: () => undefined, size: 0 };
