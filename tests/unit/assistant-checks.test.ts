/**
 * The assistant's pure parts: the static checks of a draft (src/domain/assistant/sql-check.ts),
 * the schema context trimmed by relevance (context.ts), and the parameters a draft's SQL uses.
 */
import { checkSql } from '../../src/domain/assistant/sql-check.js';
import { relevance, schemaContext, tableLine } from '../../src/domain/assistant/context.js';
import { parametersOf } from '../../src/domain/assistant/assistant-service.js';
import type { SchemaTable } from '../../src/domain/plugins/connector.js';

const table = (name: string, columns: string[], schema = 'public'): SchemaTable =>
  ({ schema, name, kind: 'table', columns: columns.map((c) => ({ name: c, type: 'text', nullable: true })) });
const TABLES = [table('orders', ['id', 'customer_id', 'status', 'total']), table('customers', ['id', 'name', 'email'])];
const codes = (sql: string, dialect: 'postgresql' | 'mysql' = 'postgresql') => checkSql(sql, dialect, TABLES).map((e) => e.code);

describe('checkSql', () => {
  it.each([
    'select id, total from orders',
    'select o.id, c.name from orders o join customers c on c.id = o.customer_id where o.status = {{ status }}',
    'with big as (select id, total from orders where total > 100) select id from big',
    'select status, sum(total) as revenue from orders group by status order by revenue desc',
    'select * from public.orders limit 10',
    'select count(*) from customers where email like {{ pattern }}',
  ])('passes %s', (sql) => {
    expect(codes(sql)).toEqual([]);
  });

  it('passes MySQL syntax in the mysql dialect', () => {
    expect(codes('select `id`, total from orders limit 5', 'mysql')).toEqual([]);
  });

  it.each([
    ['delete from orders', 'sql.not_read_only'],
    ['update orders set total = 0', 'sql.not_read_only'],
    ['insert into orders (id) values (1)', 'sql.not_read_only'],
    ['drop table orders', 'sql.not_read_only'],
    ['select 1; select 2', 'sql.not_one_statement'],
    ['select 1; delete from orders', 'sql.not_one_statement'],
    ['selec id from orders', 'sql.parse'],
    ['select id from refunds', 'schema.unknown_table'],
    ['select o.amount from orders o', 'schema.unknown_column'],
    ['select amount from orders', 'schema.unknown_column'],
    ['select c.phone from customers c', 'schema.unknown_column'],
  ])('flags %s as %s', (sql, code) => {
    expect(codes(sql)).toEqual([code]);
  });

  it('names the table and column it did not find', () => {
    expect(checkSql('select o.amount from orders o', 'postgresql', TABLES)).toEqual([
      { code: 'schema.unknown_column', message: 'No column "amount" in "orders"', table: 'orders', column: 'amount' },
    ]);
  });
});

describe('schemaContext', () => {
  const many = [...TABLES, ...Array.from({ length: 200 }, (_v, i) => table(`audit_log_${String(i).padStart(3, '0')}`, ['id', 'payload', 'created_at']))];

  it('puts the tables the prompt names first and stays within its budget', () => {
    const ctx = schemaContext(many, 'total of shipped orders per customer', 600);
    expect(ctx.tables.slice(0, 2).map((t) => t.name)).toEqual(['orders', 'customers']);
    expect(ctx.text.length).toBeLessThanOrEqual(600);
    expect(ctx.omitted).toBe(many.length - ctx.tables.length);
    expect(ctx.omitted).toBeGreaterThan(150);
  });

  it('scores table names above column names, and plural against singular', () => {
    expect(relevance(TABLES[0]!, 'order totals')).toBeGreaterThan(relevance(TABLES[1]!, 'order totals'));
    expect(relevance(TABLES[1]!, 'each customer')).toBeGreaterThanOrEqual(10);
  });

  it('writes each table as schema.name with its columns and types', () => {
    expect(tableLine({ schema: 'public', name: 'v', kind: 'view', columns: [{ name: 'id', type: 'integer', nullable: false }] })).toBe('public.v (view): id integer not null');
  });
});

describe('parametersOf', () => {
  it('declares every placeholder the SQL uses, with the declared type or string, and drops the rest', () => {
    expect(parametersOf({
      sql: 'select * from orders where status = {{ status }} and total > {{min_total}} and status <> {{ status }}',
      explanation: '', parameters: [{ name: 'min_total', type: 'number' }, { name: 'unused', type: 'date' }, { name: 'status', type: 'weird' }],
    })).toEqual([{ name: 'status', type: 'string' }, { name: 'min_total', type: 'number' }]);
  });
});

describe('the connectors say their SQL', () => {
  it('names its dialect and quotes identifiers its own way', async () => {
    const { mysqlConnector } = await import('../../src/plugins/mysql/index.js');
    const { postgresConnector } = await import('../../src/plugins/postgres/index.js');
    expect([mysqlConnector.sqlDialect, mysqlConnector.quoteIdentifier('a`b')]).toEqual(['mysql', '`a``b`']);
    expect([postgresConnector.sqlDialect, postgresConnector.quoteIdentifier('a"b')]).toEqual(['postgresql', '"a""b"']);
  });
});
