/** Named placeholders: found in SQL text, left alone in comments, refused inside quotes, always bound. */
import { compileTemplate, parseSqlTemplate, placeholderNames } from '../../src/domain/queries/sql-template.js';
import { DomainError } from '../../src/core/errors.js';

const fieldErrorOf = (fn: () => unknown) => {
  try { fn(); } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).extras.errors?.[0];
  }
  throw new Error('did not throw');
};

it('finds placeholders with or without spaces, in order, repeated ones included', () => {
  const t = parseSqlTemplate('select * from sales where region = {{region}} and day >= {{ since }} or region = {{ region }}');
  expect(t.names).toEqual(['region', 'since', 'region']);
  expect(placeholderNames(t)).toEqual(['region', 'since']);
});

it('compiles to the connector placeholders with the values in order, never splicing a value into the text', () => {
  const t = parseSqlTemplate("select {{ a }}, {{ b }}, {{ a }}");
  const pg = compileTemplate(t, (n) => `$${n}`, { a: "x'); drop table t; --", b: 2 });
  expect(pg).toEqual({ sql: 'select $1, $2, $3', params: ["x'); drop table t; --", 2, "x'); drop table t; --"] });
  expect(compileTemplate(t, () => '?', { a: null, b: true }).sql).toBe('select ?, ?, ?');
});

it('leaves placeholders in comments alone', () => {
  const t = parseSqlTemplate('select 1 -- {{ not_me }}\n/* {{ nor_me }} */ where x = {{ me }}');
  expect(t.names).toEqual(['me']);
  expect(compileTemplate(t, (n) => `$${n}`, { me: 1 }).sql).toBe('select 1 -- {{ not_me }}\n/* {{ nor_me }} */ where x = $1');
});

it('refuses a placeholder inside a string, a quoted identifier or a dollar-quoted body, on field sql', () => {
  for (const sql of ["select * from t where r = '{{ region }}'", 'select "{{ col }}" from t', 'select $$ {{ x }} $$', 'select $q$ {{ x }} $q$']) {
    expect(fieldErrorOf(() => parseSqlTemplate(sql))).toMatchObject({ field: 'sql', code: 'validation.invalid' });
  }
});

it('reads quotes with doubled quotes and braces in strings as text', () => {
  const t = parseSqlTemplate("select 'it''s {not} a {{ placeholder' as a, {{ b }}");
  expect(t.names).toEqual(['b']);
});

it('refuses a malformed placeholder on field sql', () => {
  expect(fieldErrorOf(() => parseSqlTemplate('select {{ 1bad }}'))).toMatchObject({ field: 'sql', code: 'validation.invalid' });
  expect(fieldErrorOf(() => parseSqlTemplate('select {{ open'))).toMatchObject({ field: 'sql' });
});
