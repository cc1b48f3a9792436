/**
 * Checks values against JSON Schemas that plugins declare (their settings), with ajv. Compiled
 * validators are kept per schema object, so a plugin's schema is compiled once.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldProblem } from '../../core/errors.js';
import { toFieldProblems } from './ajv-errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export function createSchemaCheck(): (schema: Record<string, unknown>, value: unknown, field: string) => FieldProblem[] {
  // x-secret and the like are annotations of ours; strict mode would refuse them.
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  const compiled = new WeakMap<object, ValidateFunction>();
  return (schema, value, field) => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(schema);
      compiled.set(schema, validate);
    }
    return validate(value) ? [] : toFieldProblems(validate.errors ?? [], field);
  };
}
