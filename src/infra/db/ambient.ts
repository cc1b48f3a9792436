/**
 * The ambient transaction: while a unit of work runs (src/infra/db/unit-of-work.ts), the async
 * context of its work carries the transaction (node:async_hooks AsyncLocalStorage), so that
 *
 * - a `uow.run` of the same unit of work called inside it joins it (a savepoint in it, see
 *   createUnitOfWork) instead of opening a second transaction on another connection;
 * - the repositories bound to the database (src/main/repositories.ts, made once on `ambientDb(db)`)
 *   read and write through that transaction rather than the pool: a service that checks, through
 *   a pool-bound read, what an earlier step of the same work wrote sees it.
 *
 * Outside a unit of work (no frame, or one whose work has ended) everything goes to the pool as
 * before. A frame ends with its work: a promise started inside a unit of work and left running
 * after it (fire and forget) falls back to the enclosing frame still running, else to the pool,
 * never to a transaction that has ended.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './client.js';

/** A transaction (or savepoint) object of drizzle: the same query builder API as the database. */
export type DbTx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Frame<R = unknown> {
  /** The pool this transaction was taken from: only proxies over it forward to `tx`. */
  readonly root: Db;
  /** The unit of work that opened it: only its own `run` joins. */
  readonly owner: object;
  /** The transaction, or the savepoint of a nested run. */
  readonly tx: DbTx;
  /** The repositories the work was handed, bound to `tx`. */
  readonly repos: R;
  readonly parent: Frame<R> | undefined;
  /** Set once the work has returned or thrown: the frame forwards nothing any more. */
  done: boolean;
  /**
   * Nested runs joining this frame, one after another: two savepoints open at once on the one
   * connection would interleave (a rollback to the first would undo the second).
   */
  tail: Promise<void>;
  /** Work to do once the outermost transaction commits (a nested run's move up when its savepoint is released). */
  readonly afterCommit: Array<() => Promise<void>>;
}

const storage = new AsyncLocalStorage<Frame>();

/** The innermost frame still running in this async context that matches, if any. */
export function activeFrame<R>(match: (f: Frame) => boolean): Frame<R> | undefined {
  for (let f = storage.getStore(); f; f = f.parent) {
    if (!f.done && match(f)) return f as Frame<R>;
  }
  return undefined;
}

/** The frame of this async context, running or not (the parent of a frame about to start). */
export function currentFrame(): Frame | undefined {
  return storage.getStore();
}

export function newFrame<R>(root: Db, owner: object, tx: DbTx, repos: R, parent: Frame | undefined): Frame<R> {
  return { root, owner, tx, repos, parent: parent as Frame<R> | undefined, done: false, tail: Promise.resolve(), afterCommit: [] };
}

/** Frames whose work is running, in this process. */
let running = 0;

/**
 * Runs `work` with `frame` as the ambient transaction; the frame ends with the work.
 *
 * When the last running frame ends, the storage is disabled: on Node 20 an enabled
 * AsyncLocalStorage keeps a hook on every promise the process makes (measured: promise-heavy
 * code takes 1.5-2x the CPU), and the worker's hot paths (a delivery's take and end, a run's
 * claim, hand-over and end) are single statements that never open a unit of work. What a
 * disabled storage answers (no frame) is what the frames left behind would answer: each is
 * done, so everything goes to the pool; the next `run` enables it again.
 */
export async function inFrame<T, R>(frame: Frame<R>, work: () => Promise<T>): Promise<T> {
  running += 1;
  try {
    return await storage.run(frame as Frame, work);
  } finally {
    frame.done = true;
    running -= 1;
    if (running === 0) storage.disable();
  }
}

/**
 * The database as the repositories bound to the pool see it: each property is read, at the time
 * of the call, from the ambient transaction over this database when one is running (drizzle's
 * transaction has the database's query builder: select, insert, update, delete, execute,
 * transaction (then a savepoint), $with, query), else from the database itself. Repositories read
 * `db.select` and the like at each call, never once at creation, so one repository object serves
 * both.
 */
export function ambientDb(db: Db): Db {
  return new Proxy(db, {
    get(target, prop) {
      const to: object = activeFrame((f) => f.root === target)?.tx ?? target;
      const value: unknown = Reflect.get(to, prop, to);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(to) : value;
    },
  });
}
