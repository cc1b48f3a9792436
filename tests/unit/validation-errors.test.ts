/**
 * Request validation errors name the caller's fields in words that leak nothing of how the request
 * is validated: openapi-backend checks a request as an object of containers (requestBody, path,
 * query, header, cookie), whose names must never reach the caller.
 */
import type { ErrorObject } from 'ajv';
import { toFieldProblems } from '../../src/infra/validation/ajv-errors.js';

const err = (e: Partial<ErrorObject> & Pick<ErrorObject, 'keyword'>): ErrorObject =>
  ({ instancePath: '', schemaPath: '#', params: {}, message: 'ajv says', ...e }) as ErrorObject;

it('reports a missing body on "body" with a human message', () => {
  expect(toFieldProblems([err({ keyword: 'required', params: { missingProperty: 'requestBody' }, message: "must have required property 'requestBody'" })]))
    .toEqual([{ field: 'body', code: 'validation.required', message: 'a JSON body is required' }]);
});

it('reports a body of the wrong type on "body"', () => {
  expect(toFieldProblems([err({ keyword: 'type', instancePath: '/requestBody', params: { type: 'object' }, message: 'must be object' })]))
    .toEqual([{ field: 'body', code: 'validation.type', message: 'the body must be a JSON object' }]);
});

it('names fields, never containers, in every message', () => {
  const problems = toFieldProblems([
    err({ keyword: 'required', instancePath: '/requestBody', params: { missingProperty: 'name' }, message: "must have required property 'name'" }),
    err({ keyword: 'required', params: { missingProperty: 'header' }, message: "must have required property 'header'" }),
    err({ keyword: 'additionalProperties', instancePath: '/query', params: { additionalProperty: 'colour' }, message: 'must NOT have additional properties' }),
    err({ keyword: 'format', instancePath: '/path/userId', params: { format: 'uuid' }, message: 'must match format "uuid"' }),
    err({ keyword: 'custom', instancePath: '/requestBody/x', message: "property 'requestBody' is odd" }),
    err({ keyword: 'parse', message: 'Unexpected token } in JSON at position 9' }),
  ]);
  expect(problems).toEqual([
    { field: 'name', code: 'validation.required', message: 'is required' },
    { field: 'header', code: 'validation.required', message: 'a required header parameter is missing' },
    { field: 'colour', code: 'validation.unknown_field', message: 'is not a field this operation accepts' },
    { field: 'userId', code: 'validation.format', message: 'must match format "uuid"' },
    { field: 'x', code: 'validation.invalid', message: 'is not valid' },
    { field: 'body', code: 'validation.format', message: 'is not valid JSON' },
  ]);
  expect(JSON.stringify(problems)).not.toMatch(/requestBody|Unexpected token/);
});
