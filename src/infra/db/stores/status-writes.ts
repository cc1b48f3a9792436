/**
 * The status writes of the store for runs and delivery attempts. Each is the transition of the
 * same name in its domain state machine (RUN_TRANSITIONS in src/domain/runs/model.ts,
 * ATTEMPT_TRANSITIONS in src/domain/channels/model.ts): its WHERE clause takes the row's `from`
 * (`runLeaves`, `attemptLeaves`), and it sets one of the row's `to`. Infra runs no domain code, so
 * the rows the store writes are spelled here once, for every repository that writes a status;
 * tests/unit/state-machines.test.ts holds them equal to the domain's tables.
 */
import { inArray, sql, type SQL } from 'drizzle-orm';
import { deliveryAttempts, runs } from '../schema.js';
import type { RunStatus as StoredRunStatus } from '../../../domain/runs/model.js';

type StoredAttemptStatus = (typeof deliveryAttempts.$inferSelect)['status'];
interface Write<S extends string> { readonly from: readonly S[]; readonly to: readonly S[] }

export const RUN_WRITES = {
  queue: { from: [], to: ['pending'] },
  start: { from: ['pending', 'running'], to: ['running'] },
  finish: { from: ['running'], to: ['success', 'partial', 'skipped', 'failed', 'cancelled'] },
  cancelPending: { from: ['pending'], to: ['cancelled'] },
  lose: { from: ['pending', 'running'], to: ['failed'] },
  settle: { from: ['partial', 'failed'], to: ['success', 'skipped', 'partial'] },
} as const satisfies Record<string, Write<StoredRunStatus>>;

export const ATTEMPT_WRITES = {
  plan: { from: [], to: ['pending'] },
  take: { from: ['pending', 'sending', 'queued'], to: ['sending'] },
  retry: { from: ['failed'], to: ['sending'] },
  finish: { from: ['sending'], to: ['sent', 'failed', 'preview'] },
  handBack: { from: ['sending'], to: ['sending'] },
  queue: { from: ['failed'], to: ['queued'] },
  giveUp: { from: ['pending', 'sending', 'queued'], to: ['failed'] },
} as const satisfies Record<string, Write<StoredAttemptStatus>>;

/** The transitions of `W` that leave some status (an update, not the first insert). */
type Leaving<W extends Record<string, Write<string>>> = { [N in keyof W]: W[N]['from'] extends readonly [] ? never : N }[keyof W];

/** The status a queued run starts in. */
export const QUEUED: StoredRunStatus = RUN_WRITES.queue.to[0];

/** The WHERE clause of run transition `name`: the run's status is one the transition leaves. */
export const runLeaves = (name: Leaving<typeof RUN_WRITES>): SQL => inArray(runs.status, [...RUN_WRITES[name].from]);

/** The WHERE clause of attempt transition `name`. */
export const attemptLeaves = (name: Leaving<typeof ATTEMPT_WRITES>): SQL => inArray(deliveryAttempts.status, [...ATTEMPT_WRITES[name].from]);

/** The same, for raw SQL where the status column goes by another name (`column`, e.g. sql`r.status`). */
export const statusIn = (column: SQL, statuses: readonly string[]): SQL =>
  sql`${column} in (${sql.join(statuses.map((s) => sql`${s}`), sql`, `)})`;
