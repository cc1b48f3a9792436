/**
 * The unit of work on the store: one transaction, and the repositories bound to it (the domain's
 * UnitOfWork, whose repository bundle the composition root gives). When the work wrote events,
 * the transaction's last statement numbers them unless the numbering lock stays taken (events-repo
 * `numberWritten`); `committed` then gets them, after the commit, to publish at once.
 */
import type { Db, Tx } from './client.js';
import type { SequencedRow } from './stores/events-repo.js';

export interface NumberingOutbox {
  numberWritten(): Promise<SequencedRow[]>;
  readonly wrote: boolean;
}

export function createUnitOfWork<R extends { outbox: NumberingOutbox }>(
  db: Db, reposOf: (tx: Tx) => R,
  /** After each commit: the events the transaction numbered itself, and whether it wrote any. */
  committed: (numbered: SequencedRow[], wrote: boolean) => void = () => undefined,
) {
  return {
    async run<T>(work: (tx: R) => Promise<T>): Promise<T> {
      let numbered: SequencedRow[] = [];
      let wrote = false;
      const result = await db.transaction(async (tx) => {
        const repos = reposOf(tx);
        const value = await work(repos);
        wrote = repos.outbox.wrote;
        if (wrote) numbered = await repos.outbox.numberWritten();
        return value;
      });
      committed(numbered, wrote);
      return result;
    },
  };
}
