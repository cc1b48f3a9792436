/**
 * Result downloads (GET /runs/{runId}/result) from real runs: csv parsed back with csv-parse,
 * json as the document, xlsx opened with exceljs's reader (the writer is Herald's own), each to
 * the values the query returned; the file name from the report's title and the run's time; a
 * run without a result answers 404 run.no_result; formula-safe csv (formula_safe=true, on the
 * run's result and on a shared link) escapes text that spreadsheets would run, never numbers.
 */
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import type { Response } from 'supertest';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { waitForRun } from '../support/runs.js';

let h: Herald;
let editor: SessionClient;
let viewer: SessionClient;
let src: PostgresSource;
let connectionId: string;
let runId: string;
let rows: unknown[][];

const binary = (res: Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

async function runOf(title: string, sql: string) {
  const q = await editor.post('/api/v1/queries').send({ name: title, connection_id: connectionId, sql }).expect(201);
  const r = await editor.post('/api/v1/reports').send({ title, query_id: q.body.id }).expect(201);
  const queued = await editor.post(`/api/v1/reports/${r.body.id}/run`).send({});
  return waitForRun(editor, queued.body.id);
}

beforeAll(async () => {
  h = await startHerald({ env: { SVC_ROLES: 'api,worker' } });
  const admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  viewer = await createSignedInUser(h, admin, { name: 'Vic', email: 'vic@example.com', role: 'viewer' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table t (id int, label text, amount numeric(20,4), big bigint, day date, at timestamptz, ok boolean, doc jsonb)`;
    await sql`insert into t values
      (1, 'plain', 10.5, 1, '2026-11-01', '2026-11-01T08:30:00Z', true, '{"a":1}'),
      (2, 'comma, "quote" and
newline', 1234567890123.4567, 9007199254740993, '1999-12-31', '2026-03-29T01:30:00+02', false, null),
      (3, 'Grüße ☃ <tag> & more', null, -5, null, null, null, '[1,2]'),
      (4, '', 0.1, 0, '2000-02-29', '2024-02-29T23:59:59.123Z', true, '"text"')`;
    // Text that spreadsheet programs run as formulas, beside negative numbers of every kind.
    await sql`create table f (id int, label text, n int, amount numeric(10,2), big bigint, note text)`;
    await sql`insert into f values
      (1, '=1+1', -5, -5.25, -9007199254740993, '-5'),
      (2, '+x', -7, 0, 1, '-1.5e3'),
      (3, '-y', 0, 1, 2, ${'\tTab'}),
      (4, '@z', null, null, null, ${'\rCR'}),
      (5, '=HYPERLINK("http://x.example","y")', 1, 2, 3, 'a=b-c'),
      (6, '-2+3', 2, 3, 4, null)`;
  });
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id;
  const run = await runOf('Daily Sales (EU)', 'select * from t order by id');
  expect(run.status).toBe('success');
  runId = run.id;
  rows = (await viewer.get(`/api/v1/runs/${runId}/result?format=json`).expect(200)).body.rows;
});
afterAll(async () => {
  await h.stop();
  await src.drop();
});

it('serves json as {columns, rows} with the values result rows use', async () => {
  const res = await viewer.get(`/api/v1/runs/${runId}/result?format=json`);
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.headers['content-disposition']).toMatch(/^attachment; filename="daily-sales-eu-\d{4}-\d{2}-\d{2}-\d{4}\.json"/);
  expect(res.body.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'label', 'amount', 'big', 'day', 'at', 'ok', 'doc']);
  expect(rows[1]).toEqual([2, 'comma, "quote" and\nnewline', '1234567890123.4567', '9007199254740993', '1999-12-31', '2026-03-28T23:30:00Z', false, null]);
  expect(rows[2]).toEqual([3, 'Grüße ☃ <tag> & more', null, -5, null, null, null, '[1, 2]']);
  // The sample the run shows is the start of the same rows.
  expect((await viewer.get(`/api/v1/runs/${runId}`)).body.sample).toEqual(rows);
});

it('serves csv (the default) that a standard parser reads back to the same values', async () => {
  const res = await viewer.get(`/api/v1/runs/${runId}/result`).buffer(true).parse(binary);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers['content-disposition']).toMatch(/filename="daily-sales-eu-.*\.csv"/);
  const parsed = parse(res.body as Buffer, { relax_column_count: false }) as string[][];
  expect(parsed[0]).toEqual(['id', 'label', 'amount', 'big', 'day', 'at', 'ok', 'doc']);
  const text = (v: unknown) => (v === null ? '' : String(v));
  expect(parsed.slice(1)).toEqual(rows.map((r) => r.map(text)));
  expect((res.body as Buffer).toString('utf8')).toContain('\r\n');
});

it('serves xlsx that exceljs opens: header frozen, numbers numeric where exact, dates as dates, the rest as text', async () => {
  const res = await viewer.get(`/api/v1/runs/${runId}/result?format=xlsx`).buffer(true).parse(binary);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(res.body as never); // exceljs types name an older Buffer
  const sheet = book.worksheets[0]!;
  expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  const values = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
  expect(values(1)).toEqual(['id', 'label', 'amount', 'big', 'day', 'at', 'ok', 'doc']);
  expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
  expect(values(2)).toEqual([1, 'plain', 10.5, 1, new Date('2026-11-01T00:00:00Z'), new Date('2026-11-01T08:30:00Z'), true, '{"a": 1}']);
  // Beyond 15 significant digits the text is kept, so nothing is lost.
  expect(values(3)).toEqual([2, 'comma, "quote" and\nnewline', '1234567890123.4567', '9007199254740993', new Date('1999-12-31T00:00:00Z'), new Date('2026-03-28T23:30:00Z'), false]);
  expect(values(4)).toEqual([3, 'Grüße ☃ <tag> & more', undefined, -5, undefined, undefined, undefined, '[1, 2]']);
  // An empty text and an empty cell read the same in a spreadsheet.
  expect(values(5)).toEqual([4, undefined, 0.1, 0, new Date('2000-02-29T00:00:00Z'), new Date('2024-02-29T23:59:59.123Z'), true, '"text"']);
  expect(sheet.rowCount).toBe(5);
});

it('answers 404 run.no_result for a run without a result file, and checks the format', async () => {
  const failed = await runOf('Broken', 'select * from no_such_table');
  expect(failed.status).toBe('failed');
  const res = await viewer.get(`/api/v1/runs/${failed.id}/result?format=csv`);
  expect([res.status, res.body.code]).toEqual([404, 'run.no_result']);
  expect((await viewer.get('/api/v1/runs/0190a0a0-0000-7000-8000-000000000000/result')).status).toBe(404);
  const bad = await viewer.get(`/api/v1/runs/${runId}/result?format=pdf`);
  expect(bad.status).toBe(422);
  expect(bad.body.errors[0]).toMatchObject({ field: 'format', code: 'validation.enum' });
  // A file removed by hand (or by retention) is the same: no result; and a small result kept in
  // the store whose row was deleted by hand.
  const [row] = await h.process.container.sql`select result_key from runs where id = ${runId}`;
  const again = await runOf('Again', 'select md5(g::text) as h from generate_series(1, 2000) g');
  const [other] = await h.process.container.sql`select result_key from runs where id = ${again.id}`;
  expect(other!.result_key).not.toMatch(/^db:/);
  await h.process.container.artifacts.remove(other!.result_key as string);
  expect((await viewer.get(`/api/v1/runs/${again.id}/result`)).body.code).toBe('run.no_result');
  const kept = await runOf('Kept', 'select 1 as one');
  const [small] = await h.process.container.sql`select result_key from runs where id = ${kept.id}`;
  expect(small!.result_key).toMatch(/^db:/);
  expect((await viewer.get(`/api/v1/runs/${kept.id}/result`)).status).toBe(200);
  await h.process.container.sql`delete from run_results where run_id = ${kept.id}`;
  expect((await viewer.get(`/api/v1/runs/${kept.id}/result`)).body.code).toBe('run.no_result');
  expect(row!.result_key).toBeTruthy();
});

describe('formula-safe csv', () => {
  let formulas: string;
  const csvOf = async (path: string) => {
    const res = await viewer.get(path).buffer(true).parse(binary);
    expect([path, res.status]).toEqual([path, 200]);
    return parse(res.body as Buffer, { relax_column_count: false }) as string[][];
  };
  const header = ['id', 'label', 'n', 'amount', 'big', '=note'];
  // As stored: what the query returned (csv-parse reads a field "\rCR" back as it was written).
  const exact = [
    ['1', '=1+1', '-5', '-5.25', '-9007199254740993', '-5'],
    ['2', '+x', '-7', '0.00', '1', '-1.5e3'],
    ['3', '-y', '0', '1.00', '2', '\tTab'],
    ['4', '@z', '', '', '', '\rCR'],
    ['5', '=HYPERLINK("http://x.example","y")', '1', '2.00', '3', 'a=b-c'],
    ['6', '-2+3', '2', '3.00', '4', ''],
  ];

  beforeAll(async () => {
    const run = await runOf('Formulas', 'select id, label, n, amount, big, note as "=note" from f order by id');
    expect(run.status).toBe('success');
    formulas = run.id;
  });

  it('is not the default: a plain download holds the exact values', async () => {
    for (const path of [`/api/v1/runs/${formulas}/result`, `/api/v1/runs/${formulas}/result?format=csv&formula_safe=false`]) {
      expect(await csvOf(path)).toEqual([header, ...exact]);
    }
  });

  it('with formula_safe=true prefixes text that starts with = + - @ tab or CR with a quote, and leaves numbers alone', async () => {
    expect(await csvOf(`/api/v1/runs/${formulas}/result?formula_safe=true`)).toEqual([
      ['id', 'label', 'n', 'amount', 'big', "'=note"],
      // Negative int, numeric and bigint (the last arrives as text) are numbers: unchanged. So is
      // text that is a plain number (-5, -1.5e3): a spreadsheet reads it as that number.
      ['1', "'=1+1", '-5', '-5.25', '-9007199254740993', '-5'],
      ['2', "'+x", '-7', '0.00', '1', '-1.5e3'],
      ['3', "'-y", '0', '1.00', '2', "'\tTab"],
      ['4', "'@z", '', '', '', "'\rCR"],
      ['5', '\'=HYPERLINK("http://x.example","y")', '1', '2.00', '3', 'a=b-c'],
      ['6', "'-2+3", '2', '3.00', '4', ''],
    ]);
    // The formula-safe file is still RFC 4180: quotes doubled inside a quoted field.
    const raw = await viewer.get(`/api/v1/runs/${formulas}/result?formula_safe=true`).buffer(true).parse(binary);
    expect((raw.body as Buffer).toString('utf8')).toContain('5,"\'=HYPERLINK(""http://x.example"",""y"")",1,2.00,3,a=b-c\r\n');
  });

  it('is offered on shared links too (csv), the exact values without it', async () => {
    const link = await editor.post('/api/v1/links').send({ run_id: formulas, format: 'csv' }).expect(201);
    const path = new URL(link.body.url as string).pathname;
    expect((await csvOf(path)).slice(1)).toEqual(exact);
    expect((await csvOf(`${path}?formula_safe=true`))[1]).toEqual(['1', "'=1+1", '-5', '-5.25', '-9007199254740993', '-5']);
  });

  it('leaves xlsx as it is: text is written as text cells, never as formulas', async () => {
    const res = await viewer.get(`/api/v1/runs/${formulas}/result?format=xlsx&formula_safe=true`).buffer(true).parse(binary);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(res.body as never);
    const cell = book.worksheets[0]!.getRow(2).getCell(2);
    expect([cell.value, cell.type, cell.formula]).toEqual(['=1+1', ExcelJS.ValueType.String, undefined]);
    expect(book.worksheets[0]!.getRow(2).getCell(3).value).toBe(-5);
  });

  it('checks the parameter', async () => {
    const bad = await viewer.get(`/api/v1/runs/${formulas}/result?formula_safe=maybe`);
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ field: 'formula_safe' });
  });
});
