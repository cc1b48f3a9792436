/**
 * The web UI's runs helpers (web/src/features/runs/utils): the list's filters in the query string,
 * and what a run's steps and condition say.
 */
import { filtersFromSearch, withFilter } from '../../web/src/features/runs/utils/filters.js';
import { cellText, describeCondition, formatBytes, stepDetail, stepDuration } from '../../web/src/features/runs/utils/describe.js';
import { RUN_POLL_MS, runPollMs } from '../../web/src/features/runs/utils/live.js';

const ID = '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70';
/** A translator that shows the key and its values, so the tests read what was asked for. */
const t = (key: string, vars?: Record<string, string | number>) => (vars ? `${key}${JSON.stringify(vars)}` : key);

describe('run filters in the query string', () => {
  it('reads the known filters', () => {
    expect(filtersFromSearch(new URLSearchParams(`status=failed&report_id=${ID}&trigger=manual`)))
      .toEqual({ status: 'failed', report_id: ID, trigger: 'manual' });
  });

  it('drops values the contract does not know, rather than sending them', () => {
    expect(filtersFromSearch(new URLSearchParams('status=exploded&report_id=not-a-uuid&trigger=cron&page=2'))).toEqual({});
  });

  it('sets one filter and keeps the others, in a stable order', () => {
    const next = withFilter(new URLSearchParams(`trigger=test&status=failed`), 'report_id', ID);
    expect(next.toString()).toBe(`status=failed&report_id=${ID}&trigger=test`);
  });

  it('clears a filter with undefined or an empty value, and drops what it does not know', () => {
    expect(withFilter(new URLSearchParams('status=failed&trigger=test&junk=1'), 'status', undefined).toString()).toBe('trigger=test');
    expect(withFilter(new URLSearchParams('status=failed'), 'status', '').toString()).toBe('');
  });
});

describe('a run\'s steps', () => {
  it('measures a finished step, and not a running one', () => {
    expect(stepDuration({ started_at: '2026-11-22T08:00:00.000Z', finished_at: '2026-11-22T08:00:02.500Z' })).toBe(2500);
    expect(stepDuration({ started_at: '2026-11-22T08:00:00.000Z', finished_at: null })).toBeNull();
    expect(stepDuration({ started_at: '2026-11-22T08:00:05.000Z', finished_at: '2026-11-22T08:00:00.000Z' })).toBeNull();
  });

  it('says what each step added', () => {
    const step = (detail: Record<string, unknown>) => ({ started_at: '', finished_at: null, detail });
    expect(stepDetail(step({ rows: 30, elapsed_ms: 12, wait_ms: 0 }), t)).toEqual(['runs.step.rows{"count":30}']);
    expect(stepDetail(step({ rows: 0, wait_ms: 40 }), t)).toEqual(['runs.step.rows{"count":0}', 'runs.step.wait{"ms":40}']);
    expect(stepDetail(step({ met: false }), t)).toEqual(['runs.step.notMet']);
    expect(stepDetail(step({ bytes: 2048 }), t)).toEqual(['2.0 KB']);
    expect(stepDetail(step({ sent: 2, failed: 1, previewed: 0 }), t)).toEqual(['runs.step.sent{"count":2}', 'runs.step.failed{"count":1}']);
    expect(stepDetail({ started_at: '', finished_at: null }, t)).toEqual([]);
  });

  it('writes sizes in powers of 1024', () => {
    expect([formatBytes(512), formatBytes(1536), formatBytes(5 * 1024 * 1024), formatBytes(300 * 1024 * 1024)]).toEqual(['512 B', '1.5 KB', '5.0 MB', '300 MB']);
  });
});

describe('a run\'s condition', () => {
  it('reads each kind as a sentence', () => {
    expect(describeCondition(null, t)).toBe('runs.condition.none');
    expect(describeCondition({ type: 'rows_exist' }, t)).toBe('runs.condition.rowsExist');
    expect(describeCondition({ type: 'changed' }, t)).toBe('runs.condition.changed');
    expect(describeCondition({ type: 'row_count', op: 'gt', value: 10 }, t)).toBe('runs.condition.rowCount{"op":"runs.op.gt","value":"10"}');
    expect(describeCondition({ type: 'value', op: 'contains', column: 'status', value: 'late' }, t))
      .toBe('runs.condition.value{"column":"status","op":"runs.op.contains","value":"\\"late\\""}');
    expect(describeCondition({ type: 'value', op: 'is_null', column: 'paid_at' }, t)).toBe('runs.condition.valueUnary{"column":"paid_at","op":"runs.op.is_null"}');
  });

  it('shows cells as the API gave them, and null as NULL', () => {
    expect([cellText(null), cellText('12.50'), cellText(3), cellText(false)]).toEqual(['NULL', '12.50', '3', 'false']);
  });
});

describe('a run page\'s poll beside its events', () => {
  it('reads an unfinished run again every few seconds, and a finished one never', () => {
    expect(runPollMs({ status: 'pending' })).toBe(RUN_POLL_MS);
    expect(runPollMs({ status: 'running' })).toBe(RUN_POLL_MS);
    for (const status of ['success', 'partial', 'skipped', 'failed', 'cancelled']) expect(runPollMs({ status })).toBe(false);
    expect(runPollMs(undefined)).toBe(false); // not read yet: the first read is the query's own
  });
});
