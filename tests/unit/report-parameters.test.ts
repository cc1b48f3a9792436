/** The pure parts of reports: the parameter values a report stores, and its next scheduled time. */
import { DomainError } from '../../src/core/errors.js';
import type { QueryParameter } from '../../src/domain/queries/parameters.js';
import { checkParameterValues, nextRunOf } from '../../src/domain/reports/reports-service.js';

const declared: QueryParameter[] = [
  { name: 'region', type: 'string', required: true },
  { name: 'min', type: 'number', default: 0 },
  { name: 'flag', type: 'boolean', default: true },
  { name: 'top', type: 'integer', required: true, default: 10 },
];

const problemsOf = (given: Record<string, string | number | boolean | null>) => {
  try {
    checkParameterValues(declared, given);
  } catch (err) {
    if (err instanceof DomainError) return err.extras.errors?.map((e) => [e.field, e.code]);
    throw err;
  }
  return [];
};

describe('checkParameterValues', () => {
  it('stores the values given, coerced, without copying defaults in', () => {
    expect(checkParameterValues(declared, { region: 'EU', flag: 'false' })).toEqual({ region: 'EU', flag: false });
    expect(checkParameterValues(declared, { region: 'EU', top: ' 12345678901234567890 ' })).toEqual({ region: 'EU', top: '12345678901234567890' });
  });

  it('keeps an explicit null for an optional parameter', () => {
    expect(checkParameterValues(declared, { region: 'EU', min: null })).toEqual({ region: 'EU', min: null });
  });

  it('refuses unknown names, wrong types and required values left out, each on parameters.<name>', () => {
    expect(problemsOf({ region: 'EU', colour: 'red' })).toEqual([['parameters.colour', 'validation.unknown_field']]);
    expect(problemsOf({ region: 'EU', min: 'lots', flag: 3 })).toEqual([['parameters.min', 'validation.type'], ['parameters.flag', 'validation.type']]);
    expect(problemsOf({})).toEqual([['parameters.region', 'validation.required']]);
  });

  it('a required parameter with a default needs no value', () => {
    expect(checkParameterValues(declared, { region: 'US' })).toEqual({ region: 'US' });
  });
});

describe('nextRunOf', () => {
  const schedule = { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' };
  const monday7 = new Date('2026-03-02T06:00:00Z');

  it('is the schedule\'s first time after now', () => {
    expect(nextRunOf(schedule, false, monday7)?.toISOString()).toBe('2026-03-02T07:00:00.000Z');
    expect(nextRunOf(schedule, false, new Date('2026-03-02T07:00:00Z'))?.toISOString()).toBe('2026-03-03T07:00:00.000Z');
    expect(nextRunOf(schedule, false, new Date('2026-03-06T07:30:00Z'))?.toISOString()).toBe('2026-03-09T07:00:00.000Z');
  });

  it('is null while paused or without a schedule', () => {
    expect(nextRunOf(schedule, true, monday7)).toBeNull();
    expect(nextRunOf(null, false, monday7)).toBeNull();
  });
});
