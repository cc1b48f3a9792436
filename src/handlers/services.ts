/**
 * What handlers may call: the domain services the API composition root (src/app.ts) wires.
 * Each handler factory picks only what it uses.
 */
import type { Registry } from 'prom-client';
import type { Readiness } from '../domain/health/readiness.js';
import type { AboutInfo } from './system/get-about.js';
import type { SetupService } from '../domain/identity/setup-service.js';
import type { SignInService } from '../domain/identity/sign-in-service.js';
import type { PasswordService } from '../domain/identity/password-service.js';
import type { SecurityEventsService } from '../domain/identity/security-events.js';
import type { UsersService } from '../domain/identity/users-service.js';
import type { SessionsService } from '../domain/identity/sessions-service.js';
import type { ApiKeysService } from '../domain/identity/api-keys-service.js';

import type { PluginRegistry } from '../domain/plugins/plugin.js';
import type { ConnectionsService } from '../domain/connections/connections-service.js';
import type { QueriesService } from '../domain/queries/queries-service.js';
import type { PreviewService } from '../domain/queries/preview-service.js';
import type { SchedulesService } from '../domain/schedules/schedules-service.js';
import type { ReportsService } from '../domain/reports/reports-service.js';
import type { RunsService } from '../domain/runs/runs-service.js';
import type { ChangeEventSource } from '../domain/runs/live-events.js';

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
  securityEvents: SecurityEventsService;
  plugins: Pick<PluginRegistry, 'list'>;
  connections: ConnectionsService;
  queries: QueriesService;
  preview: PreviewService;
  schedules: SchedulesService;
  reports: ReportsService;
  runs: RunsService;
  eventSource: ChangeEventSource;
}
