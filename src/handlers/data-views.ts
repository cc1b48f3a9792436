/** Plugins, connections and queries → the wire shapes of openapi.yaml. */
import type { components } from '../generated/openapi.js';
import type { JsonSchema, PluginManifest } from '../domain/plugins/plugin.js';
import type { SchemaTable } from '../domain/plugins/connector.js';
import type { ConnectionRecord, ConnectionSettingsInput } from '../domain/connections/model.js';
import type { QueryRecord, QueryVersionRecord } from '../domain/queries/model.js';
import type { QueryParameter } from '../domain/queries/parameters.js';
import type { Preview } from '../domain/queries/preview-service.js';

type Schemas = components['schemas'];
const iso = (d: Date) => d.toISOString();

/** A plugin as GET /plugins shows it; a channel's `deliverySchema` is what its deliveries add. */
export function pluginView(m: PluginManifest, deliverySchema?: JsonSchema): Schemas['Plugin'] {
  return {
    id: m.id, version: m.version, kind: m.kind, settings_schema: m.settingsSchema,
    ...(deliverySchema ? { delivery_schema: deliverySchema } : {}),
    capabilities: m.capabilities, translations: m.translations,
  };
}

/**
 * The revisions of these views: part of their ETags (with the store's row stamps), so that a change
 * of what a view shows for the same stored rows never answers 304. Bump one when its view changes.
 */
export const CONNECTION_VIEW = 'connection-1';
export const QUERY_VIEW = 'query-1';

export function connectionView(c: ConnectionRecord): Schemas['Connection'] {
  return {
    id: c.id, key: c.key, name: c.name, type: c.type, host: c.host, port: c.port, database: c.database, username: c.username,
    ...(c.passwordSealed ? { password: { configured: true as const } } : {}),
    ssl_mode: c.sslMode, ssl_ca: c.sslCa, options: c.options,
    schema_refreshed_at: c.schemaRefreshedAt ? iso(c.schemaRefreshedAt) : null,
    created_at: iso(c.createdAt), updated_at: iso(c.updatedAt), version: c.version,
  };
}

/** The settings fields of a create, update or test body, in the domain's words. */
export function connectionSettingsOf(b: {
  type?: string; host?: string; port?: number; database?: string; username?: string;
  password?: Schemas['SecretInput']; ssl_mode?: Schemas['SslMode']; ssl_ca?: string | null; options?: Record<string, unknown>;
}): ConnectionSettingsInput {
  return {
    type: b.type, host: b.host, port: b.port, database: b.database, username: b.username,
    password: b.password as ConnectionSettingsInput['password'], sslMode: b.ssl_mode, sslCa: b.ssl_ca, options: b.options,
  };
}

export function schemaView(s: { connectionId: string; refreshedAt: Date | null; tables: SchemaTable[] }): Schemas['ConnectionSchema'] {
  return { connection_id: s.connectionId, refreshed_at: s.refreshedAt ? iso(s.refreshedAt) : null, tables: s.tables };
}

/** A declared parameter as read back: `required` always filled in. */
const parameterView = (p: QueryParameter): Schemas['Query']['parameters'][number] => ({
  name: p.name, type: p.type, required: p.required ?? false,
  ...(p.default !== undefined ? { default: p.default } : {}),
  ...(p.description !== undefined ? { description: p.description } : {}),
});

export function queryView(q: QueryRecord): Schemas['Query'] {
  return {
    id: q.id, key: q.key, name: q.name, description: q.description, connection_id: q.connectionId, sql: q.sql,
    parameters: q.parameters.map(parameterView), current_version: q.currentVersion,
    created_at: iso(q.createdAt), updated_at: iso(q.updatedAt), created_by: q.createdBy, version: q.version,
  };
}

export function queryVersionView(v: QueryVersionRecord): Schemas['QueryVersion'] {
  return {
    number: v.number, sql: v.sql, parameters: v.parameters.map(parameterView), connection_id: v.connectionId,
    created_at: iso(v.createdAt), created_by: v.createdBy, restored_from: v.restoredFrom,
  };
}

export function previewView(p: Preview): Schemas['QueryPreview'] {
  return { columns: p.columns, rows: p.rows, row_count: p.rowCount, truncated: p.truncated, elapsed_ms: p.elapsedMs };
}

/** Declared parameters as the domain takes them (the wire shape matches). */
export const parametersOf = (ps: Schemas['QueryParameter'][] | undefined): QueryParameter[] | undefined =>
  ps?.map((p) => ({
    name: p.name, type: p.type,
    ...(p.default !== undefined ? { default: p.default } : {}),
    ...(p.required !== undefined ? { required: p.required } : {}),
    ...(p.description !== undefined ? { description: p.description } : {}),
  }));
