/** Reports → the wire shapes of openapi.yaml. */
import type { components } from '../generated/openapi.js';
import type { Condition, LastRun, ReportRecord } from '../domain/reports/model.js';
import type { ReportListing } from '../domain/reports/ports.js';
import { describeSchedule, type Schedule } from '../domain/schedules/schedule.js';

type Schemas = components['schemas'];
const iso = (d: Date) => d.toISOString();

/** The schedule in English with its time zone, e.g. "At 08:00, Monday through Friday (Europe/Berlin)". */
export const scheduleDescription = (s: Schedule | null): string | null =>
  (s ? `${describeSchedule(s)} (${s.timezone})` : null);

const conditionView = (c: Condition | null): Schemas['Condition'] => (c ? {
  type: c.type,
  ...(c.op !== undefined ? { op: c.op } : {}),
  ...(c.column !== undefined ? { column: c.column } : {}),
  ...(c.value !== undefined ? { value: c.value } : {}),
} : null);

const lastRunView = (r: LastRun | null): Schemas['LastRun'] => (r ? {
  id: r.id, status: r.status, trigger: r.trigger, created_at: iso(r.createdAt), finished_at: r.finishedAt ? iso(r.finishedAt) : null,
} : null);

export function reportView(r: ReportRecord): Schemas['Report'] {
  return {
    id: r.id, key: r.key, title: r.title, description: r.description, query_id: r.queryId, query_version: r.queryVersion,
    parameters: r.parameters,
    schedule: r.schedule ? { cron: r.schedule.cron, timezone: r.schedule.timezone } : null,
    schedule_description: scheduleDescription(r.schedule),
    condition: conditionView(r.condition), paused: r.paused,
    next_run_at: r.nextRunAt ? iso(r.nextRunAt) : null,
    last_run: lastRunView(r.lastRun), owner_id: r.ownerId,
    created_at: iso(r.createdAt), updated_at: iso(r.updatedAt), version: r.version,
  };
}

/**
 * The revision of the report's view: part of its ETags, so that a change of what the view shows
 * for the same stored versions (a new field, another schedule wording) never answers 304.
 */
export const REPORT_VIEW = 'report-1';

/** A report as GET shows it: with `managed` when an import or the configuration directory manages it. */
export function listingView(l: ReportListing): Schemas['Report'] {
  const view = reportView(l.report);
  if (l.managed) view.managed = l.managed;
  return view;
}

/** A condition from a request body, in the domain's words (the wire shape matches). */
export const conditionOf = (c: Schemas['Condition'] | undefined): Condition | null | undefined =>
  (c === undefined || c === null ? c : {
    type: c.type,
    ...(c.op !== undefined ? { op: c.op } : {}),
    ...(c.column !== undefined ? { column: c.column } : {}),
    ...(c.value !== undefined ? { value: c.value } : {}),
  });
