/**
 * Every repository bound to the store (outside a transaction), made once per process by the
 * container. Each is typed as the domain port it implements; the services of every process kind
 * (src/main/services.ts) read through these, and change through the unit of work's bound copies.
 *
 * They are made on `ambientDb(db)` (src/infra/db/ambient.ts): inside a unit of work (a service's,
 * or a feature's `uow.run` around several services) they read and write through its transaction,
 * so a step sees what the earlier steps of the same work wrote and is undone with them; outside
 * one, through the pool. The event log alone stays on the pool: the relay's numbering and the
 * feed's history never run in somebody's transaction (a relay pass woken from inside a unit of
 * work keeps that async context).
 */
import type { Db, Sql } from '../infra/db/client.js';
import { ambientDb } from '../infra/db/ambient.js';
import { connectionsRepo } from '../infra/db/stores/connections-repo.js';
import { createQueryUsage, queriesRepo } from '../infra/db/stores/queries-repo.js';
import { createReportsRepo } from '../infra/db/stores/reports-repo.js';
import { createReportsReadModel } from '../infra/db/stores/reports-read-model.js';
import { createAttemptsRepo, createChannelsRepo, createDeliveriesRepo } from '../infra/db/stores/channels-repo.js';
import { createRunsRepo } from '../infra/db/stores/runs-repo.js';
import { createRunEngineRepo } from '../infra/db/stores/run-engine-repo.js';
import { createDeliveryPlanReads, createDeliveryStatements } from '../infra/db/stores/delivery-statements.js';
import { createSchedulingRepo } from '../infra/db/stores/scheduling-repo.js';
import { createLinksRepo } from '../infra/db/stores/links-repo.js';
import { createStorageRepo } from '../infra/db/stores/storage-repo.js';
import { createEventLog, outboxRepo } from '../infra/db/stores/events-repo.js';
import { createIdentityStore } from '../infra/db/stores/identity-store.js';
import { createConfigRepo } from '../infra/db/stores/config-repo.js';
import { createNotificationsRepo } from '../infra/db/stores/notifications-repo.js';
import { createDashboardReadModel } from '../infra/db/stores/dashboard-read-model.js';
import { createRowStamps } from '../infra/db/stores/row-stamps.js';

/**
 * `lane`: where the worker's hot single statements go (the run engine's, the delivery worker's
 * take and end, the hand-over's plan read): a small client of their own in a worker, where they
 * pipeline; the pool's client otherwise. `reads`: the same for the API's versions and row stamps.
 */
export function createRepositories(sql: Sql, pool: Db, lane: Sql = sql, reads: Sql = sql) {
  const db = ambientDb(pool);
  return {
    identity: createIdentityStore(db),
    connections: connectionsRepo(db),
    queries: queriesRepo(db),
    queryUsage: createQueryUsage(db),
    reports: createReportsRepo(db),
    /** The API's reads of reports: prepared statements on the pool, their versions on the reads lane (never in a unit of work). */
    reportReads: createReportsReadModel(sql, reads),
    /** The API's ETags of connections, queries, channels, users and runs: what a read shows, stamped by the store (prepared, on the reads lane). */
    rowStamps: createRowStamps(reads),
    channels: createChannelsRepo(db),
    deliveries: createDeliveriesRepo(db),
    /** A run's deliveries as its hand-over reads them: one prepared statement on the lane (never in a unit of work). */
    deliveryPlans: createDeliveryPlanReads(lane),
    /** With the delivery worker's two prepared statements (take with what a send reads; end with the run's settling). */
    attempts: { ...createAttemptsRepo(db), ...createDeliveryStatements(lane) },
    runs: createRunsRepo(db, sql),
    runEngine: createRunEngineRepo(db, lane),
    scheduling: createSchedulingRepo(db),
    links: createLinksRepo(db),
    storage: createStorageRepo(db),
    config: createConfigRepo(db),
    notifications: createNotificationsRepo(db),
    /** The home page's figures, read in one statement (GET /dashboard). */
    dashboard: createDashboardReadModel(db),
    /** Events written after a commit (a change not yet on the unit of work); still in the store. */
    outbox: outboxRepo(db),
    /** The outbox's numbered events: the relay's log, the feed's history, the retention's purge. */
    events: createEventLog(pool),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
