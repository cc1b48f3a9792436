/**
 * One connector session (a bounded pool) per saved connection, opened on first use and replaced
 * when the connection changes (its version moves on). Unsaved settings get a session of their
 * own that the caller closes.
 */
import type { Secrets } from '../../core/secrets.js';
import type { ConnectionConfig, Connector, ConnectorLimits, ConnectorSession } from '../plugins/connector.js';
import type { PluginRegistry } from '../plugins/plugin.js';
import type { ConnectionRecord } from './model.js';

export const passwordContext = (connectionId: string) => `connections.password:${connectionId}`;

/** The plugin's view of a saved connection, with its password opened. */
export function configOf(c: ConnectionRecord, secrets: Secrets): ConnectionConfig {
  return {
    host: c.host, port: c.port, database: c.database, username: c.username,
    password: c.passwordSealed ? secrets.open(c.passwordSealed, passwordContext(c.id)) : null,
    sslMode: c.sslMode, sslCa: c.sslCa, options: c.options,
  };
}

export interface ConnectorPools {
  /** The session of a saved connection at its current version. */
  sessionFor(connection: ConnectionRecord): { connector: Connector; session: ConnectorSession };
  /** Closes the session of a connection (changed or deleted). */
  drop(connectionId: string): Promise<void>;
  closeAll(): Promise<void>;
}

export function createConnectorPools(deps: {
  plugins: PluginRegistry<Connector>; secrets: Secrets; limits: ConnectorLimits;
}): ConnectorPools {
  const open = new Map<string, { version: number; connector: Connector; session: ConnectorSession }>();
  const closeQuietly = (session: ConnectorSession) => session.close().catch(() => undefined);
  return {
    sessionFor(connection) {
      const held = open.get(connection.id);
      if (held && held.version === connection.version) return held;
      if (held) void closeQuietly(held.session);
      const connector = deps.plugins.connector(connection.type);
      if (!connector) throw new Error(`connector plugin ${connection.type} is not installed`);
      const session = connector.open(configOf(connection, deps.secrets), deps.limits);
      const entry = { version: connection.version, connector, session };
      open.set(connection.id, entry);
      return entry;
    },
    async drop(connectionId) {
      const held = open.get(connectionId);
      open.delete(connectionId);
      if (held) await closeQuietly(held.session);
    },
    async closeAll() {
      const all = [...open.values()];
      open.clear();
      await Promise.all(all.map((e) => closeQuietly(e.session)));
    },
  };
}
