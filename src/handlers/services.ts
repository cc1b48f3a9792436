/**
 * What handlers may call: the domain services of the one wiring (src/main/services.ts), handed
 * over by the API (src/main/app.ts). Each handler factory picks only what it uses.
 */
import type { AnswerCache } from './answer-cache.js';
import type { Registry } from 'prom-client';
import type { Readiness } from '../domain/health/readiness.js';
import type { AboutInfo } from './system/get-about.js';
import type { SetupService } from '../domain/sign-in/setup-service.js';
import type { SignInService } from '../domain/sign-in/sign-in-service.js';
import type { PasswordService } from '../domain/sign-in/password-service.js';
import type { SecurityEventsService } from '../domain/audit/security-events.js';
import type { UsersService } from '../domain/users/users-service.js';
import type { SessionsService } from '../domain/sign-in/sessions-service.js';
import type { ApiKeysService } from '../domain/api-keys/api-keys-service.js';
import type { TwoFactorService } from '../domain/sign-in/two-factor-service.js';
import type { PasskeysService } from '../domain/sign-in/passkeys-service.js';
import type { OidcService } from '../domain/sign-in/oidc-service.js';
import type { WorkspaceSettingsService } from '../domain/workspace/workspace-settings.js';

import type { Plugin, PluginRegistry } from '../domain/plugins/plugin.js';
import type { ChannelPlugin } from '../domain/plugins/channel.js';
import type { ConnectionsService } from '../domain/connections/connections-service.js';
import type { QueriesService } from '../domain/queries/queries-service.js';
import type { PreviewService } from '../domain/queries/preview-service.js';
import type { SchedulesService } from '../domain/schedules/schedules-service.js';
import type { ReportsService } from '../domain/reports/reports-service.js';
import type { RunsService } from '../domain/runs/runs-service.js';
import type { EventFeed } from '../domain/events/feed.js';
import type { EventHistory } from '../domain/events/ports.js';
import type { ChannelsService } from '../domain/channels/channels-service.js';
import type { DeliveriesService } from '../domain/deliveries/deliveries-service.js';
import type { createRetryService } from '../domain/deliveries/retry-service.js';
import type { ResultDownloads } from '../domain/results/downloads.js';
import type { LinksService } from '../domain/links/links-service.js';
import type { StorageService } from '../domain/results/storage.js';
import type { ConfigService } from '../domain/config/config-service.js';
import type { GitopsService } from '../domain/config/gitops.js';
import type { AlertSettingsService } from '../domain/alerts/alert-settings.js';
import type { OperationsService } from '../domain/alerts/operations-service.js';
import type { AiSettingsService } from '../domain/assistant/ai-settings.js';
import type { AssistantService } from '../domain/assistant/assistant-service.js';
import type { NotificationsService } from '../domain/notifications/notifications-service.js';
import type { DashboardService } from '../domain/dashboard/dashboard-service.js';
import type { RowStamps } from '../domain/reads/row-stamps.js';

export interface ApiServices {
  readiness: () => Promise<Readiness>;
  registry: Registry;
  metricsToken: string | undefined;
  about: AboutInfo;
  setup: SetupService;
  signIn: SignInService;
  passwords: PasswordService;
  users: UsersService;
  sessions: SessionsService;
  apiKeys: ApiKeysService;
  twoFactor: TwoFactorService;
  passkeys: PasskeysService;
  oidc: OidcService;
  workspaceSettings: WorkspaceSettingsService;
  securityEvents: SecurityEventsService;
  /** The installed plugins; a channel's deliverySchema is served by GET /plugins. */
  plugins: Pick<PluginRegistry<Plugin<'connector'>, ChannelPlugin>, 'list' | 'channel'>;
  /** What a read of connections, queries, channels, users or runs shows, stamped by the store (ETags). */
  stamps: RowStamps;
  /** Answers of those reads (and of the reports) this process keeps by their tags, as bytes. */
  answers: AnswerCache;
  connections: ConnectionsService;
  queries: QueriesService;
  preview: PreviewService;
  schedules: SchedulesService;
  reports: ReportsService;
  runs: RunsService;
  eventFeed: EventFeed;
  eventHistory: EventHistory;
  channels: ChannelsService;
  deliveries: DeliveriesService;
  retries: ReturnType<typeof createRetryService>;
  downloads: ResultDownloads;
  links: LinksService;
  storage: StorageService;
  config: ConfigService;
  gitops: GitopsService;
  alertSettings: AlertSettingsService;
  aiSettings: AiSettingsService;
  assistant: AssistantService;
  operations: Pick<OperationsService, 'status' | 'test' | 'listProblems' | 'getProblem'>;
  notifications: NotificationsService;
  dashboard: DashboardService;
}
