/**
 * The report form's pure parts (web/src/features/reports/utils): the condition editor's form and
 * the contract's Condition, parameter values as typed and as sent, and delivery settings split and joined.
 */
import { conditionForm, conditionOf } from '../../web/src/features/reports/utils/condition.js';
import { joinSettings, sendsCsv, splitSettings } from '../../web/src/features/reports/utils/delivery.js';
import { parameterForm, parameterValues, type QueryParameter } from '../../web/src/features/reports/utils/parameters.js';

it('reads each condition of the contract into the form and back', () => {
  for (const c of [
    null, { type: 'rows_exist' }, { type: 'changed' }, { type: 'row_count', op: 'gte', value: 10 },
    { type: 'value', column: 'total', op: 'lt', value: '100' }, { type: 'value', column: 'note', op: 'is_null' },
  ] as const) {
    expect(conditionOf(conditionForm(c))).toEqual(c);
  }
});

it('sends a row count as a number when it reads as one, else as typed; a value compared with nothing has none', () => {
  const f = conditionForm(null);
  expect(conditionOf({ ...f, type: 'row_count', op: 'gt', value: ' 5 ' })).toEqual({ type: 'row_count', op: 'gt', value: 5 });
  expect(conditionOf({ ...f, type: 'row_count', op: 'gt', value: 'many' })).toEqual({ type: 'row_count', op: 'gt', value: 'many' });
  expect(conditionOf({ ...f, type: 'row_count', op: 'contains', value: '1' })).toEqual({ type: 'row_count', op: 'gt', value: 1 });
  expect(conditionOf({ ...f, type: 'value', column: 'x', op: 'is_not_null', value: 'ignored' })).toEqual({ type: 'value', column: 'x', op: 'is_not_null' });
  expect(conditionOf({ ...f, type: 'always', value: '3' })).toBeNull();
});

const params: QueryParameter[] = [
  { name: 'status', type: 'string', required: true }, { name: 'limit', type: 'integer', default: 10 },
  { name: 'ratio', type: 'number' }, { name: 'active', type: 'boolean' }, { name: 'since', type: 'date' },
];

it('holds parameter values as text and sends them typed, leaving empty ones to their default', () => {
  const form = { ...parameterForm({ status: 'open', limit: 5, active: false, since: null }), ratio: '' };
  expect(form).toEqual({ status: 'open', limit: '5', ratio: '', active: 'false', since: '' });
  expect(parameterValues(params, form)).toEqual({ status: 'open', limit: 5, active: false });
  expect(parameterValues(params, { ...form, ratio: '0.5', since: '2027-01-01', active: 'true' }))
    .toEqual({ status: 'open', limit: 5, ratio: 0.5, active: true, since: '2027-01-01' });
  expect(parameterValues(params, { ...form, limit: 'ten' })).toMatchObject({ limit: 'ten' });
});

it('splits a delivery\'s settings into the common ones and the plugin\'s own, and joins them back', () => {
  const stored = {
    attach: 'csv', link: { format: 'xlsx', expires_in_days: 3 }, inline_rows: 5, send_when_skipped: false, csv_formula_safe: true,
    subject: 'S {{ row_count }}', body: 'B', to: ['a@example.com'],
  };
  const { common, own } = splitSettings(stored);
  expect(own).toEqual({ to: ['a@example.com'] });
  expect(common).toMatchObject({ attach: 'csv', link: { format: 'xlsx', expires_in_days: 3 }, inline_rows: 5 });
  expect(sendsCsv(common)).toBe(true);
  expect(joinSettings(common, own)).toEqual(stored);
  const fresh = splitSettings(undefined);
  expect(fresh.common).toEqual({ subject: '', body: '', attach: null, link: null, inline_rows: 0, send_when_skipped: false, csv_formula_safe: true });
  expect(sendsCsv(fresh.common)).toBe(false);
  expect(joinSettings(fresh.common, {})).toEqual({ attach: null, link: null, inline_rows: 0, send_when_skipped: false, csv_formula_safe: true });
});
