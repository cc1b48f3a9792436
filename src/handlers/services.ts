/**
 * What handlers may call: the domain services the API composition root (src/app.ts) wires.
 * Each handler factory picks only what it uses.
 */
import type { Registry } from 'prom-client';
import type { Readiness } from '../domain/health/readiness.js';
import type { AboutInfo } from './system/get-about.js';
import type { AuthService } from '../domain/identity/auth-service.js';
import type { UsersService } from '../domain/identity/users-service.js';
import type { SessionsService } from '../domain/identity/sessions-service.js';
import type { ApiKeysService } from '../domain/identity/api-keys-service.js';
import type { Db } from '../infra/db/client.js';

export interface ApiServices {
  readiness: () => Promise<Readiness>;
  registry: Registry;
  metricsToken: string | undefined;
  about: AboutInfo;
  auth: AuthService;
  users: UsersService;
  sessions: SessionsService;
  apiKeys: ApiKeysService;
  /** For read models (lists with filters). */
  db: Db;
}
