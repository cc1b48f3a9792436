/**
 * Carrying out a plan's steps through the resources' own services, in the caller's unit of work:
 * creates and updates in dependency order (keys resolved to ids as they are made), then the
 * deletions in reverse, then the marks of what imports or the configuration directory manage. A
 * service's refusal is told as the document's field and line.
 */
import { DomainError, validationFailed } from '../../core/errors.js';
import type { Actor } from '../audit/security-events.js';
import type { ConnectionsService } from '../connections/connections-service.js';
import type { QueriesService } from '../queries/queries-service.js';
import type { ChannelsService } from '../channels/channels-service.js';
import type { ReportsService } from '../reports/reports-service.js';
import type { DeliveriesService } from '../deliveries/deliveries-service.js';
import type { ChannelPlugin } from '../plugins/channel.js';
import type { QueryParameter } from '../queries/parameters.js';
import type { Condition } from '../reports/model.js';
import { CONFIG_KINDS, CONFIGURED, DOCUMENT_KIND, type ConfigDocument, type ConfigKind, type PlannedChange } from './model.js';
import type { ConfigState, ConfigStore, ManagedBy } from './ports.js';
import { recordsOf, secretPaths, type Spec } from './specs.js';
import { isKeep, lineOf } from './diff.js';
import { from } from './problems.js';

/** One change of a plan, with what carrying it out needs. */
export interface Step {
  change: PlannedChange;
  doc?: ConfigDocument;
  /** The spec with its secrets resolved (kept ones left out). */
  spec?: Spec;
  current?: { id: string; version: number; record: unknown };
}

/**
 * A service's refusal of one document's change, told as that document's: its fields under
 * documents.<index>.spec, with their lines (a cron the reports service refuses, a channel setting).
 */
function inDocument(err: unknown, doc: ConfigDocument): unknown {
  if (!(err instanceof DomainError)) return err;
  const fields = err.extras.errors;
  if (!fields || fields.length === 0) {
    return new DomainError(err.code, `${DOCUMENT_KIND[doc.kind]} ${doc.name} (document ${doc.index}, line ${doc.line ?? 1}): ${err.message}`, err.extras);
  }
  return validationFailed(fields.map((f) => {
    const path = `spec.${f.field.replace(/^settings\.(?=settings\.)/, '')}`;
    const line = lineOf(doc, path);
    return from(doc.source, { ...f, field: `documents.${doc.index}.${path}`, line, message: `${f.message ?? f.code} (${DOCUMENT_KIND[doc.kind]} ${doc.name}, line ${line})` });
  }), `${DOCUMENT_KIND[doc.kind]} ${doc.name} was refused; nothing was applied`);
}

export function createApplySteps(deps: {
  store: Pick<ConfigStore, 'mark' | 'unmark'>;
  connections: Pick<ConnectionsService, 'create' | 'update' | 'delete'>;
  queries: Pick<QueriesService, 'create' | 'update' | 'delete'>;
  channels: Pick<ChannelsService, 'create' | 'update' | 'delete'>;
  reports: Pick<ReportsService, 'create' | 'update' | 'delete' | 'pause' | 'resume'>;
  deliveries: Pick<DeliveriesService, 'create' | 'delete'>;
  plugins: { channel(type: string): ChannelPlugin | undefined };
}) {
  /** Carries out the steps, in dependency order, through the services (in the caller's unit of work). */
  async function carryOut(steps: Step[], actor: Actor, by: ManagedBy, state: () => Promise<ConfigState>): Promise<void> {
    // Keys to ids: what is stored, then what this apply makes as it goes.
    const ids = new Map<string, string>();
    const stored = await state();
    for (const kind of CONFIG_KINDS) for (const r of recordsOf(stored, kind)) ids.set(`${kind}/${r.key}`, r.id);
    const idOf = (kind: ConfigKind, key: unknown): string => {
      const id = ids.get(`${kind}/${String(key)}`);
      if (!id) throw new DomainError('validation.failed', `${DOCUMENT_KIND[kind]} ${String(key)} is not there`);
      return id;
    };
    /** One create or update, through the resource's service; answers its id. */
    const applyOne = async (s: Step & { doc: ConfigDocument; spec: Spec }, kind: ConfigKind): Promise<string> => {
      let id: string;
      const spec = s.spec;
      const has = (k: string) => Object.hasOwn(spec, k);
      const version = s.current?.version ?? 0;
      if (kind === 'connection') {
        const input = {
          ...(has('type') ? { type: spec.type as string } : {}), ...(has('host') ? { host: spec.host as string } : {}),
          ...(has('port') ? { port: spec.port as number } : {}), ...(has('database') ? { database: spec.database as string } : {}),
          ...(has('username') ? { username: spec.username as string } : {}), ...(has('password') ? { password: spec.password as string } : {}),
          ...(has('ssl_mode') ? { sslMode: spec.ssl_mode as never } : {}), ...(has('ssl_ca') ? { sslCa: spec.ssl_ca as string | null } : {}),
          ...(has('options') ? { options: spec.options as Record<string, unknown> } : {}),
        };
        id = s.current
          ? (await deps.connections.update(s.current.id, { ...input, ...(has('name') ? { name: spec.name as string } : {}), version }, actor)).id
          : (await deps.connections.create({ ...input, name: spec.name as string, key: s.change.name }, actor)).id;
      } else if (kind === 'query') {
        const input = {
          ...(has('name') ? { name: spec.name as string } : {}), ...(has('description') ? { description: spec.description as string | null } : {}),
          ...(has('connection') ? { connectionId: idOf('connection', spec.connection) } : {}), ...(has('sql') ? { sql: spec.sql as string } : {}),
          ...(has('parameters') ? { parameters: spec.parameters as QueryParameter[] } : {}),
        };
        id = s.current
          ? (await deps.queries.update(s.current.id, { ...input, version }, actor)).id
          : (await deps.queries.create({ ...input, name: spec.name as string, connectionId: idOf('connection', spec.connection), sql: spec.sql as string, key: s.change.name }, actor)).id;
      } else if (kind === 'channel') {
        const settings = has('settings') ? { ...(spec.settings as Spec) } : undefined;
        // Secrets kept as stored are sent as kept ({configured: true}), as the API takes them.
        if (settings && s.current) {
          for (const path of secretPaths('channel', s.doc.spec, (t) => deps.plugins.channel(t))) {
            const leaf = path.replace(/^settings\./, '');
            if (!(leaf in settings) && isKeep((s.doc.spec.settings as Spec | undefined)?.[leaf])) settings[leaf] = CONFIGURED;
          }
        }
        id = s.current
          ? (await deps.channels.update(s.current.id, { ...(has('name') ? { name: spec.name as string } : {}), ...(settings ? { settings } : {}), version }, actor)).id
          : (await deps.channels.create({ name: spec.name as string, type: spec.type as string, settings: settings ?? {}, key: s.change.name }, actor)).id;
      } else {
        const input = {
          ...(has('title') ? { title: spec.title as string } : {}), ...(has('description') ? { description: spec.description as string | null } : {}),
          ...(has('query') ? { queryId: idOf('query', spec.query) } : {}), ...(has('query_version') ? { queryVersion: spec.query_version as number | null } : {}),
          ...(has('parameters') ? { parameters: spec.parameters as Record<string, string | number | boolean | null> } : {}),
          ...(has('schedule') ? { schedule: spec.schedule as { cron: string; timezone: string } | null } : {}),
          ...(has('condition') ? { condition: spec.condition as Condition | null } : {}),
        };
        if (s.current) {
          const diffOf = (p: string) => s.change.diff.some((f) => f.path === `spec.${p}` || f.path.startsWith(`spec.${p}.`));
          id = s.current.id;
          if (Object.keys(input).some((k) => diffOf({ queryId: 'query', queryVersion: 'query_version' }[k] ?? k))) {
            await deps.reports.update(id, { ...input, version });
          }
          if (has('paused') && diffOf('paused')) await (spec.paused ? deps.reports.pause(id) : deps.reports.resume(id));
        } else {
          id = (await deps.reports.create({ ...input, title: spec.title as string, queryId: idOf('query', spec.query), paused: spec.paused as boolean | undefined, key: s.change.name }, actor)).id;
        }
        if (has('deliveries') && (!s.current || s.change.diff.some((f) => f.path.startsWith('spec.deliveries')))) {
          // The deliveries are replaced as a whole, in the document's order.
          const now = await state();
          for (const d of now.deliveries.filter((x) => x.reportId === id)) await deps.deliveries.delete(id, d.id, actor);
          for (const [i, del] of (spec.deliveries as Array<{ channel: string; settings?: Spec }>).entries()) {
            await deps.deliveries.create(id, { channelId: idOf('channel', del.channel), position: i + 1, settings: del.settings ?? {} }, actor);
          }
        }
      }
      return id;
    };
    const created: Array<{ kind: ConfigKind; id: string; path: string | null }> = [];
    for (const kind of CONFIG_KINDS) {
      for (const s of steps) {
        if (s.change.kind !== kind || !s.doc || !s.spec || (s.change.action !== 'create' && s.change.action !== 'update')) continue;
        let id: string;
        try {
          id = await applyOne(s as Step & { doc: ConfigDocument; spec: Spec }, kind);
        } catch (err) {
          throw inDocument(err, s.doc);
        }
        ids.set(`${kind}/${s.change.name}`, id);
        if (!s.current) created.push({ kind, id, path: s.doc.source });
      }
    }
    for (const s of steps) {
      if (s.change.action !== 'delete' || !s.current) continue;
      const id = s.current.id;
      if (s.change.kind === 'report') await deps.reports.delete(id);
      else if (s.change.kind === 'channel') await deps.channels.delete(id, actor);
      else if (s.change.kind === 'query') await deps.queries.delete(id);
      else await deps.connections.delete(id, actor);
      await deps.store.unmark(s.change.kind, id);
    }
    if (by === 'gitops') {
      // Every resource the directory defines is the directory's, with its file (a detached one stays detached).
      const marks = steps.filter((s) => s.doc && (s.change.action !== 'delete')).flatMap((s) => {
        const id = ids.get(`${s.change.kind}/${s.change.name}`);
        if (!id) return [];
        const had = stored.managed.find((m) => m.kind === s.change.kind && m.id === id);
        return had?.by === 'gitops' && had.path === s.doc!.source ? [] : [{ kind: s.change.kind, id, path: s.doc!.source, by }];
      });
      await deps.store.mark(marks);
    } else if (created.length > 0) await deps.store.mark(created.map((c) => ({ ...c, by })));
  }

  return carryOut;
}
