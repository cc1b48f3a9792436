/**
 * The unit of work on the store: one transaction, and the repositories bound to it (the domain's
 * UnitOfWork, whose repository bundle the composition root gives).
 */
import type { Db, Tx } from './client.js';

export function createUnitOfWork<R>(db: Db, reposOf: (tx: Tx) => R) {
  return {
    run<T>(work: (tx: R) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(reposOf(tx)));
    },
  };
}
