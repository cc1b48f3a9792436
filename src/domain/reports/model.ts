/** Reports: a query with parameters, a schedule and a condition. */
import type { BoundValue } from '../queries/sql-template.js';
import type { Schedule } from '../schedules/schedule.js';
import type { RunStatus, RunTrigger } from '../runs/model.js';

export type ConditionOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains' | 'is_null' | 'is_not_null';

export interface Condition {
  type: 'rows_exist' | 'row_count' | 'value' | 'changed';
  op?: ConditionOp;
  column?: string;
  value?: BoundValue;
}

export interface LastRun {
  id: string;
  status: RunStatus;
  trigger: RunTrigger;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface ReportRecord {
  id: string;
  /** Unique among reports (core/slug.ts), though titles are not. */
  key: string;
  title: string;
  description: string | null;
  queryId: string;
  /** A pinned query version, or null to follow the query's current version. */
  queryVersion: number | null;
  parameters: Record<string, BoundValue>;
  schedule: Schedule | null;
  condition: Condition | null;
  paused: boolean;
  /** The next scheduled run: null when paused or without a schedule. */
  nextRunAt: Date | null;
  lastRun: LastRun | null;
  ownerId: string | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}
