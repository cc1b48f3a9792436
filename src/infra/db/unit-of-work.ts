/**
 * The unit of work on the store: one transaction, and every repository bound to it (the domain's
 * UnitOfWork and its TxRepos, bound by txReposOf). This is the one place a transaction is opened
 * for the services; repositories never open one of their own. When the work added events, the
 * transaction's last statement writes them and numbers them unless the numbering lock is taken
 * (events-repo `numberWritten`); `committed` then gets them, after the commit, to publish at once. A run inside
 * a run of the same unit of work joins it (a savepoint; see createUnitOfWork), and the
 * repositories bound to the database follow the running transaction (src/infra/db/ambient.ts).
 */
import type { Db, Tx } from './client.js';
import { activeFrame, currentFrame, inFrame, newFrame, type Frame } from './ambient.js';
import { connectionsRepo } from './stores/connections-repo.js';
import { createAttemptsRepo, createChannelsRepo, createDeliveriesRepo } from './stores/channels-repo.js';
import { securityEventsRepo } from './stores/security-events-repo.js';
import { transactionOutbox, type PendingEvent, type SequencedRow } from './stores/events-repo.js';
import { createRunEngineRepo } from './stores/run-engine-repo.js';
import { createRunsRepo } from './stores/runs-repo.js';
import { createScheduleClaims } from './stores/scheduling-repo.js';
import { createReportsRepo } from './stores/reports-repo.js';
import { queriesRepo } from './stores/queries-repo.js';
import { createLinksRepo } from './stores/links-repo.js';
import { createNotificationsRepo, createNotifierCursor } from './stores/notifications-repo.js';
import { createNotificationFacts } from './stores/notification-facts.js';
import { identityRepos } from './stores/identity-store.js';
import { CONFIG_LOCK } from './stores/config-repo.js';
import { sql } from 'drizzle-orm';
import type { ChangeEvent } from '../../domain/events/model.js';
import type { Outbox } from '../../domain/events/ports.js';

/**
 * The identity repositories, each change to what a user may do (a session or key revoked, the
 * user changed: role, enabled, password) also writing `identity.changed` in the same transaction:
 * every API process then drops the principals it holds for that user (authenticator.ts), right
 * after the commit, whichever service made the change.
 */
function withIdentityEvents(repos: ReturnType<typeof identityRepos>, outbox: Outbox): ReturnType<typeof identityRepos> {
  const { users, sessions, apiKeys } = repos;
  const changed = async (userId: string | undefined) => {
    if (userId) await outbox.add([{ type: 'identity.changed', data: { user_id: userId } } satisfies ChangeEvent]);
  };
  return {
    ...repos,
    users: {
      ...users,
      async update(id, version, changes, now) { const u = await users.update(id, version, changes, now); await changed(id); return u; },
    },
    sessions: {
      ...sessions,
      async clearMustEnrol(userId) { await sessions.clearMustEnrol(userId); await changed(userId); },
      async revoke(userId, sessionId, now) { const ok = await sessions.revoke(userId, sessionId, now); if (ok) await changed(userId); return ok; },
      async revokeAllOf(userId, now, keep) { const n = await sessions.revokeAllOf(userId, now, keep); if (n > 0) await changed(userId); return n; },
      async revokeByTokenHash(hash, now) { const userId = await sessions.revokeByTokenHash(hash, now); await changed(userId); return userId; },
    },
    apiKeys: {
      ...apiKeys,
      async revoke(id, now) { const row = await apiKeys.revoke(id, now); await changed(row?.userId); return row; },
    },
  };
}

/** Every repository a unit of work hands out, bound to its transaction. */
export function txReposOf(tx: Tx) {
  const outbox = transactionOutbox(tx);
  return {
    connections: connectionsRepo(tx), channels: createChannelsRepo(tx), deliveries: createDeliveriesRepo(tx), attempts: createAttemptsRepo(tx),
    securityEvents: securityEventsRepo(tx), outbox,
    runEngine: createRunEngineRepo(tx), runs: createRunsRepo(tx), scheduleClaims: createScheduleClaims(tx),
    reports: createReportsRepo(tx), queries: queriesRepo(tx), links: createLinksRepo(tx),
    notifications: createNotificationsRepo(tx), notificationFacts: createNotificationFacts(tx), notifierCursor: createNotifierCursor(tx),
    ...withIdentityEvents(identityRepos(tx), outbox),
    async lockConfig() { await tx.execute(sql`select pg_advisory_xact_lock(${CONFIG_LOCK})`); },
  };
}

export interface NumberingOutbox {
  numberWritten(): Promise<SequencedRow[]>;
  readonly wrote: boolean;
  /** The events added (and adopted from nested units of work), written by `numberWritten`. */
  readonly pending: readonly PendingEvent[];
  /** Takes over the events of a nested unit of work whose savepoint was released. */
  adopt(events: readonly PendingEvent[]): void;
  /** Drops the events added after the first `length` (a savepoint opened then was rolled back). */
  truncate(length: number): void;
}

/**
 * `db` is the database itself (not `ambientDb(db)`): the repositories made on `ambientDb(db)`
 * follow this unit of work's transactions.
 *
 * Nesting: a `run` called while a `run` of this same unit of work is in progress in the same async
 * context (the work calls a service that runs its own unit of work) joins it: no second
 * transaction, no second connection. The inner work runs in a savepoint of the outer transaction
 * (drizzle's `tx.transaction`), with repositories bound to it:
 * - it succeeds: the savepoint is released, its events are adopted by the enclosing outbox, and
 *   nothing is written, numbered or published yet: the outermost run writes and numbers every
 *   event of the whole work as its last statement and calls `committed` once, after its commit;
 * - it throws: the savepoint is rolled back (its rows and events are gone) and the error goes to
 *   the caller; when the outer work catches it (a duplicate name refused, for instance) the outer
 *   transaction goes on unharmed, which a plain join without savepoint could not give (Postgres
 *   refuses every statement of a transaction after a failed one); when the outer work lets it
 *   go, everything rolls back.
 * Nested runs that join one transaction run one after another, even when started together
 * (Promise.all): two savepoints open at once on the one connection would interleave. The work of
 * a nested run (the service's code after its `uow.run`, too) runs before the outer commit, so
 * what a service does after its own commit (a pool dropped, a file removed) happens before the
 * outer transaction commits, and is not undone when it rolls back.
 */
export function createUnitOfWork<R extends { outbox: NumberingOutbox }>(
  db: Db, reposOf: (tx: Tx) => R,
  /** After each outermost commit: the events the transaction numbered itself, and whether it wrote any. */
  committed: (numbered: SequencedRow[], wrote: boolean) => void = () => undefined,
) {
  const self = {};

  /** Joins the running `outer` frame: the work in a savepoint of its transaction. */
  async function nested<T>(outer: Frame<R>, work: (tx: R) => Promise<T>): Promise<T> {
    const before = outer.tail;
    let release!: () => void;
    outer.tail = new Promise<void>((resolve) => { release = resolve; });
    await before;
    // What the enclosing runs' outboxes hold now: an event added to one of them while the
    // savepoint is open (by a closure over its repositories) goes when the savepoint rolls back,
    // as its row did when events were written at once.
    const marks: Array<[NumberingOutbox, number]> = [];
    for (let f: Frame<R> | undefined = outer; f && f.owner === self; f = f.parent) marks.push([f.repos.outbox, f.repos.outbox.pending.length]);
    try {
      let repos: R | undefined;
      let frame: Frame<R> | undefined;
      const value = await outer.tx.transaction(async (sp) => {
        const inner = reposOf(sp);
        repos = inner;
        frame = newFrame(db, self, sp, inner, outer);
        return inFrame(frame, () => work(inner));
      }).catch((err: unknown) => {
        for (const [outbox, length] of marks) outbox.truncate(length);
        throw err;
      });
      // Released: its events are the outer transaction's now, written at the outer end, and
      // what it left for after the commit waits for that commit (a rolled-back one's is dropped).
      outer.repos.outbox.adopt(repos!.outbox.pending);
      outer.afterCommit.push(...frame!.afterCommit);
      return value;
    } finally {
      release();
    }
  }

  return {
    async run<T>(work: (tx: R) => Promise<T>): Promise<T> {
      const outer = activeFrame<R>((f) => f.owner === self);
      if (outer) return nested(outer, work);
      let numbered: SequencedRow[] = [];
      let wrote = false;
      const parent = currentFrame();
      let frame: Frame<R> | undefined;
      const result = await db.transaction(async (tx) => {
        const repos = reposOf(tx);
        frame = newFrame(db, self, tx, repos, parent);
        const value = await inFrame(frame, () => work(repos));
        wrote = repos.outbox.wrote;
        if (wrote) numbered = await repos.outbox.numberWritten();
        return value;
      });
      committed(numbered, wrote);
      for (const after of frame!.afterCommit) await after().catch(() => undefined);
      return result;
    },

    /**
     * `work` once the transaction in progress here commits (nothing of it when it rolls back); at
     * once when none is. For what a service does after its own commit that an enclosing one could
     * not undo (a file removed).
     */
    async afterCommit(work: () => Promise<void>): Promise<void> {
      const frame = activeFrame<R>((f) => f.owner === self);
      if (frame) frame.afterCommit.push(work);
      else await work();
    },
  };
}
