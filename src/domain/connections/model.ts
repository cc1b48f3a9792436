/** What the connections domain knows of its records (stored by src/infra/db/stores/connections-repo.ts). */
import type { SslMode } from '../plugins/connector.js';

/**
 * A connection as its reads see it. Its schema snapshot (the last introspection, which for a
 * warehouse of a thousand tables is a megabyte of JSON) is not part of it: only the schema read
 * asks for it (ConnectionsRepo.schemaOf), where every run, list and export would otherwise read
 * and parse it.
 */
export interface ConnectionRecord {
  id: string;
  /** Unique among connections (core/slug.ts). */
  key: string;
  name: string;
  type: string;
  host: string;
  port: number;
  database: string;
  username: string;
  /** Sealed by the secret box (context connections.password:<id>); never leaves the domain opened except to a connector. */
  passwordSealed: string | null;
  sslMode: SslMode;
  sslCa: string | null;
  options: Record<string, unknown>;
  schemaRefreshedAt: Date | null;
  createdBy: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type NewConnection = Omit<ConnectionRecord, 'version' | 'schemaRefreshedAt'>;

export type ConnectionChanges = Partial<Pick<ConnectionRecord,
  'name' | 'key' | 'host' | 'port' | 'database' | 'username' | 'passwordSealed' | 'sslMode' | 'sslCa' | 'options'>>;

/** The wire form of a secret field: a string replaces, null removes, {configured: true} or absent keeps. */
export type SecretWrite = string | null | { configured: true } | undefined;

/** The settings a caller gives (create, test, update), before the plugin's defaults apply. */
export interface ConnectionSettingsInput {
  type?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  database?: string | undefined;
  username?: string | undefined;
  password?: SecretWrite;
  sslMode?: SslMode | undefined;
  sslCa?: string | null | undefined;
  options?: Record<string, unknown> | undefined;
}
