/** Reports → the wire shapes of openapi.yaml. */
import type { components } from '../generated/openapi.js';
import type { Condition, LastRun, ReportRecord } from '../domain/reports/model.js';
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

/** A condition from a request body, in the domain's words (the wire shape matches). */
export const conditionOf = (c: Schemas['Condition'] | undefined): Condition | null | undefined =>
  (c === undefined || c === null ? c : {
    type: c.type,
    ...(c.op !== undefined ? { op: c.op } : {}),
    ...(c.column !== undefined ? { column: c.column } : {}),
    ...(c.value !== undefined ? { value: c.value } : {}),
  });
