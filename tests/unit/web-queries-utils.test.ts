/**
 * The web UI's query editor helpers (web/src/features/queries/utils): placeholders found as the
 * API finds them, drafts turned into the bodies of createQuery and updateQuery, typed parameter
 * values, the completion namespace from a cached schema, result column widths and version changes.
 */
import { parameterUse, placeholderNames } from '../../web/src/features/queries/utils/placeholders.js';
import { changesOf, createBody, draftOf, isDirty, parameterDraft, previewValues, typedValue, type QueryLike } from '../../web/src/features/queries/utils/draft.js';
import { completionNamespace, defaultSchemaOf, dialectOf, type SchemaTable } from '../../web/src/features/queries/utils/sqlSchema.js';
import { cellText, columnWidths, isNumericType } from '../../web/src/features/queries/utils/columnWidths.js';
import { lineChanges, versionChanges } from '../../web/src/features/queries/utils/versionChanges.js';

describe('placeholderNames', () => {
  it('finds each name once, in order, with any spacing', () => {
    expect(placeholderNames('select * from t where a = {{region}} and b > {{ min }} or a = {{ region }}')).toEqual(['region', 'min']);
  });

  it('skips comments, quoted strings and identifiers, and dollar-quoted bodies', () => {
    const sql = [
      "select '{{ in_string }}', \"{{ in_ident }}\", `{{ in_backticks }}`, $$ {{ in_dollars }} $$, $x$ {{ tagged }} $x$",
      '-- {{ in_line_comment }}',
      '/* {{ in_block_comment }} */ from t where x = {{ real_one }}',
    ].join('\n');
    expect(placeholderNames(sql)).toEqual(['real_one']);
  });

  it('keeps escaped quotes inside strings and ignores what is not a name', () => {
    expect(placeholderNames("select 'it''s {{ no }}' , {{ 1bad }}, {{ ok_2 }}")).toEqual(['ok_2']);
    expect(placeholderNames("select 'a\\'{{ no }}', {{ yes }}")).toEqual(['yes']);
  });

  it('tells undeclared placeholders and unused declarations apart', () => {
    expect(parameterUse('select {{ a }}, {{ b }}', ['b', 'c', ''])).toEqual({ undeclared: ['a'], unused: ['c'] });
  });
});

describe('drafts', () => {
  const query: QueryLike = {
    name: 'Sales', description: null, connection_id: 'c1', version: 4,
    sql: 'select * from sales where region = {{ region }}',
    parameters: [{ name: 'region', type: 'string', required: true }, { name: 'min', type: 'number', default: 100, required: false }],
  };

  it('round-trips a query without changes', () => {
    const draft = draftOf(query);
    expect(draft.parameters.map((p) => [p.name, p.default])).toEqual([['region', ''], ['min', '100']]);
    expect(changesOf(draft, query)).toEqual({ version: 4 });
    expect(isDirty(draft, query)).toBe(false);
  });

  it('sends only what changed, with the version', () => {
    const draft = draftOf(query);
    draft.sql = 'select 1';
    draft.description = 'per region';
    draft.parameters[1]!.default = '250.5';
    expect(changesOf(draft, query)).toEqual({
      version: 4, sql: 'select 1', description: 'per region',
      parameters: [{ name: 'region', type: 'string', required: true }, { name: 'min', type: 'number', required: false, default: 250.5 }],
    });
    expect(isDirty(draft, query)).toBe(true);
  });

  it('makes the create body: empty description is null, an empty default is left out', () => {
    const draft = { name: 'N', description: '  ', connectionId: 'c1', sql: 'select {{ d }}', parameters: [parameterDraft({ name: 'd', type: 'date' })] };
    expect(createBody(draft)).toEqual({ name: 'N', description: null, connection_id: 'c1', sql: 'select {{ d }}', parameters: [{ name: 'd', type: 'date', required: false }] });
  });

  it('types values: exact numbers as numbers, others as text for the API to judge', () => {
    expect(typedValue('number', '12.5')).toBe(12.5);
    expect(typedValue('number', '1.50')).toBe('1.50');
    expect(typedValue('integer', '42')).toBe(42);
    expect(typedValue('integer', '123456789012345678901')).toBe('123456789012345678901');
    expect(typedValue('integer', 'abc')).toBe('abc');
    expect(typedValue('boolean', 'true')).toBe(true);
    expect(typedValue('boolean', 'false')).toBe(false);
    expect(typedValue('string', ' keep spaces ')).toBe(' keep spaces ');
    expect(typedValue('date', ' 2026-01-31 ')).toBe('2026-01-31');
    expect(typedValue('timestamp', '')).toBeUndefined();
  });

  it('gives preview values from the inputs, else the defaults, leaving out empty ones', () => {
    const drafts = draftOf(query).parameters;
    expect(previewValues(drafts, { region: 'EU' })).toEqual({ region: 'EU', min: 100 });
    expect(previewValues(drafts, { min: '' })).toEqual({});
  });
});

describe('the completion namespace', () => {
  const tables: SchemaTable[] = [
    { schema: 'public', name: 'orders', kind: 'table', columns: [{ name: 'id', type: 'int4', nullable: false }, { name: 'note', type: 'text', nullable: true }] },
    { schema: 'sales', name: 'daily', kind: 'view', columns: [] },
  ];

  it('nests schema, table and columns with their types', () => {
    expect(completionNamespace(tables)).toEqual({
      public: { orders: { self: { label: 'orders', type: 'type', detail: 'table' }, children: [
        { label: 'id', type: 'property', detail: 'int4' }, { label: 'note', type: 'property', detail: 'text · null' }] } },
      sales: { daily: { self: { label: 'daily', type: 'class', detail: 'view' }, children: [] } },
    });
  });

  it('picks public, else the only schema, as the default', () => {
    expect(defaultSchemaOf(tables)).toBe('public');
    expect(defaultSchemaOf([{ ...tables[1]!, schema: 'shop' }])).toBe('shop');
    expect(defaultSchemaOf([{ ...tables[1]!, schema: 'a' }, { ...tables[1]!, schema: 'b' }])).toBeUndefined();
    expect([dialectOf('postgres'), dialectOf('mysql'), dialectOf('other'), dialectOf(undefined)]).toEqual(['postgres', 'mysql', 'standard', 'standard']);
  });
});

describe('result columns', () => {
  it('are as wide as their longest sampled text, within bounds', () => {
    const widths = columnWidths(['id', 'a rather long header'], [[1, null], [22, 'x'.repeat(500)]]);
    expect(widths[0]).toBe(72);
    expect(widths[1]).toBe(360);
    expect(columnWidths(['name'], [['abcdefghijklmnop']])).toEqual([16 * 8 + 28]);
    expect(cellText(null)).toBe('NULL');
    expect(cellText(false)).toBe('false');
  });

  it('align numeric types right', () => {
    expect(['int4', 'numeric', 'BIGINT', 'float8', 'decimal(10,2)'].every(isNumericType)).toBe(true);
    expect(['text', 'date', 'timestamptz', 'uuid', 'interval'].some(isNumericType)).toBe(false);
  });
});

describe('version changes', () => {
  it('names the connection and each parameter that changed', () => {
    const a = { connection_id: 'c1', parameters: [{ name: 'region', type: 'string', required: true }, { name: 'old', type: 'date' }] };
    const b = { connection_id: 'c2', parameters: [{ name: 'region', type: 'string', required: false, default: 'EU' }, { name: 'min', type: 'number' }] };
    expect(versionChanges(a, b)).toEqual([
      { kind: 'connection', from: 'c1', to: 'c2' },
      { kind: 'parameter.changed', name: 'region', fields: ['default', 'required'] },
      { kind: 'parameter.added', name: 'min' },
      { kind: 'parameter.removed', name: 'old' },
    ]);
    expect(versionChanges(a, a)).toEqual([]);
  });

  it('counts the lines removed and added', () => {
    expect(lineChanges('select a\nfrom t\nwhere x', 'select a, b\nfrom t\nwhere x\norder by a')).toEqual({ removed: 1, added: 2 });
    expect(lineChanges('same', 'same')).toEqual({ removed: 0, added: 0 });
    const long = Array.from({ length: 3000 }, (_, i) => `line ${i}`);
    expect(lineChanges(long.join('\n'), [...long.slice(1), 'new'].join('\n'))).toEqual({ removed: 1, added: 1 });
  });
});
