/**
 * The unit of work: a service's change, its audit record and its events commit together or not
 * at all. `run` hands the work every repository bound to one transaction; the service owns that
 * boundary, no repository opens a transaction of its own, and nothing slow (network, user
 * databases, files) runs inside one.
 */
import type { ConnectionsRepo } from '../connections/ports.js';
import type { ChannelsRepo } from '../channels/ports.js';
import type { SecurityEventsRepo } from '../identity/ports.js';
import type { Outbox } from '../events/ports.js';
import type { RunEngineStore } from '../runs/engine-ports.js';
import type { ReportsRepo } from '../reports/ports.js';
import type { QueriesRepo } from '../queries/ports.js';

export interface TxRepos {
  connections: ConnectionsRepo;
  channels: ChannelsRepo;
  securityEvents: SecurityEventsRepo;
  outbox: Outbox;
  runEngine: Pick<RunEngineStore, 'start' | 'finish' | 'markLost' | 'failLostAttempts'>;
  reports: ReportsRepo;
  queries: QueriesRepo;
}

export interface UnitOfWork {
  run<T>(work: (tx: TxRepos) => Promise<T>): Promise<T>;
}
