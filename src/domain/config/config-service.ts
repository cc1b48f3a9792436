/**
 * Configuration as code: export, plan and apply.
 *
 * - Export writes the stored resources as documents (specs.ts), deterministic: kinds in
 *   dependency order, resources by key, fields sorted, no ids or times.
 * - Plan reads documents (parse.ts: safe YAML), checks each against CONFIG_SCHEMA and the
 *   references between them, resolves `${env:…}`/`${file:…}` secrets, and compares each document
 *   with the stored resource of the same kind and key, field by field (secrets as set,
 *   unchanged or missing, compared opened, never shown). With `prune`, what the same source
 *   (imports, or the configuration directory) created earlier and the documents no longer have is
 *   deleted. Its hash covers the changes and the versions they start from.
 * - Apply makes the plan in one unit of work, serialised with every other apply, through the
 *   resources' own services (their checks, sealed secrets, audit and events), so everything is
 *   applied or nothing; a given plan hash that no longer matches refuses (import.plan_stale).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Clock } from '../../core/clock.js';
import { DomainError, validationFailed, type FieldProblem } from '../../core/errors.js';
import type { Secrets } from '../../core/secrets.js';
import type { Actor } from '../audit/security-events.js';
import { recordSecurityEvent } from '../audit/security-events.js';
import type { SchemaCheck } from '../connections/ports.js';
import type { ConnectionsService } from '../connections/connections-service.js';
import type { QueriesService } from '../queries/queries-service.js';
import type { ChannelsService } from '../channels/channels-service.js';
import type { ReportsService } from '../reports/reports-service.js';
import type { DeliveriesService } from '../deliveries/deliveries-service.js';
import { openSecrets } from '../channels/channel-settings.js';
import { passwordContext } from '../connections/pools.js';
import type { ChannelPlugin } from '../plugins/channel.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import { dumpDocuments } from './dump.js';
import {
  API_VERSION, CONFIG_KINDS, CONFIG_SCHEMA, DOCUMENT_KIND, KIND_OF_DOCUMENT,
  type ChangeAction, type ConfigDocument, type ConfigKind, type Plan,
} from './model.js';
import { parseDocuments, YamlError } from './parse.js';
import type { ConfigState, ConfigStore, ManagedBy, SecretSources } from './ports.js';
import { keysById, recordsOf, secretPaths, specOf, type Spec, type SpecContext } from './specs.js';
import { createApplySteps, type Step } from './apply-steps.js';
import { from } from './problems.js';
import { canonical, diffSpec, isKeep, lineOf, same } from './diff.js';

export { sourceOfProblem } from './problems.js';

export interface ConfigSource {
  /** The file it came from (a configuration directory), or null for a request's text. */
  path: string | null;
  text: string;
}

export interface ExportFilter {
  kinds?: ConfigKind[] | undefined;
  ids?: string[] | undefined;
  /** kind/key */
  keys?: string[] | undefined;
  includeDependencies?: boolean | undefined;
}


export function createConfigService(deps: {
  store: ConfigStore;
  uow: UnitOfWork;
  connections: Pick<ConnectionsService, 'create' | 'update' | 'delete'>;
  queries: Pick<QueriesService, 'create' | 'update' | 'delete'>;
  channels: Pick<ChannelsService, 'create' | 'update' | 'delete'>;
  reports: Pick<ReportsService, 'create' | 'update' | 'delete' | 'pause' | 'resume'>;
  deliveries: Pick<DeliveriesService, 'create' | 'delete'>;
  plugins: { channel(type: string): ChannelPlugin | undefined };
  secrets: Secrets;
  secretSources: SecretSources;
  checkSchema: SchemaCheck;
  clock: Clock;
}) {
  const carryOut = createApplySteps(deps);
  const contextOf = (state: ConfigState): SpecContext => {
    const deliveriesOf = new Map<string, ConfigState['deliveries']>();
    for (const d of [...state.deliveries].sort((a, b) => a.position - b.position)) {
      const list = deliveriesOf.get(d.reportId) ?? [];
      list.push(d);
      deliveriesOf.set(d.reportId, list);
    }
    return { keys: keysById(state), deliveriesOf, plugin: (t) => deps.plugins.channel(t), secrets: deps.secrets };
  };

  /** The stored value of a secret field, opened (undefined when none is stored). */
  const storedSecret = (kind: ConfigKind, record: unknown, path: string): unknown => {
    if (kind === 'connection') {
      const c = record as ConfigState['connections'][number];
      return c.passwordSealed ? deps.secrets.open(c.passwordSealed, passwordContext(c.id)) : undefined;
    }
    const c = record as ConfigState['channels'][number];
    return openSecrets(c, deps.secrets)[path.replace(/^settings\./, '')];
  };

  /** A secret as written: `${env:NAME}`, `${file:/path}`, a literal, or keep. */
  async function resolveSecret(value: unknown): Promise<{ keep: true } | { value: unknown } | { missing: string }> {
    if (isKeep(value)) return { keep: true };
    if (typeof value !== 'string') return { value };
    const env = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value);
    if (env) {
      // Herald's own settings (the secret key, the store's URL) are never a resource's secret:
      // a channel could otherwise carry them out to any address.
      if (/^SVC_/i.test(env[1]!)) return { missing: `\${env:${env[1]}} names one of Herald's own settings, which a document may not read` };
      const v = deps.secretSources.env(env[1]!);
      return v === undefined || v === '' ? { missing: `the environment variable ${env[1]} is not set` } : { value: v };
    }
    const file = /^\$\{file:(\/[^}]+)\}$/.exec(value);
    if (file) {
      const wanted = path.posix.normalize(file[1]!);
      if (!deps.secretSources.fileDirs.some((dir) => wanted.startsWith(dir.endsWith('/') ? dir : `${dir}/`))) {
        return { missing: `\${file:${file[1]}} is outside the folders secrets may be read from (${deps.secretSources.fileDirs.join(', ')})` };
      }
      const v = await deps.secretSources.file(wanted);
      return v === undefined ? { missing: `the file ${file[1]} cannot be read` } : { value: v.replace(/\r?\n$/, '') };
    }
    return { value };
  }

  /** Reads the sources into documents; throws validation.failed with every problem found. */
  function read(sources: ConfigSource[]): ConfigDocument[] {
    const problems: FieldProblem[] = [];
    const docs: ConfigDocument[] = [];
    sources.forEach((source, s) => {
      let parsed;
      try {
        parsed = parseDocuments(source.text, source.path ?? undefined);
      } catch (err) {
        if (!(err instanceof YamlError)) throw err;
        problems.push(from(source.path, { field: sources.length > 1 ? `files.${s}` : 'yaml', code: 'validation.invalid',
          message: `${source.path ? `${source.path}: ` : ''}${err.message}${err.line ? ` (line ${err.line})` : ''}`, ...(err.line ? { line: err.line } : {}) }));
        return;
      }
      for (const p of parsed) {
        const index = docs.length;
        const found = deps.checkSchema(CONFIG_SCHEMA as unknown as Record<string, unknown>, p.value, `documents.${index}`);
        for (const f of found) {
          const line = p.lines.get(f.field.replace(/^documents\.\d+\.?/, '')) ?? p.line;
          problems.push(from(source.path, { ...f, message: `${f.message ?? f.code}${source.path ? ` (${source.path}, line ${line})` : ` (line ${line})`}`, line }));
        }
        if (found.length > 0) continue;
        const v = p.value as { kind: string; metadata: { name: string }; spec: Spec };
        docs.push({ index, line: p.line, source: source.path, kind: KIND_OF_DOCUMENT[v.kind]!, name: v.metadata.name, spec: v.spec, lines: p.lines });
      }
    });
    const seen = new Map<string, ConfigDocument>();
    for (const d of docs) {
      const id = `${d.kind}/${d.name}`;
      const first = seen.get(id);
      if (first) {
        problems.push(from(d.source, { field: `documents.${d.index}.metadata.name`, code: 'validation.unique', line: lineOf(d, 'metadata.name'),
          message: `${DOCUMENT_KIND[d.kind]} ${d.name} is defined twice (documents ${first.index} and ${d.index})` }));
      } else seen.set(id, d);
    }
    if (problems.length > 0) throw validationFailed(problems, 'The configuration documents are not valid; nothing was applied');
    return docs;
  }


  /** The plan of documents over the stored state (read in the caller's unit of work when applying). */
  async function planOf(docs: ConfigDocument[], options: { prune: boolean; by: ManagedBy }): Promise<{ plan: Plan; steps: Step[] }> {
    const state = await deps.store.state();
    const ctx = contextOf(state);
    const problems: FieldProblem[] = [];
    const byKey = new Map<string, { id: string; version: number; record: unknown }>();
    for (const kind of CONFIG_KINDS) for (const r of recordsOf(state, kind)) byKey.set(`${kind}/${r.key}`, { id: r.id, version: r.version, record: r });
    const inDocs = new Set(docs.map((d) => `${d.kind}/${d.name}`));
    const exists = (kind: ConfigKind, key: unknown) => typeof key === 'string' && (inDocs.has(`${kind}/${key}`) || byKey.has(`${kind}/${key}`));
    const refProblem = (d: ConfigDocument, path: string, kind: ConfigKind, key: unknown) => {
      if (!exists(kind, key)) {
        problems.push(from(d.source, { field: `documents.${d.index}.${path}`, code: 'validation.invalid', line: lineOf(d, path),
          message: `refers to ${DOCUMENT_KIND[kind]} ${String(key)}, which is neither in the documents nor stored (line ${lineOf(d, path)})` }));
      }
    };
    const steps: Step[] = [];
    for (const d of docs) {
      if (d.kind === 'query') refProblem(d, 'spec.connection', 'connection', d.spec.connection);
      if (d.kind === 'report') {
        refProblem(d, 'spec.query', 'query', d.spec.query);
        ((d.spec.deliveries as Array<{ channel: string }> | undefined) ?? []).forEach((del, i) => refProblem(d, `spec.deliveries.${i}.channel`, 'channel', del.channel));
      }
      const current = byKey.get(`${d.kind}/${d.name}`);
      // Secrets: resolved for the change, compared opened with what is stored.
      const spec: Spec = structuredClone(d.spec);
      const secrets = new Map<string, 'set' | 'unchanged'>();
      for (const path of secretPaths(d.kind, d.spec, (t) => deps.plugins.channel(t))) {
        const [head, leaf] = path.includes('.') ? path.split('.', 2) as [string, string] : [null, path];
        const holder = head ? (spec[head] as Spec | undefined) : spec;
        if (!holder || !(leaf in holder)) continue;
        const resolved = await resolveSecret(holder[leaf]);
        const line = lineOf(d, `spec.${path}`);
        if ('missing' in resolved) {
          problems.push(from(d.source, { field: `documents.${d.index}.spec.${path}`, code: 'validation.required', line, message: `${resolved.missing} (line ${line})` }));
          continue;
        }
        if ('keep' in resolved) {
          if (!current || storedSecret(d.kind, current.record, path) === undefined) {
            problems.push(from(d.source, { field: `documents.${d.index}.spec.${path}`, code: 'validation.required', line,
              message: `{configured: true} keeps a stored secret, and none is stored for ${DOCUMENT_KIND[d.kind]} ${d.name}: give the value, \${env:NAME} or \${file:/path} (line ${line})` }));
            continue;
          }
          delete holder[leaf];
          secrets.set(path, 'unchanged');
          continue;
        }
        holder[leaf] = resolved.value;
        secrets.set(path, current && same(storedSecret(d.kind, current.record, path), resolved.value) ? 'unchanged' : 'set');
      }
      const currentSpec = current ? specOf(d.kind, current.record, ctx) : undefined;
      const diff = diffSpec(d.spec, currentSpec, secrets);
      // The directory leaves a resource an admin detached alone: its diff is drift, not a change.
      const mark = current ? state.managed.find((m) => m.kind === d.kind && m.id === current.id) : undefined;
      const detached = options.by === 'gitops' && mark?.by === 'gitops' && mark.detachedAt !== null;
      const action: ChangeAction = !current ? 'create' : diff.length > 0 && !detached ? 'update' : 'unchanged';
      steps.push({
        change: { kind: d.kind, name: d.name, action, id: current?.id ?? null, document: d.index, diff, source: d.source, ...(detached ? { detached: true } : {}) },
        doc: d, spec, ...(current ? { current } : {}),
      });
    }
    if (options.prune) {
      for (const kind of [...CONFIG_KINDS].reverse()) {
        for (const r of recordsOf(state, kind)) {
          const mark = state.managed.find((m) => m.kind === kind && m.id === r.id);
          if (!mark || mark.by !== options.by || mark.detachedAt || inDocs.has(`${kind}/${r.key}`)) continue;
          steps.push({ change: { kind, name: r.key, action: 'delete', id: r.id, document: null, diff: [] }, current: { id: r.id, version: r.version, record: r } });
        }
      }
    }
    if (problems.length > 0) throw validationFailed(problems, 'The configuration documents are not valid; nothing was applied');
    if (options.by === 'import') {
      // What the configuration directory manages changes there, not through an import.
      for (const s of steps) {
        if (s.change.action !== 'update' || !s.current) continue;
        const mark = state.managed.find((m) => m.kind === s.change.kind && m.id === s.current!.id);
        if (mark?.by === 'gitops' && mark.detachedAt === null) {
          throw new DomainError('gitops.managed', `${DOCUMENT_KIND[s.change.kind]} ${s.change.name} is defined in the configuration directory (${mark.path ?? 'SVC_GITOPS_DIR'}): change it there, or detach it first`);
        }
      }
    }
    const changes = steps.map((s) => s.change);
    const summary: Record<ChangeAction, number> = { create: 0, update: 0, delete: 0, unchanged: 0 };
    for (const c of changes) summary[c.action] += 1;
    const hash = createHash('sha256').update(canonical({
      changes: changes.map((c) => [c.kind, c.name, c.action, c.id, c.diff]),
      versions: steps.filter((s) => s.current).map((s) => [s.change.kind, s.current!.id, s.current!.version]),
    })).digest('hex');
    return { plan: { changes, summary, hash }, steps };
  }

  return {
    /** The stored resources as YAML documents (deterministic). */
    async export(filter: ExportFilter = {}): Promise<string> {
      const state = await deps.store.state();
      const ctx = contextOf(state);
      const kinds = new Set<ConfigKind>(filter.kinds ?? CONFIG_KINDS);
      const chosen = new Set<string>();
      const all = CONFIG_KINDS.flatMap((kind) => recordsOf(state, kind).map((r) => ({ kind, r })));
      const wanted = (kind: ConfigKind, r: { id: string; key: string }) => {
        if (!kinds.has(kind)) return false;
        if (!filter.ids && !filter.keys) return true;
        return (filter.ids?.includes(r.id) ?? false) || (filter.keys?.includes(`${kind}/${r.key}`) ?? false);
      };
      for (const { kind, r } of all) if (wanted(kind, r)) chosen.add(r.id);
      if (filter.includeDependencies !== false) {
        // Reports bring their query and channels, queries their connection.
        for (const r of state.reports) {
          if (!chosen.has(r.id)) continue;
          chosen.add(r.queryId);
          for (const d of ctx.deliveriesOf.get(r.id) ?? []) chosen.add(d.channelId);
        }
        for (const q of state.queries) if (chosen.has(q.id)) chosen.add(q.connectionId);
      }
      const documents = all
        .filter(({ r }) => chosen.has(r.id))
        .sort((a, b) => CONFIG_KINDS.indexOf(a.kind) - CONFIG_KINDS.indexOf(b.kind) || (a.r.key < b.r.key ? -1 : a.r.key > b.r.key ? 1 : 0))
        .map(({ kind, r }) => ({ apiVersion: API_VERSION, kind: DOCUMENT_KIND[kind], metadata: { name: r.key }, spec: specOf(kind, r, ctx) }));
      return dumpDocuments(documents);
    },

    /** What applying the sources would change; changes nothing. */
    async plan(sources: ConfigSource[], options: { prune?: boolean | undefined; by: ManagedBy }): Promise<Plan> {
      const docs = read(sources);
      return (await planOf(docs, { prune: options.prune ?? false, by: options.by })).plan;
    },

    /**
     * Applies the sources in one unit of work (serialised with every other apply): everything or
     * nothing. With `planHash`, refuses (import.plan_stale) a plan that is no longer the one made.
     */
    async apply(sources: ConfigSource[], options: { prune?: boolean | undefined; planHash?: string | undefined; by: ManagedBy; actor: Actor }): Promise<Plan> {
      const docs = read(sources);
      return deps.uow.run(async (tx) => {
        await tx.lockConfig();
        const { plan, steps } = await planOf(docs, { prune: options.prune ?? false, by: options.by });
        if (options.planHash && options.planHash !== plan.hash) {
          throw new DomainError('import.plan_stale', 'The state changed since that plan: make a new plan, review it and apply it with its plan_hash');
        }
        await carryOut(steps, options.actor, options.by, () => deps.store.state());
        // The directory's reconciles that change nothing (every minute) are not events.
        const changed = plan.summary.create + plan.summary.update + plan.summary.delete > 0;
        if (options.by === 'gitops' && !changed) return plan;
        // What was created has an id now: the answer names it (a plan's null is for what does not exist yet).
        if (plan.summary.create > 0) {
          const after = await deps.store.state();
          for (const c of plan.changes) {
            if (c.action === 'create' && c.id === null) c.id = recordsOf(after, c.kind).find((r) => r.key === c.name)?.id ?? null;
          }
        }
        await recordSecurityEvent(tx.securityEvents, {
          type: 'config.applied', actor: options.actor, userId: options.actor.userId ?? null,
          details: { source: options.by, created: plan.summary.create, updated: plan.summary.update, deleted: plan.summary.delete, unchanged: plan.summary.unchanged },
        }, deps.clock);
        return plan;
      });
    },
  };
}

export type ConfigService = ReturnType<typeof createConfigService>;
