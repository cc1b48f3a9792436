/**
 * Turns ajv errors from openapi-backend's request validation into per-field problems with the
 * stable per-field codes of openapi.yaml (components.x-field-codes).
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

/** The containers openapi-backend validates a request as; their names are ours, never the caller's. */
const CONTAINERS = ['requestBody', 'path', 'query', 'header', 'headers', 'cookie', 'cookies'];

/** "/requestBody/schedule/timezone" → "schedule.timezone"; "/query/limit" → "limit". */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (CONTAINERS.includes(parts[0] ?? '')) parts.shift();
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') parts.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    parts.push(params.additionalProperty);
  }
  // A missing body is reported by openapi-backend as the property "requestBody" of the request.
  if (parts.length === 1 && parts[0] === 'requestBody' && error.instancePath === '') return 'body';
  return parts.join('.') || 'body';
}

/**
 * A readable message that names nothing internal. ajv's own messages quote property names
 * ("must have required property 'requestBody'"): the field is already named in `field`, and the
 * request's containers (requestBody, query, ...) are openapi-backend's names, not the caller's.
 */
function messageOf(error: ErrorObject, field: string): string {
  const params = error.params as Record<string, unknown>;
  const atRoot = error.instancePath === '' || CONTAINERS.some((c) => error.instancePath === `/${c}`);
  switch (error.keyword) {
    case 'required':
      if (atRoot && params.missingProperty === 'requestBody') return 'a JSON body is required';
      if (atRoot && CONTAINERS.includes(String(params.missingProperty))) return `a required ${String(params.missingProperty)} parameter is missing`;
      return 'is required';
    case 'additionalProperties':
      return 'is not a field this operation accepts';
    case 'type':
      if (field === 'body' && atRoot) return `the body must be a JSON ${String(params.type)}`;
      return error.message ?? 'has the wrong type';
    case 'dependentRequired':
    case 'dependencies':
      return `is required when ${String(params.property)} is present`;
    default: {
      const message = error.message ?? 'is not valid';
      // Any other message quoting a container name would leak it: say it plainly instead.
      return CONTAINERS.some((c) => message.includes(`'${c}'`) || message.includes(`"${c}"`)) ? 'is not valid' : message;
    }
  }
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
    out.push({ field, code, message: messageOf(error, field) });
  }
  return out;
}
