/**
 * A stored resource as a configuration document's spec: the fields a document may set, snake
 * case as in the API, references by key, secrets as `{configured: true}` when stored. Export
 * writes these, and the planner compares a document's spec with them field by field.
 */
import type { Secrets } from '../../core/secrets.js';
import { openSecrets, secretFieldsOf } from '../channels/channel-settings.js';
import type { ChannelPlugin } from '../plugins/channel.js';
import { deliverySettingsView } from '../deliveries/deliveries-service.js';
import type { QueryParameter } from '../queries/parameters.js';
import { CONFIGURED, type ConfigKind } from './model.js';
import type { ConfigState } from './ports.js';

export type Spec = Record<string, unknown>;

const parameterSpec = (p: QueryParameter): Spec => ({
  name: p.name, type: p.type, required: p.required ?? false,
  ...(p.default !== undefined ? { default: p.default } : {}),
  ...(p.description !== undefined ? { description: p.description } : {}),
});

/** The stored resources of one kind. */
export const recordsOf = (state: ConfigState, kind: ConfigKind): Array<{ id: string; key: string; version: number }> =>
  ({ connection: state.connections, query: state.queries, channel: state.channels, report: state.reports })[kind];

/** Keys by id, for every kind. */
export function keysById(state: ConfigState): Map<string, string> {
  const keys = new Map<string, string>();
  for (const list of [state.connections, state.queries, state.channels, state.reports]) for (const r of list) keys.set(r.id, r.key);
  return keys;
}

export interface SpecContext {
  keys: Map<string, string>;
  deliveriesOf: Map<string, ConfigState['deliveries']>;
  plugin(type: string): ChannelPlugin | undefined;
  secrets: Secrets;
}

/** The secret fields of a resource's spec, by dotted path under spec. */
export function secretPaths(kind: ConfigKind, spec: Spec, plugin: (type: string) => ChannelPlugin | undefined): string[] {
  if (kind === 'connection') return ['password'];
  if (kind === 'channel') {
    const p = typeof spec.type === 'string' ? plugin(spec.type) : undefined;
    return p ? secretFieldsOf(p).map((f) => `settings.${f}`) : [];
  }
  return [];
}

export function connectionSpec(c: ConfigState['connections'][number]): Spec {
  return {
    name: c.name, type: c.type, host: c.host, port: c.port, database: c.database, username: c.username,
    ...(c.passwordSealed ? { password: CONFIGURED } : {}),
    ssl_mode: c.sslMode, ssl_ca: c.sslCa, options: c.options,
  };
}

export function querySpec(q: ConfigState['queries'][number], ctx: SpecContext): Spec {
  return {
    name: q.name, description: q.description, connection: ctx.keys.get(q.connectionId) ?? null, sql: q.sql,
    parameters: q.parameters.map(parameterSpec),
  };
}

export function channelSpec(c: ConfigState['channels'][number], ctx: SpecContext): Spec {
  const settings: Spec = { ...c.settings };
  const stored = openSecrets(c, ctx.secrets);
  const plugin = ctx.plugin(c.type);
  for (const name of plugin ? secretFieldsOf(plugin) : Object.keys(stored)) {
    if (stored[name] !== undefined && stored[name] !== null) settings[name] = CONFIGURED;
  }
  return { name: c.name, type: c.type, settings };
}

export function reportSpec(r: ConfigState['reports'][number], ctx: SpecContext): Spec {
  return {
    title: r.title, description: r.description, query: ctx.keys.get(r.queryId) ?? null, query_version: r.queryVersion,
    parameters: r.parameters, schedule: r.schedule ? { cron: r.schedule.cron, timezone: r.schedule.timezone } : null,
    condition: r.condition, paused: r.paused,
    deliveries: (ctx.deliveriesOf.get(r.id) ?? []).map((d) => ({ channel: ctx.keys.get(d.channelId) ?? null, settings: deliverySettingsView(d.settings) })),
  };
}

/** A stored resource's spec, by kind. */
export function specOf(kind: ConfigKind, record: unknown, ctx: SpecContext): Spec {
  switch (kind) {
    case 'connection': return connectionSpec(record as ConfigState['connections'][number]);
    case 'query': return querySpec(record as ConfigState['queries'][number], ctx);
    case 'channel': return channelSpec(record as ConfigState['channels'][number], ctx);
    case 'report': return reportSpec(record as ConfigState['reports'][number], ctx);
  }
}
