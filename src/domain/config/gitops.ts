/**
 * GitOps: the configuration directory (SVC_GITOPS_DIR) manages resources.
 *
 * - The reconciler (a scheduler tick task) reads the directory's files and applies them with
 *   prune, as `gitops`: at start, on a tick whose files (names and contents) differ from the last
 *   successful reconcile's, after a detach or an attach, and at least every minute anyway. Every
 *   resource the files define is marked as the directory's, with its file. A broken file changes
 *   nothing (the apply is all or nothing): the problems are kept for GET /gitops/status and
 *   logged (at most once a minute). Schedulers of a fleet serialise on the config lock.
 * - What the directory manages refuses changes through the API (409 gitops.managed) until an
 *   admin detaches it; the reconciler leaves a detached resource alone and reports its drift.
 *   Attaching gives it back: the next reconcile applies the directory's copy again.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import type { Log } from '../../core/log.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import { sourceOfProblem, type ConfigService, type ConfigSource } from './config-service.js';
import { DOCUMENT_KIND, type ConfigKind, type FieldChange, type Plan } from './model.js';
import type { ConfigStore, GitopsDrift, GitopsError, GitopsState, ManagedMark } from './ports.js';

/** The reconciler runs at least this often, files changed or not. */
export const RECONCILE_EVERY_MS = 60_000;
/** Failed reconciles in a row that make the scheduler's `gitops` readiness unhealthy. */
export const FAILURES_UNHEALTHY = 3;

export interface GitopsDirectory {
  path: string;
  /** The directory's *.yaml and *.yml files, sorted by name. */
  read(): Promise<ConfigSource[]>;
}

export const sourcesHash = (sources: ConfigSource[]): string => {
  const h = createHash('sha256');
  for (const s of sources) h.update(`${s.path ?? ''}\0${s.text.length}\0${s.text}\0`);
  return h.digest('hex');
};

const driftOf = (plan: Plan): GitopsDrift[] => plan.changes
  .filter((c) => c.detached && c.id !== null && c.diff.length > 0)
  .map((c) => ({ kind: c.kind, name: c.name, id: c.id!, diff: c.diff }));

function errorsOf(err: unknown): GitopsError[] {
  if (err instanceof DomainError) {
    const fields = err.extras.errors ?? [];
    if (fields.length === 0) return [{ path: null, field: null, line: null, message: `${err.code}: ${err.message}` }];
    return fields.map((f) => ({ path: sourceOfProblem(f), field: f.field, line: f.line ?? null, message: f.message ?? f.code }));
  }
  return [{ path: null, field: null, line: null, message: err instanceof Error ? err.message : String(err) }];
}

export const GITOPS_ACTOR: Actor = { type: 'system', userId: null, apiKeyId: null, ip: null, userAgent: 'herald gitops' };

/** A resource's `managed` property as its GET and its list show it. */
export interface ManagementView { by: ManagedMark['by']; path: string | null; detached: boolean }
const managementView = (mark: ManagedMark): ManagementView => ({ by: mark.by, path: mark.path, detached: mark.detachedAt !== null });

export function createReconciler(deps: {
  directory: GitopsDirectory;
  config: Pick<ConfigService, 'apply'>;
  store: Pick<ConfigStore, 'gitops'>;
  clock: Clock;
  log: Log;
}) {
  let failures = 0;
  let lastWarnAt = 0;

  const record = async (state: GitopsState, now: Date, outcome: Partial<GitopsState>) => {
    const { generation: _g, ...rest } = state;
    await deps.store.gitops.save({ ...rest, directory: deps.directory.path, lastReconcileAt: now, ...outcome });
  };

  return {
    /** Failed reconciles in a row (0 after a success). */
    failures: () => failures,
    /** One tick: reconciles when something is to do; answers what it did. */
    async tick(now: Date): Promise<'applied' | 'unchanged' | 'failed' | 'skipped'> {
      const state = await deps.store.gitops.read();
      let sources: ConfigSource[];
      try {
        sources = await deps.directory.read();
      } catch (err) {
        return fail(state, now, [{ path: deps.directory.path, field: null, line: null, message: `the directory cannot be read: ${err instanceof Error ? err.message : String(err)}` }]);
      }
      const hash = sourcesHash(sources);
      const recent = state.lastReconcileAt !== null && now.getTime() - state.lastReconcileAt.getTime() < RECONCILE_EVERY_MS
        && now.getTime() >= state.lastReconcileAt.getTime();
      if (state.result !== 'failed' && state.appliedHash === hash && state.appliedGeneration === state.generation
        && state.directory === deps.directory.path && recent) {
        failures = 0;
        return 'skipped';
      }
      let plan: Plan;
      try {
        plan = await deps.config.apply(sources, { prune: true, by: 'gitops', actor: GITOPS_ACTOR });
      } catch (err) {
        return fail(state, now, errorsOf(err));
      }
      const changed = plan.summary.create + plan.summary.update + plan.summary.delete > 0;
      if (changed) deps.log.info('configuration directory applied', { ...plan.summary, directory: deps.directory.path });
      if (failures > 0) deps.log.info('configuration directory applies again', { directory: deps.directory.path });
      failures = 0;
      const result = changed ? 'applied' : 'unchanged';
      await record(state, now, { result, errors: [], drift: driftOf(plan), appliedHash: hash, appliedGeneration: state.generation });
      return result;
    },
  };

  async function fail(state: GitopsState, now: Date, errors: GitopsError[]): Promise<'failed'> {
    failures += 1;
    if (now.getTime() - lastWarnAt >= RECONCILE_EVERY_MS) {
      lastWarnAt = now.getTime();
      deps.log.warn('configuration directory not applied', {
        directory: deps.directory.path, failures, errors: errors.slice(0, 5).map((e) => `${e.path ?? ''}${e.line ? `:${e.line}` : ''} ${e.field ?? ''} ${e.message}`.trim()),
      });
    }
    await record(state, now, { result: 'failed', errors });
    return 'failed';
  }
}

export type Reconciler = ReturnType<typeof createReconciler>;

export interface ManagedResourceView {
  kind: ConfigKind;
  id: string;
  name: string;
  managed: boolean;
  path: string | null;
  detachedAt: Date | null;
  detachedBy: string | null;
  pendingChanges: FieldChange[] | null;
}

export interface GitopsStatusView {
  enabled: boolean;
  directory: string | null;
  lastReconcileAt: Date | null;
  result: GitopsState['result'];
  errors: GitopsError[];
  managed: number;
  detached: number;
  drift: GitopsDrift[];
}

/** The API's side: the guard of managed resources, detach, attach and the status. */
export function createGitopsService(deps: {
  store: ConfigStore;
  uow: UnitOfWork;
  config: Pick<ConfigService, 'plan'>;
  /** This process's configuration directory, when it has one (for attach's pending changes and the live drift). */
  directory: GitopsDirectory | undefined;
  clock: Clock;
}) {
  const isManaged = (m: ManagedMark | undefined): m is ManagedMark => m !== undefined && m.by === 'gitops';

  /** The directory's plan over the stored state now, or undefined when it cannot be made. */
  const planNow = async (): Promise<Plan | undefined> => {
    if (!deps.directory) return undefined;
    try {
      return await deps.config.plan(await deps.directory.read(), { prune: true, by: 'gitops' });
    } catch {
      return undefined;
    }
  };

  const change = async (kind: ConfigKind, id: string, actor: Actor, detach: boolean): Promise<ManagedResourceView> => {
    // What the next reconcile changes, read while the resource is still detached: the reconciler
    // leaves it alone until the attach commits, so its drift now is what that reconcile applies.
    // (Read after the commit, a reconcile woken by the attach could have applied it already, and
    // the answer said "nothing changes".)
    const before = detach ? undefined : await planNow();
    const view: ManagedResourceView = await deps.uow.run(async (tx): Promise<ManagedResourceView> => {
      await tx.lockConfig();
      const mark = await deps.store.markOf(kind, id);
      const name = await deps.store.keyOf(kind, id);
      if (!isManaged(mark) || name === undefined) {
        throw new DomainError('gitops.not_managed', `${DOCUMENT_KIND[kind]} ${id} is not managed by the configuration directory`);
      }
      let { detachedAt, detachedBy } = mark;
      if (detach !== (mark.detachedAt !== null)) {
        ({ detachedAt, detachedBy } = detach ? { detachedAt: deps.clock.now(), detachedBy: actor.userId ?? null } : { detachedAt: null, detachedBy: null });
        await deps.store.setDetached(kind, id, detach ? { at: detachedAt!, by: detachedBy } : null);
        await deps.store.gitops.bump();
        await recordSecurityEvent(tx.securityEvents, {
          type: detach ? 'gitops.detached' : 'gitops.attached', actor, userId: actor.userId ?? null,
          target: { type: kind, id }, details: { kind, id, name, path: mark.path },
        }, deps.clock);
      }
      return { kind, id, name, managed: detachedAt === null, path: mark.path, detachedAt, detachedBy, pendingChanges: null };
    });
    if (!detach) {
      // Detached, its diff is drift (action unchanged); attached already, an update if it differs.
      const found = before?.changes.find((c) => c.kind === kind && c.id === id);
      view.pendingChanges = found ? (found.action === 'update' || found.detached ? found.diff : []) : null;
    }
    return view;
  };

  return {
    /** Refuses (409 gitops.managed) a change through the API of what the directory manages and is not detached. */
    async assertNotManaged(kind: ConfigKind, id: string): Promise<void> {
      const mark = await deps.store.markOf(kind, id);
      if (isManaged(mark) && mark.detachedAt === null) {
        throw new DomainError('gitops.managed',
          `This ${DOCUMENT_KIND[kind]} is defined in the configuration directory${mark.path ? ` (${mark.path})` : ''}: change it there, or detach it first (POST /api/v1/gitops/detach)`);
      }
    },
    /** Who manages a resource, as its GET view's `managed` property (none when nothing does). */
    async managementOf(kind: ConfigKind, id: string): Promise<{ managed?: ManagementView }> {
      const mark = await deps.store.markOf(kind, id);
      return mark ? { managed: managementView(mark) } : {};
    },
    /** The same for a page of a list: each item's `managed` property (none when nothing manages it), in one read. */
    async withManagement<T extends { id: string }>(kind: ConfigKind, items: T[]): Promise<Array<T & { managed?: ManagementView }>> {
      const marks = await deps.store.marksOf(kind, items.map((i) => i.id));
      return items.map((item) => {
        const mark = marks.get(item.id);
        return mark ? { ...item, managed: managementView(mark) } : item;
      });
    },
    detach: (kind: ConfigKind, id: string, actor: Actor) => change(kind, id, actor, true),
    attach: (kind: ConfigKind, id: string, actor: Actor) => change(kind, id, actor, false),
    async status(): Promise<GitopsStatusView> {
      const [state, all] = await Promise.all([deps.store.gitops.read(), deps.store.state()]);
      const marks = all.managed.filter((m) => m.by === 'gitops');
      const directory = state.directory ?? deps.directory?.path ?? null;
      // The drift as it is now when this process can read the directory; the last reconcile's otherwise.
      const plan = await planNow();
      return {
        enabled: directory !== null,
        directory,
        lastReconcileAt: state.lastReconcileAt,
        result: state.result,
        errors: state.errors,
        managed: marks.filter((m) => m.detachedAt === null).length,
        detached: marks.filter((m) => m.detachedAt !== null).length,
        drift: plan ? driftOf(plan) : state.drift,
      };
    },
  };
}

export type GitopsService = ReturnType<typeof createGitopsService>;
