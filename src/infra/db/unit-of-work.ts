/**
 * The unit of work on the store: one transaction, and every repository bound to it (the domain's
 * UnitOfWork and its TxRepos, bound by txReposOf). This is the one place a transaction is opened
 * for the services; repositories never open one of their own. When the work wrote events, the
 * transaction's last statement numbers them unless the numbering lock is taken (events-repo
 * `numberWritten`); `committed` then gets them, after the commit, to publish at once.
 */
import type { Db, Tx } from './client.js';
import { connectionsRepo } from './stores/connections-repo.js';
import { createAttemptsRepo, createChannelsRepo, createDeliveriesRepo } from './stores/channels-repo.js';
import { securityEventsRepo } from './stores/security-events-repo.js';
import { transactionOutbox, type SequencedRow } from './stores/events-repo.js';
import { createRunEngineRepo } from './stores/run-engine-repo.js';
import { createRunsRepo } from './stores/runs-repo.js';
import { createScheduleClaims } from './stores/scheduling-repo.js';
import { createReportsRepo } from './stores/reports-repo.js';
import { queriesRepo } from './stores/queries-repo.js';
import { createLinksRepo } from './stores/links-repo.js';
import { identityRepos } from './stores/identity-store.js';

/** Every repository a unit of work hands out, bound to its transaction. */
export function txReposOf(tx: Tx) {
  return {
    connections: connectionsRepo(tx), channels: createChannelsRepo(tx), deliveries: createDeliveriesRepo(tx), attempts: createAttemptsRepo(tx),
    securityEvents: securityEventsRepo(tx), outbox: transactionOutbox(tx),
    runEngine: createRunEngineRepo(tx), runs: createRunsRepo(tx), scheduleClaims: createScheduleClaims(tx),
    reports: createReportsRepo(tx), queries: queriesRepo(tx), links: createLinksRepo(tx),
    ...identityRepos(tx),
  };
}

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
