/**
 * The condition editor's form and the contract's Condition (null: always deliver; rows_exist;
 * row_count with op and value; value: the first row's column compared by op; changed). The form
 * keeps the value as typed; the service checks it (a wrong one comes back on `condition.*`).
 * No imports, for unit tests.
 */

export type ConditionType = 'always' | 'rows_exist' | 'row_count' | 'value' | 'changed';
export type ConditionOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains' | 'is_null' | 'is_not_null';

export interface Condition {
  type: 'rows_exist' | 'row_count' | 'value' | 'changed';
  op?: ConditionOp;
  column?: string;
  value?: string | number | boolean | null;
}

export interface ConditionForm {
  type: ConditionType;
  op: ConditionOp;
  column: string;
  value: string;
}

export const CONDITION_TYPES: ConditionType[] = ['always', 'rows_exist', 'row_count', 'value', 'changed'];
/** The operators the contract lists for each type that compares. */
export const COUNT_OPS: ConditionOp[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'];
export const VALUE_OPS: ConditionOp[] = [...COUNT_OPS, 'contains', 'is_null', 'is_not_null'];

/** Operators that compare with nothing. */
export const takesValue = (op: ConditionOp): boolean => op !== 'is_null' && op !== 'is_not_null';

export function conditionForm(c: Condition | null | undefined): ConditionForm {
  if (!c) return { type: 'always', op: 'gt', column: '', value: '' };
  const value = c.value === undefined || c.value === null ? '' : String(c.value);
  return { type: c.type, op: c.op ?? (c.type === 'value' ? 'eq' : 'gt'), column: c.column ?? '', value };
}

/** A number when the text is one, else the text as typed (the service says what is wrong with it). */
const numberOrText = (s: string): number | string => {
  const t = s.trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : s;
};

export function conditionOf(f: ConditionForm): Condition | null {
  switch (f.type) {
    case 'always': return null;
    case 'rows_exist':
    case 'changed': return { type: f.type };
    case 'row_count': return { type: 'row_count', op: COUNT_OPS.includes(f.op) ? f.op : 'gt', value: numberOrText(f.value) };
    case 'value':
      return takesValue(f.op) ? { type: 'value', column: f.column, op: f.op, value: f.value } : { type: 'value', column: f.column, op: f.op };
  }
}
