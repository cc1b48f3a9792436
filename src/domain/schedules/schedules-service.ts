/**
 * What the API offers on schedules by themselves: POST /schedules/preview, the description and
 * next times of a schedule before any report uses it. "Now" is the injected clock's.
 */
import type { Clock } from '../../core/clock.js';
import { validationFailed, type FieldProblem } from '../../core/errors.js';
import { describeSchedule, nextOccurrences, scheduleProblems, type Schedule } from './schedule.js';

export const PREVIEW_DEFAULT_COUNT = 5;
export const PREVIEW_MAX_COUNT = 50;
/** `from` must lie in [1970, 3000): before, cron times mean little; after, croner finds none. */
const FROM_MIN = Date.UTC(1970, 0, 1);
const FROM_MAX = Date.UTC(3000, 0, 1);

export interface SchedulePreviewInput extends Schedule {
  count?: number | undefined;
  from?: Date | undefined;
}

export interface SchedulePreview {
  description: string;
  next: Date[];
}

export function createSchedulesService(deps: { clock: Clock }) {
  return {
    preview(input: SchedulePreviewInput): SchedulePreview {
      const count = input.count ?? PREVIEW_DEFAULT_COUNT;
      const from = input.from ?? deps.clock.now();
      const problems: FieldProblem[] = scheduleProblems(input);
      if (!Number.isInteger(count) || count < 1 || count > PREVIEW_MAX_COUNT) {
        problems.push({ field: 'count', code: 'validation.range', message: `must be from 1 to ${PREVIEW_MAX_COUNT}` });
      }
      if (Number.isNaN(from.getTime()) || from.getTime() < FROM_MIN || from.getTime() >= FROM_MAX) {
        problems.push({ field: 'from', code: 'validation.range', message: 'must lie between 1970-01-01 and 2999-12-31' });
      }
      if (problems.length > 0) throw validationFailed(problems);
      return { description: describeSchedule(input), next: nextOccurrences(input, from, count) };
    },
  };
}

export type SchedulesService = ReturnType<typeof createSchedulesService>;
