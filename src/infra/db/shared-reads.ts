/**
 * Reads of the same statement with the same parameters, asked for by many requests at once, made
 * as one: the versions and row stamps an ETag is made from, which every polled read asks the
 * store for (src/handlers/entity-tags.ts). A hundred clients polling the same list asked the
 * store the same lean statement a hundred times in the same few milliseconds; each of those
 * statements costs the store more CPU than the API spends on the answer it keeps.
 *
 * A caller never gets rows read before it asked, so nothing here is staler than a read of its
 * own: a call that comes while the same read is under way does not join it (that statement may
 * have been planned before a write the caller has already seen committed); it waits for the next
 * one, which starts as soon as the one under way ends, and which every call arriving meanwhile
 * shares. So at most one such statement is under way and one is waiting, per statement and
 * parameters, and a caller waits at most for the end of the read under way and then its own.
 * Nginx's `proxy_cache_lock` and Varnish's request coalescing share an origin's answer the same
 * way, without the freshness rule; DataLoader batches per tick, without sharing across ticks.
 *
 * Only for statements that read (outside any transaction, on a lane or the pool), whose rows
 * their callers do not change: every sharer gets the same array.
 */

import type { Sql } from './client.js';

/** The statement as the lane runs it (a prepared statement of the store's client). */
export type ReadStatement = <R>(text: string, params: readonly unknown[]) => PromiseLike<R[]>;

interface Waiting {
  promise: Promise<unknown[]>;
  resolve(rows: unknown[]): void;
  reject(err: unknown): void;
}

interface Flight {
  /** Calls that came while the read was under way: they share the next one. */
  waiting?: Waiting;
}

export interface SharedReads {
  <R>(text: string, params: readonly unknown[]): Promise<R[]>;
  /** Reads under way now, by statement and parameters (0 when idle: nothing is kept between reads). */
  readonly underWay: number;
}

/**
 * A read's key: the text and its parameters, when each is a string, a boolean, null or a finite
 * number other than -0, which JSON writes apart from every other value; undefined otherwise (such
 * a read is not shared: JSON would write NaN, undefined and null alike).
 */
const keyOf = (text: string, params: readonly unknown[]): string | undefined => {
  for (const p of params) {
    const plain = typeof p === 'string' || typeof p === 'boolean' || p === null
      || (typeof p === 'number' && Number.isFinite(p) && !Object.is(p, -0));
    if (!plain) return undefined;
  }
  return `${text}\u0000${JSON.stringify(params)}`;
};

export function sharedReads(run: ReadStatement): SharedReads {
  const flights = new Map<string, Flight>();

  /** The statement as a promise: a read that throws at once rejects. */
  const readNow = <R>(text: string, params: readonly unknown[]): Promise<R[]> => {
    try {
      return Promise.resolve(run<R>(text, params));
    } catch (err) {
      return Promise.reject(err);
    }
  };

  /** Starts the read for `key`; when it ends, the calls that came meanwhile get a read of their own, started then. */
  const start = (key: string, flight: Flight, text: string, params: readonly unknown[]): Promise<unknown[]> => {
    const read = readNow<unknown>(text, params);
    const next = () => {
      const waiting = flight.waiting;
      if (waiting === undefined) { flights.delete(key); return; }
      flight.waiting = undefined;
      start(key, flight, text, params).then(waiting.resolve, waiting.reject);
    };
    read.then(next, next);
    return read;
  };

  const shared = (<R>(text: string, params: readonly unknown[]): Promise<R[]> => {
    const key = keyOf(text, params);
    if (key === undefined) return readNow<R>(text, params);
    const flight = flights.get(key);
    if (flight === undefined) {
      const fresh: Flight = {};
      flights.set(key, fresh);
      return start(key, fresh, text, params) as Promise<R[]>;
    }
    if (flight.waiting === undefined) {
      let resolve!: (rows: unknown[]) => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<unknown[]>((res, rej) => { resolve = res; reject = rej; });
      flight.waiting = { promise, resolve, reject };
    }
    return flight.waiting.promise as Promise<R[]>;
  }) as SharedReads;
  Object.defineProperty(shared, 'underWay', { get: () => flights.size });
  return shared;
}

/** The store client's prepared statements (postgres.js named statements), shared as above. */
export const sharedStatements = (sql: Sql): SharedReads =>
  sharedReads(<R>(text: string, params: readonly unknown[]) => sql.unsafe<R[]>(text, params as never[], { prepare: true }));
