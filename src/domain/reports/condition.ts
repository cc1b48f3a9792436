/**
 * Conditions: null delivers always; rows_exist, row_count, value (first row) and
 * changed (the result differs from the last successful run's). Pure module: checking a
 * condition's shape, and its outcome on a result.
 */
import { validationFailed, type FieldProblem } from '../../core/errors.js';
import type { CellValue } from '../plugins/connector.js';
import type { ConditionOutcome, JudgeCondition, ResultFacts } from '../runs/engine-ports.js';
import type { Condition, ConditionOp } from './model.js';

const COUNT_OPS: ReadonlySet<ConditionOp> = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']);
const UNARY_OPS: ReadonlySet<ConditionOp> = new Set(['is_null', 'is_not_null']);

/** Field problems of a condition's shape, with field names under `path` (e.g. "condition"). */
export function conditionProblems(c: Condition, path = 'condition'): FieldProblem[] {
  const at = (f: string) => `${path}.${f}`;
  const problems: FieldProblem[] = [];
  const extra = (fields: Array<keyof Condition>) => {
    for (const f of fields) {
      if (c[f] !== undefined) problems.push({ field: at(f), code: 'validation.unknown_field', message: `is not used by a ${c.type} condition` });
    }
  };
  switch (c.type) {
    case 'rows_exist':
    case 'changed':
      extra(['op', 'column', 'value']);
      break;
    case 'row_count':
      extra(['column']);
      if (c.op === undefined) problems.push({ field: at('op'), code: 'validation.required', message: 'is required' });
      else if (!COUNT_OPS.has(c.op)) problems.push({ field: at('op'), code: 'validation.enum', message: 'must be one of eq, ne, gt, gte, lt, lte for row_count' });
      if (c.value === undefined || c.value === null) problems.push({ field: at('value'), code: 'validation.required', message: 'is required' });
      else if (typeof c.value !== 'number' || !Number.isInteger(c.value) || c.value < 0) problems.push({ field: at('value'), code: 'validation.type', message: 'must be a whole number of rows' });
      break;
    case 'value':
      if (c.column === undefined) problems.push({ field: at('column'), code: 'validation.required', message: 'is required' });
      if (c.op === undefined) problems.push({ field: at('op'), code: 'validation.required', message: 'is required' });
      else if (UNARY_OPS.has(c.op)) extra(['value']);
      else if (c.value === undefined) problems.push({ field: at('value'), code: 'validation.required', message: `is required with ${c.op}` });
      break;
  }
  return problems;
}

export function validateCondition(c: Condition | null | undefined, path = 'condition'): void {
  if (!c) return;
  const problems = conditionProblems(c, path);
  if (problems.length > 0) throw validationFailed(problems);
}

const isNumeric = (v: unknown): boolean => (typeof v === 'number' && Number.isFinite(v))
  || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));

function compare(op: ConditionOp, left: CellValue, right: CellValue | undefined): boolean {
  if (op === 'is_null') return left === null;
  if (op === 'is_not_null') return left !== null;
  if (left === null || right === undefined || right === null) {
    // null equals only null; no order involves null.
    if (op === 'eq') return left === (right ?? null);
    if (op === 'ne') return left !== (right ?? null);
    return false;
  }
  if (op === 'contains') return String(left).includes(String(right));
  let cmp: number;
  if (isNumeric(left) && isNumeric(right)) cmp = Math.sign(Number(left) - Number(right));
  else {
    const a = String(left); const b = String(right);
    cmp = a < b ? -1 : a > b ? 1 : 0;
  }
  switch (op) {
    case 'eq': return cmp === 0;
    case 'ne': return cmp !== 0;
    case 'gt': return cmp > 0;
    case 'gte': return cmp >= 0;
    case 'lt': return cmp < 0;
    case 'lte': return cmp <= 0;
    default: return false;
  }
}

/** The outcome of a (valid) condition on a result; null means no condition: always met. */
export function evaluateCondition(c: Condition | null, facts: ResultFacts): ConditionOutcome {
  if (!c) return { met: true, reason: 'no condition' };
  switch (c.type) {
    case 'rows_exist':
      return { met: facts.rowCount > 0, reason: `${facts.rowCount} rows` };
    case 'row_count': {
      const met = compare(c.op!, facts.rowCount, c.value as number);
      return { met, reason: `${facts.rowCount} rows ${c.op} ${String(c.value)}` };
    }
    case 'value': {
      const index = facts.columns.findIndex((col) => col.name === c.column);
      if (index < 0) return { met: false, reason: `the result has no column ${c.column}` };
      if (!facts.firstRow) return { met: false, reason: 'the result has no rows' };
      const left = facts.firstRow[index] ?? null;
      const met = compare(c.op!, left, c.value === undefined ? undefined : (c.value as CellValue));
      return { met, reason: `${c.column} = ${JSON.stringify(left)} ${c.op}${c.value === undefined ? '' : ` ${JSON.stringify(c.value)}`}` };
    }
    case 'changed':
      if (facts.previousHash === undefined) return { met: true, reason: 'no earlier successful run' };
      return facts.previousHash === facts.hash
        ? { met: false, reason: 'same result as the last successful run' }
        : { met: true, reason: 'the result differs from the last successful run' };
  }
}

/**
 * The run engine's JudgeCondition. A run's condition is its report's, copied when the run was
 * queued from a report whose condition was checked on save: a Condition.
 */
export const judgeCondition: JudgeCondition = {
  needsPreviousResult: (c) => c.type === 'changed',
  judge: (c, facts) => evaluateCondition(c as Condition, facts),
};
