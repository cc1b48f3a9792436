/**
 * Declared query parameters and the values a run or preview gives them. Pure module.
 */
import { validationFailed, type FieldProblem } from '../../core/errors.js';
import type { BoundValue } from './sql-template.js';

export type ParameterType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'timestamp';

export interface QueryParameter {
  name: string;
  type: ParameterType;
  default?: BoundValue | undefined;
  required?: boolean | undefined;
  description?: string | undefined;
}

export type GivenValues = Readonly<Record<string, BoundValue | undefined>>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A value of `type`, or a message saying why it is not one. Nulls pass (checked by `required`). */
export function coerce(type: ParameterType, value: BoundValue): { ok: true; value: BoundValue } | { ok: false; message: string } {
  if (value === null) return { ok: true, value: null };
  switch (type) {
    case 'string':
      return typeof value === 'string' ? { ok: true, value } : { ok: false, message: 'must be a string' };
    case 'boolean':
      if (typeof value === 'boolean') return { ok: true, value };
      if (value === 'true' || value === 'false') return { ok: true, value: value === 'true' };
      return { ok: false, message: 'must be true or false' };
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) ? { ok: true, value: typeof value === 'string' ? value.trim() : n } : { ok: false, message: 'must be a number' };
    }
    case 'integer': {
      if (typeof value === 'number') return Number.isSafeInteger(value) ? { ok: true, value } : { ok: false, message: 'must be an integer (send integers beyond 2^53 as strings)' };
      // Strings keep integers beyond 2^53 exact.
      return typeof value === 'string' && /^-?\d{1,30}$/.test(value.trim()) ? { ok: true, value: value.trim() } : { ok: false, message: 'must be an integer' };
    }
    case 'date':
      return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))
        ? { ok: true, value } : { ok: false, message: 'must be a date (YYYY-MM-DD)' };
    case 'timestamp':
      return typeof value === 'string' && TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')))
        ? { ok: true, value } : { ok: false, message: 'must be an RFC 3339 timestamp' };
  }
}

/** Problems with declarations: names unique, defaults of their type. Reported under `parameters.<i>`. */
export function declarationProblems(parameters: QueryParameter[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  parameters.forEach((p, i) => {
    if (seen.has(p.name)) problems.push({ field: `parameters.${i}.name`, code: 'validation.unique', message: `declares ${p.name} twice` });
    seen.add(p.name);
    if (p.default !== undefined && p.default !== null) {
      const c = coerce(p.type, p.default);
      if (!c.ok) problems.push({ field: `parameters.${i}.default`, code: 'validation.type', message: c.message });
    }
  });
  return problems;
}

/**
 * The values to bind: given values over defaults, coerced to their declared type. A required
 * parameter without a value, a value of the wrong type and a value for an undeclared name are
 * 422 on `parameters.<name>`. Without declarations (unsaved SQL), values bind as given and every
 * placeholder needs one.
 */
export function bindValues(
  declared: QueryParameter[] | undefined, given: GivenValues, placeholders: string[],
): Record<string, BoundValue> {
  const problems: FieldProblem[] = [];
  const values: Record<string, BoundValue> = {};
  if (!declared) {
    for (const name of placeholders) {
      const v = given[name];
      if (v === undefined) problems.push({ field: `parameters.${name}`, code: 'validation.required', message: `{{ ${name} }} needs a value` });
      else values[name] = v;
    }
    if (problems.length > 0) throw validationFailed(problems);
    return values;
  }
  const byName = new Map(declared.map((p) => [p.name, p]));
  for (const name of Object.keys(given)) {
    if (!byName.has(name)) problems.push({ field: `parameters.${name}`, code: 'validation.unknown_field', message: 'is not a parameter of this query' });
  }
  for (const p of declared) {
    const raw = given[p.name] !== undefined ? given[p.name]! : p.default ?? null;
    if (raw === null && p.required) {
      problems.push({ field: `parameters.${p.name}`, code: 'validation.required', message: 'is required' });
      continue;
    }
    const c = coerce(p.type, raw);
    if (!c.ok) problems.push({ field: `parameters.${p.name}`, code: 'validation.type', message: c.message });
    else values[p.name] = c.value;
  }
  if (problems.length > 0) throw validationFailed(problems);
  return values;
}
