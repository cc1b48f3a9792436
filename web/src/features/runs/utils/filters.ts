/**
 * The runs list's filters as the page's query string (?status=failed&report_id=…&trigger=manual),
 * so a filtered list can be bookmarked, shared and reloaded. Values the contract does not know are
 * dropped rather than sent (the API would refuse them).
 */

/** The contract's RunStatus and RunTrigger (hooks.ts passes these filters to listRuns, so tsc keeps them in step). */
export type RunStatus = 'pending' | 'running' | 'success' | 'partial' | 'skipped' | 'failed' | 'cancelled';
export type RunTrigger = 'schedule' | 'manual' | 'test';

export const RUN_STATUSES: readonly RunStatus[] = ['pending', 'running', 'success', 'partial', 'skipped', 'failed', 'cancelled'];
export const RUN_TRIGGERS: readonly RunTrigger[] = ['schedule', 'manual', 'test'];

export interface RunFilters {
  status?: RunStatus;
  report_id?: string;
  trigger?: RunTrigger;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const oneOf = <T extends string>(values: readonly T[], value: string | null): T | undefined =>
  value !== null && (values as readonly string[]).includes(value) ? (value as T) : undefined;

/** The filters the query string holds; unknown or malformed values are left out. */
export function filtersFromSearch(params: URLSearchParams): RunFilters {
  const out: RunFilters = {};
  const status = oneOf(RUN_STATUSES, params.get('status'));
  if (status) out.status = status;
  const trigger = oneOf(RUN_TRIGGERS, params.get('trigger'));
  if (trigger) out.trigger = trigger;
  const report = params.get('report_id');
  if (report !== null && UUID.test(report)) out.report_id = report.toLowerCase();
  return out;
}

/**
 * The query string with one filter set (or cleared with undefined), the others kept as they are,
 * in a stable order so that equal filters make equal addresses.
 */
export function withFilter(params: URLSearchParams, name: keyof RunFilters, value: string | undefined): URLSearchParams {
  const current: Record<string, string | undefined> = { ...filtersFromSearch(params) };
  current[name] = value === '' ? undefined : value;
  const next = new URLSearchParams();
  for (const key of ['status', 'report_id', 'trigger'] as const) {
    const v = current[key];
    if (v !== undefined) next.set(key, v);
  }
  return next;
}
