/**
 * Turns ajv errors from openapi-backend's request validation into per-field problems with the
 * stable codes of decisions.md.
 */
import type { ErrorObject } from 'ajv';
import type { FieldCode, FieldProblem } from '../../core/errors.js';

const KEYWORD_CODE: Record<string, FieldCode> = {
  required: 'validation.required',
  type: 'validation.type',
  nullable: 'validation.type',
  format: 'validation.format',
  pattern: 'validation.format',
  minimum: 'validation.range',
  maximum: 'validation.range',
  exclusiveMinimum: 'validation.range',
  exclusiveMaximum: 'validation.range',
  minLength: 'validation.range',
  maxLength: 'validation.range',
  minItems: 'validation.range',
  maxItems: 'validation.range',
  minProperties: 'validation.range',
  maxProperties: 'validation.range',
  multipleOf: 'validation.range',
  enum: 'validation.enum',
  const: 'validation.enum',
  additionalProperties: 'validation.unknown_field',
  uniqueItems: 'validation.unique',
};

/** "/requestBody/schedule/timezone" → "schedule.timezone"; "/query/limit" → "limit". */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (['requestBody', 'query', 'path', 'header', 'cookie'].includes(parts[0] ?? '')) parts.shift();
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') parts.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    parts.push(params.additionalProperty);
  }
  // A missing body is reported by openapi-backend as the property "requestBody" of the request.
  if (parts.length === 1 && parts[0] === 'requestBody' && error.instancePath === '') return 'body';
  return parts.join('.') || 'body';
}

/** Per-field problems of ajv errors; `prefix` (e.g. "options") is put before each field. */
export function toFieldProblems(errors: ErrorObject[], prefix = ''): FieldProblem[] {
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  // oneOf/anyOf failures are reported through their branches; keep the parent only when alone.
  const hasConcrete = (path: string) => errors.some((e) => e.instancePath.startsWith(path) && !['oneOf', 'anyOf', 'if'].includes(e.keyword));
  for (const error of errors) {
    if (['oneOf', 'anyOf', 'if'].includes(error.keyword) && hasConcrete(error.instancePath)) continue;
    if (error.keyword === 'parse') {
      out.push({ field: prefix || fieldOf(error), code: 'validation.format', message: 'is not valid JSON' });
      continue;
    }
    const own = fieldOf(error);
    const field = prefix ? (own === 'body' ? prefix : `${prefix}.${own}`) : own;
    const code = KEYWORD_CODE[error.keyword] ?? 'validation.invalid';
    const key = `${field}|${code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, code, message: error.message ?? 'is not valid' });
  }
  return out;
}
