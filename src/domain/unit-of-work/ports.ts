/**
 * The unit of work: a service's change, its audit record and its events commit together or not
 * at all. `run` hands the work every repository bound to one transaction; the service owns that
 * boundary, no repository opens a transaction of its own, and nothing slow (network, user
 * databases, files) runs inside one.
 */
import type { ConnectionsRepo } from '../connections/ports.js';
import type { AttemptsRepo, ChannelsRepo, DeliveriesRepo } from '../channels/ports.js';
import type {
  ApiKeysRepo, AuthFlowsRepo, IdentityLinksRepo, PasskeysRepo, PasswordResetsRepo, RecoveryCodesRepo, SecurityEventsRepo,
  SessionsRepo, SettingsRepo, UsersRepo,
} from '../identity/ports.js';
import type { Outbox } from '../events/ports.js';
import type { RunEngineStore } from '../runs/engine-ports.js';
import type { RunsRepo } from '../runs/ports.js';
import type { ScheduleClaims } from '../runs/scheduling-ports.js';
import type { ReportsRepo } from '../reports/ports.js';
import type { QueriesRepo } from '../queries/ports.js';
import type { LinksRepo } from '../links/ports.js';

export interface TxRepos {
  connections: ConnectionsRepo;
  channels: ChannelsRepo;
  deliveries: DeliveriesRepo;
  attempts: AttemptsRepo;
  securityEvents: SecurityEventsRepo;
  outbox: Outbox;
  runEngine: Pick<RunEngineStore, 'start' | 'finish' | 'markLost' | 'beginDeliveries'>;
  runs: RunsRepo;
  scheduleClaims: ScheduleClaims;
  reports: ReportsRepo;
  queries: QueriesRepo;
  links: LinksRepo;
  users: UsersRepo;
  sessions: SessionsRepo;
  apiKeys: ApiKeysRepo;
  passwordResets: PasswordResetsRepo;
  recoveryCodes: RecoveryCodesRepo;
  passkeys: PasskeysRepo;
  authFlows: AuthFlowsRepo;
  identityLinks: IdentityLinksRepo;
  workspaceSettings: SettingsRepo;
  /** Serialises first-run setups until the unit of work ends (a transaction-level advisory lock). */
  lockSetup(): Promise<void>;
}

export interface UnitOfWork {
  run<T>(work: (tx: TxRepos) => Promise<T>): Promise<T>;
}
