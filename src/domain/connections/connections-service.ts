/**
 * Connections: the user databases Herald reads from. Settings are checked against the plugin of
 * their type (its options schema and its own rules); the password goes only through the secret
 * box; a connection a query uses cannot be deleted.
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, inUse, notFound, validationFailed, type FieldProblem } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { insertUnderFreeKey } from '../../core/slug.js';
import type { PageRequest } from '../../core/cursor.js';
import type { Secrets } from '../../core/secrets.js';
import type { ConnectionConfig, Connector, ConnectorLimits, SslMode } from '../plugins/connector.js';
import type { PluginRegistry } from '../plugins/plugin.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import type { SecurityEventsRepo } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import { configOf, passwordContext, type ConnectorPools } from './pools.js';
import type { ConnectionChanges, ConnectionRecord, ConnectionSettingsInput, SecretWrite } from './model.js';
import type { ConnectionsRepo, SchemaCheck } from './ports.js';

export interface TestResult {
  serverVersion: string;
  roundTripMs: number;
}

const DEFAULT_SSL_MODE: SslMode = 'prefer';

/** A test or an introspection never waits longer than this on top of the connect timeout. */
const OPERATION_LIMIT_MS = 60_000;

export function createConnectionsService(deps: {
  /** Reads; changes go through the unit of work, with their audit record. */
  store: ConnectionsRepo;
  uow: UnitOfWork;
  plugins: PluginRegistry<Connector>;
  secrets: Secrets;
  checkSchema: SchemaCheck;
  pools: ConnectorPools;
  /** The limits of sessions opened for unsaved settings (tests). */
  limits: ConnectorLimits;
  clock: Clock;
}) {
  const { store, clock } = deps;

  const connectorOf = (type: string | undefined, field = 'type'): Connector => {
    const connector = type ? deps.plugins.connector(type) : undefined;
    if (!connector) {
      const known = deps.plugins.list().filter((p) => p.kind === 'connector').map((p) => p.id).join(', ');
      throw validationFailed([{ field, code: type ? 'validation.enum' : 'validation.required', message: `must be an installed connector: ${known}` }]);
    }
    return connector;
  };

  const defaultPort = (connector: Connector): number | undefined => {
    const port = (connector.manifest.settingsSchema.properties as Record<string, { default?: unknown }> | undefined)?.port?.default;
    return typeof port === 'number' ? port : undefined;
  };

  /** The plugin's checks of complete settings: its options schema, then its own rules. */
  const check = (connector: Connector, config: ConnectionConfig): void => {
    const optionsSchema = (connector.manifest.settingsSchema.properties as Record<string, Record<string, unknown>> | undefined)?.options
      ?? { type: 'object', additionalProperties: false };
    const problems: FieldProblem[] = deps.checkSchema(optionsSchema, config.options, 'options');
    if (problems.length > 0) throw validationFailed(problems);
    connector.validate(config);
  };

  /** Merges given settings over a saved connection's (or the plugin's defaults). */
  const merge = (connector: Connector, input: ConnectionSettingsInput, base: ConnectionRecord | undefined, basePassword: string | null) => {
    const required = (value: string | undefined, field: string): string => {
      if (value === undefined) throw validationFailed([{ field, code: 'validation.required', message: 'is required' }]);
      return value;
    };
    const port = input.port ?? base?.port ?? defaultPort(connector);
    if (port === undefined) throw validationFailed([{ field: 'port', code: 'validation.required', message: 'is required' }]);
    const config: ConnectionConfig = {
      host: required(input.host ?? base?.host, 'host'),
      port,
      database: required(input.database ?? base?.database, 'database'),
      username: required(input.username ?? base?.username, 'username'),
      password: passwordAfter(input.password, basePassword),
      sslMode: input.sslMode ?? base?.sslMode ?? DEFAULT_SSL_MODE,
      sslCa: input.sslCa !== undefined ? input.sslCa : base?.sslCa ?? null,
      options: input.options ?? base?.options ?? {},
    };
    check(connector, config);
    return config;
  };

  const get = async (id: string): Promise<ConnectionRecord> => {
    const row = await store.find(id);
    if (!row) throw notFound('connection');
    return row;
  };

  /** Runs a test or an introspection within its time limit; past it, the database is unreachable for us. */
  const bounded = async <T>(limits: ConnectorLimits, work: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const signal = AbortSignal.timeout(limits.connectTimeoutMs + OPERATION_LIMIT_MS);
    try {
      return await work(signal);
    } catch (err) {
      if (signal.aborted && !(err instanceof DomainError)) {
        throw new DomainError('connection.unreachable', `The database did not answer within ${(limits.connectTimeoutMs + OPERATION_LIMIT_MS) / 1000} s`);
      }
      throw err;
    }
  };

  /**
   * A stored password only ever goes where it was given for: settings that send it to another
   * server or account must carry the password again (else an admin could read it off a server
   * of their own).
   */
  const guardStoredPassword = (input: ConnectionSettingsInput, base: ConnectionRecord, config: ConnectionConfig): void => {
    if (!base.passwordSealed || (typeof input.password === 'string')) return;
    const moved = config.host !== base.host || config.port !== base.port || config.username !== base.username
      || config.database !== base.database || (input.type !== undefined && input.type !== base.type)
      || (config.sslMode !== base.sslMode && config.sslMode === 'disable');
    if (moved && config.password !== null) {
      throw validationFailed([{ field: 'password', code: 'validation.required', message: 'send the password again when the host, port, database, user or TLS mode changes' }]);
    }
  };

  const audit = (events: SecurityEventsRepo, type: 'connection.created' | 'connection.updated' | 'connection.deleted', actor: Actor, c: { id: string; name: string }, details: Record<string, string | number | boolean | null> = {}) =>
    recordSecurityEvent(events, { type, actor, userId: actor.userId ?? null, target: { type: 'connection', id: c.id }, details: { name: c.name, ...details } }, clock);

  return {
    list: (q: PageRequest) => store.list(q),
    get,

    async create(input: ConnectionSettingsInput & { name: string; key?: string | undefined }, actor: Actor): Promise<ConnectionRecord> {
      const connector = connectorOf(input.type);
      const config = merge(connector, input, undefined, null);
      const id = newId();
      const now = clock.now();
      const passwordSealed = config.password === null ? null : deps.secrets.seal(config.password, passwordContext(id));
      return deps.uow.run(async (tx) => {
        const row = await insertUnderFreeKey('connection', input.key, input.name, {
          keysLike: (base) => tx.connections.keysLike(base),
          insert: (key) => tx.connections.insert({
            id, key, name: input.name.trim(), type: connector.manifest.id, host: config.host, port: config.port, database: config.database,
            username: config.username, passwordSealed, sslMode: config.sslMode, sslCa: config.sslCa, options: config.options,
            createdBy: actor.userId ?? null, createdAt: now, updatedAt: now,
          }),
        });
        await audit(tx.securityEvents, 'connection.created', actor, row, { type: row.type });
        return row;
      });
    },

    async update(id: string, input: Omit<ConnectionSettingsInput, 'type'> & { name?: string | undefined; key?: string | undefined; version: number }, actor: Actor): Promise<ConnectionRecord> {
      const before = await get(id);
      if (before.version !== input.version) throw new DomainError('conflict.version', 'The connection changed since you read it; fetch it again and retry');
      const connector = connectorOf(before.type);
      const basePassword = before.passwordSealed ? deps.secrets.open(before.passwordSealed, passwordContext(id)) : null;
      const config = merge(connector, input, before, basePassword);
      guardStoredPassword(input, before, config);
      const changes: ConnectionChanges = {
        host: config.host, port: config.port, database: config.database, username: config.username,
        sslMode: config.sslMode, sslCa: config.sslCa, options: config.options,
      };
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.key !== undefined) changes.key = input.key;
      if (input.password !== undefined && !isKeep(input.password)) {
        changes.passwordSealed = config.password === null ? null : deps.secrets.seal(config.password, passwordContext(id));
      }
      const after = await deps.uow.run(async (tx) => {
        const row = await tx.connections.update(id, input.version, changes, clock.now());
        await audit(tx.securityEvents, 'connection.updated', actor, row, { password_changed: changes.passwordSealed !== undefined });
        return row;
      });
      await deps.pools.drop(id);
      return after;
    },

    async delete(id: string, actor: Actor): Promise<void> {
      const row = await get(id);
      await deps.uow.run(async (tx) => {
        const outcome = await tx.connections.delete(id);
        if (outcome === 'not_found') throw notFound('connection');
        if (outcome === 'in_use') throw inUse('connection', await tx.connections.dependents(id));
        await audit(tx.securityEvents, 'connection.deleted', actor, row);
      });
      await deps.pools.drop(id);
    },

    /** Tries a saved connection through its pooled session. */
    async test(id: string): Promise<TestResult> {
      const { session } = deps.pools.sessionFor(await get(id));
      return bounded(deps.limits, (signal) => session.test(signal));
    },

    /** Tries settings that are not saved; with connectionId, what is left out comes from that connection. */
    async testSettings(input: ConnectionSettingsInput & { connectionId?: string | undefined }): Promise<TestResult> {
      const base = input.connectionId ? await get(input.connectionId) : undefined;
      const connector = connectorOf(input.type ?? base?.type);
      if (base && connector.manifest.id !== base.type) {
        throw validationFailed([{ field: 'type', code: 'validation.invalid', message: 'must be the type of connection_id' }]);
      }
      const basePassword = base ? configOf(base, deps.secrets).password : null;
      const config = merge(connector, input, base, basePassword);
      if (base) guardStoredPassword(input, base, config);
      const session = connector.open(config, { ...deps.limits, poolSize: 1 });
      try {
        return await bounded(deps.limits, (signal) => session.test(signal));
      } finally {
        await session.close().catch(() => undefined);
      }
    },

    async schema(id: string) {
      const found = await store.schemaOf(id);
      if (!found) throw notFound('connection');
      return { connectionId: id, refreshedAt: found.refreshedAt, tables: found.snapshot?.tables ?? [] };
    },

    async refreshSchema(id: string) {
      const row = await get(id);
      const { session } = deps.pools.sessionFor(row);
      const snapshot = await bounded(deps.limits, (signal) => session.introspect(signal));
      const at = clock.now();
      await store.saveSchema(id, snapshot, at);
      return { connectionId: row.id, refreshedAt: at, tables: snapshot.tables };
    },
  };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;

const isKeep = (w: SecretWrite): boolean => w === undefined || (typeof w === 'object' && w !== null);

/** The password after a secret-field write: keep, remove or replace. */
function passwordAfter(write: SecretWrite, current: string | null): string | null {
  if (isKeep(write)) return current;
  return write as string | null;
}
