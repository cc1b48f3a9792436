/**
 * ETags and If-None-Match (RFC 9110 §8.8.3, §13.1.2) for reads whose store can say what they show
 * has not changed more cheaply than it can read it. A tag is weak (the same tag promises the same
 * content, not the same bytes) and made from everything the answer depends on: the operation and
 * its view's revision, the caller (so that one caller's tag never answers 304 to another who may
 * see something else), the request's parameters, and the store's versions of what it shows.
 */
import { createHash } from 'node:crypto';
import type { JsonBytes, RequestContext } from './types.js';
import { CACHED_JSON_TYPE, jsonBytes, NO_ANSWER_CACHE, type AnswerCache } from './answer-cache.js';
import { shownAsStamped, type Shown, type Stamps } from '../domain/reads/row-stamps.js';

/** W/"…": a digest of the parts, in order. */
export function entityTag(parts: ReadonlyArray<string | number | boolean | undefined>): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${part === undefined ? '' : String(part)}\u0000`);
  return `W/"${hash.digest('base64url').slice(0, 27)}"`;
}

/**
 * What tags know of the caller: who it is, with what role and, for an API key, what scope (an
 * admin's read-scoped key sees members as a non-admin does); '-' for a public read.
 */
export function callerOf(ctx: Pick<RequestContext, 'principal'>): string {
  const p = ctx.principal;
  if (!p) return '-';
  return p.kind === 'api_key' ? `${p.kind}:${p.user.id}:${p.user.role}:${p.scope}` : `${p.kind}:${p.user.id}:${p.user.role}`;
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag).trim();

/**
 * Whether If-None-Match names the current tag (weak comparison), or is `*` (the resource exists:
 * the caller asks only when it has one). Undefined or empty: no condition.
 */
export function noneMatchHolds(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const wanted = opaque(tag);
  for (const candidate of ifNoneMatch.split(',')) {
    const t = candidate.trim();
    if (t === '*' || (t !== '' && opaque(t) === wanted)) return true;
  }
  return false;
}

export type StampedAnswer<B> =
  | { status: 200; headers?: { ETag: string }; body: B | JsonBytes<B>; contentType?: typeof CACHED_JSON_TYPE }
  | { status: 304; headers: { ETag: string } };

/** An answer this process keeps under its tag, as bytes: sent again as they are. */
const keptAnswer = <B>(tag: string, bytes: Buffer): StampedAnswer<B> =>
  ({ status: 200, headers: { ETag: tag }, body: bytes as JsonBytes<B>, contentType: CACHED_JSON_TYPE });

/** A tagged answer, kept under its tag when the cache keeps anything (then sent as the bytes kept). */
function tagged<B>(tag: string, body: B, answers: AnswerCache): StampedAnswer<B> & { status: 200 } {
  if (!answers.keeps) return { status: 200, headers: { ETag: tag }, body };
  const bytes = jsonBytes(body);
  answers.put(tag, bytes);
  return { status: 200, headers: { ETag: tag }, body: bytes, contentType: CACHED_JSON_TYPE };
}

/**
 * The kept bytes under `tag`, or those another request of this process is making now (waited
 * for: the versions this request read after it came name exactly what those bytes show), or
 * undefined: then this request makes them, and says so with `made` (answer-cache.ts).
 */
async function keptOrMaking(tag: string, answers: AnswerCache): Promise<{ kept?: Buffer; making: boolean }> {
  const kept = answers.get(tag);
  if (kept !== undefined) return { kept, making: false };
  if (!answers.keeps) return { making: false };
  const other = answers.making(tag);
  if (other === undefined) return { making: true };
  const bytes = await other;
  return bytes === undefined ? { making: false } : { kept: bytes, making: false };
}

/** Reads and builds the answer for `tag` (when this request is the one making it, its bytes go to the requests waiting: see keptOrMaking). */
async function make<B>(tag: string | undefined, making: boolean, answers: AnswerCache, build: () => Promise<StampedAnswer<B> & { status: 200 }>) {
  if (!making) return build();
  let bytes: Buffer | undefined;
  try {
    const answer = await build();
    if (answer.headers?.ETag === tag && Buffer.isBuffer(answer.body)) bytes = answer.body;
    return answer;
  } finally {
    answers.made(tag!, bytes);
  }
}

/**
 * A read tagged by the store's stamps of what it shows (src/domain/reads/row-stamps.ts): the
 * stamps are read first; when If-None-Match names the tag they make, 304, nothing else read or
 * built; when this process answered that tag before and still keeps the bytes (`answers`), those
 * bytes, nothing else read or built either. Otherwise the answer, tagged by those stamps when it
 * shows exactly the rows they name (`shown`), and then kept; when it does not (a row came or went
 * between the two reads), or there were no stamps (no such resource: the read answers its 404),
 * it goes without, and is tagged by its content on the way out (src/http/respond.ts), a tag no
 * stamps ever make. A request that misses a tag another request of this process is making
 * already waits for those bytes instead of reading the same answer again (keptOrMaking).
 */
export async function stampedRead<B>(
  ifNoneMatch: string | undefined,
  parts: ReadonlyArray<string | number | boolean | undefined>,
  stamps: () => Promise<Stamps | undefined>,
  read: () => Promise<B>,
  shown: (body: B) => Shown,
  answers: AnswerCache = NO_ANSWER_CACHE,
): Promise<StampedAnswer<B>> {
  const stamped = await stamps();
  const tag = stamped === undefined ? undefined : entityTag([...parts, stamped.text]);
  let making = false;
  if (tag !== undefined) {
    if (noneMatchHolds(ifNoneMatch, tag)) return { status: 304, headers: { ETag: tag } };
    const found = await keptOrMaking(tag, answers);
    if (found.kept !== undefined) return keptAnswer(tag, found.kept);
    making = found.making;
  }
  return make(tag, making, answers, async () => {
    const body = await read();
    if (tag === undefined || !shownAsStamped(stamped!, shown(body))) return { status: 200, body };
    return tagged(tag, body, answers);
  });
}

/**
 * A read whose store answers the versions of what it shows with the answer itself (the reports,
 * src/infra/db/stores/reports-read-model.ts): the versions alone first, by a lean statement, when
 * If-None-Match asks or when an answer may be kept (304, or the kept bytes, as stampedRead);
 * otherwise the answer, tagged by the versions its own rows carried, and kept under that tag.
 * `versions` answers undefined for no such resource: the read then answers its 404. As there,
 * one request of this process makes a tag's answer at a time; the others missing it wait.
 */
export async function versionedRead<B>(
  ifNoneMatch: string | undefined,
  tagOf: (versions: string) => string,
  versions: () => Promise<string | undefined>,
  read: () => Promise<{ body: B; versions: string }>,
  answers: AnswerCache,
): Promise<StampedAnswer<B>> {
  let tag: string | undefined;
  let making = false;
  if (ifNoneMatch || answers.keeps) {
    const now = await versions();
    if (now !== undefined) {
      tag = tagOf(now);
      if (noneMatchHolds(ifNoneMatch, tag)) return { status: 304, headers: { ETag: tag } };
      const found = await keptOrMaking(tag, answers);
      if (found.kept !== undefined) return keptAnswer(tag, found.kept);
      making = found.making;
    }
  }
  return make(tag, making, answers, async () => {
    const answer = await read();
    return tagged(tagOf(answer.versions), answer.body, answers);
  });
}

/** What a single resource's answer shows: itself, and its configuration mark if any. */
export const shownOne = (body: { id: string; managed?: unknown }): Shown => ({ ids: [body.id], marked: [body.managed !== undefined], more: false });

/** What a page shows: its items in order, their marks, and whether a next page exists. */
export const shownPage = (body: { items: ReadonlyArray<{ id: string; managed?: unknown }>; next_cursor?: string }): Shown => ({
  ids: body.items.map((i) => i.id), marked: body.items.map((i) => i.managed !== undefined), more: body.next_cursor !== undefined,
});
