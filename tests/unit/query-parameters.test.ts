/** Declared parameters and the values given to them. */
import { bindValues, coerce, declarationProblems, type QueryParameter } from '../../src/domain/queries/parameters.js';
import { DomainError } from '../../src/core/errors.js';

const problemsOf = (fn: () => unknown) => {
  try { fn(); } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).extras.errors ?? [];
  }
  throw new Error('did not throw');
};

const declared: QueryParameter[] = [
  { name: 'region', type: 'string', required: true },
  { name: 'min_total', type: 'number', default: 10 },
  { name: 'big', type: 'integer' },
  { name: 'active', type: 'boolean', default: true },
  { name: 'since', type: 'date' },
  { name: 'until', type: 'timestamp' },
];

it('binds given values over defaults, coerced to their types; missing optional ones are null', () => {
  expect(bindValues(declared, { region: 'EU', big: '9007199254740993', active: 'false', since: '2026-01-31' }, [])).toEqual({
    region: 'EU', min_total: 10, big: '9007199254740993', active: false, since: '2026-01-31', until: null,
  });
});

it('reports a missing required value, wrong types and unknown names per field', () => {
  const problems = problemsOf(() => bindValues(declared, { min_total: 'lots', since: '31.01.2026', until: 'yesterday', nope: 1 }, []));
  expect(problems).toEqual(expect.arrayContaining([
    expect.objectContaining({ field: 'parameters.nope', code: 'validation.unknown_field' }),
    expect.objectContaining({ field: 'parameters.region', code: 'validation.required' }),
    expect.objectContaining({ field: 'parameters.min_total', code: 'validation.type' }),
    expect.objectContaining({ field: 'parameters.since', code: 'validation.type' }),
    expect.objectContaining({ field: 'parameters.until', code: 'validation.type' }),
  ]));
  expect(problems).toHaveLength(5);
});

it('binds unsaved SQL values as given and needs one for every placeholder', () => {
  expect(bindValues(undefined, { a: 1, b: 'x' }, ['a', 'b'])).toEqual({ a: 1, b: 'x' });
  expect(problemsOf(() => bindValues(undefined, { a: 1 }, ['a', 'b']))).toEqual([expect.objectContaining({ field: 'parameters.b', code: 'validation.required' })]);
});

it('keeps integers beyond 2^53 exact (as strings) and refuses unsafe numbers', () => {
  expect(coerce('integer', '123456789012345678901234567890')).toEqual({ ok: true, value: '123456789012345678901234567890' });
  expect(coerce('integer', 2 ** 60)).toMatchObject({ ok: false });
  expect(coerce('integer', 1.5)).toMatchObject({ ok: false });
});

it('finds duplicate names and defaults of the wrong type in declarations', () => {
  expect(declarationProblems([{ name: 'a', type: 'date', default: 'soon' }, { name: 'a', type: 'string' }])).toEqual([
    expect.objectContaining({ field: 'parameters.0.default', code: 'validation.type' }),
    expect.objectContaining({ field: 'parameters.1.name', code: 'validation.unique' }),
  ]);
});
