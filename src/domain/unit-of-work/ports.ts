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
import type { NotificationFacts, NotificationsRepo, NotifierCursor } from '../notifications/ports.js';

export interface TxRepos {
  connections: ConnectionsRepo;
  channels: ChannelsRepo;
  deliveries: DeliveriesRepo;
  attempts: AttemptsRepo;
  securityEvents: SecurityEventsRepo;
  outbox: Outbox;
  runEngine: Pick<RunEngineStore, 'start' | 'finish' | 'markLost'>;
  runs: RunsRepo;
  scheduleClaims: ScheduleClaims;
  reports: ReportsRepo;
  queries: QueriesRepo;
  links: LinksRepo;
  notifications: NotificationsRepo;
  notificationFacts: NotificationFacts;
  notifierCursor: NotifierCursor;
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
  /** Serialises configuration applies (imports, the configuration directory) until the unit of work ends. */
  lockConfig(): Promise<void>;
}

/**
 * Nesting (one transaction around several services): a `run` called while another `run` of the
 * same unit of work is in progress in the same async context joins it instead of opening a
 * second transaction. So a feature that must apply many changes all or nothing calls the
 * existing services, each with its rules, inside one run:
 *
 *     await uow.run(async () => {
 *       const c = await connections.create(input, actor);
 *       await queries.create({ ...query, connectionId: c.id }, actor);
 *     });
 *
 * - The inner work runs in a savepoint of the outer transaction: when it throws, its changes are
 *   undone and the error reaches its caller; the outer work may catch it and go on (the outer
 *   transaction is unharmed), or let it go and everything is undone.
 * - The repositories bound to the store (the services' reads outside their own run) read through
 *   the running transaction too: a step sees what the earlier steps wrote.
 * - Events are numbered and published once, after the outermost commit; nothing an inner run
 *   wrote is visible to others before it.
 * - Inner runs of one transaction run one after another, even when started together.
 * - A service's code after its own `run` (a pool dropped, a file removed) runs before the outer
 *   commit and is not undone by an outer rollback; and nothing slow belongs in the outer work
 *   either (a connection or channel test, a user database): do it before or after.
 */
export interface UnitOfWork {
  run<T>(work: (tx: TxRepos) => Promise<T>): Promise<T>;
  /**
   * Runs `work` once the unit of work in progress in this context commits (never when it rolls
   * back), or at once when none is: what a service does after its own commit that an enclosing
   * unit of work could not undo (removing files) waits for the enclosing commit.
   */
  afterCommit(work: () => Promise<void>): Promise<void>;
}
