/**
 * Formula-safe csv (src/domain/results/streams.ts) by column type, for the type names both
 * connectors give: text that spreadsheet programs would run gets a leading quote; values of
 * numeric columns never change, whatever their text (PostgreSQL's money, NaN and -Infinity,
 * MySQL's unsigned decimals), nor do booleans and nulls. Each case is run both ways a csv is
 * made: from the rows' values, and from the stored file's NDJSON bytes (ndjson-bytes.ts).
 */
import { csvStream, formulaSafeText } from '../../src/domain/results/streams.js';
import type { StoredResult } from '../../src/domain/artifacts/ports.js';
import type { CellValue, ResultColumn } from '../../src/domain/plugins/connector.js';

async function csvWay(columns: ResultColumn[], rows: CellValue[][], formulaSafe: boolean, bytes: boolean): Promise<string[]> {
  const result: StoredResult = { columns, batches: (async function* batches() { yield rows; })() };
  if (bytes) result.lines = (async function* lines() { yield Buffer.from(rows.map((row) => `${JSON.stringify(row)}\n`).join('')); })();
  const parts: Buffer[] = [];
  for await (const chunk of csvStream(result, { formulaSafe })) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8').split('\r\n').slice(0, -1);
}

/** The csv both ways; they must agree. */
async function csvOf(columns: ResultColumn[], rows: CellValue[][], formulaSafe: boolean): Promise<string[]> {
  const values = await csvWay(columns, rows, formulaSafe, false);
  expect(await csvWay(columns, rows, formulaSafe, true)).toEqual(values);
  return values;
}

it('prefixes text that starts a formula, and only that', () => {
  for (const text of ['=1+1', '+x', '-y', '@SUM(A1)', '\tx', '\rx', '-2+3', '--5', '+', '-', '=']) {
    expect([text, formulaSafeText(text)]).toEqual([text, `'${text}`]);
  }
  for (const text of ['', 'plain', 'a=b', ' =1', "'=1", '-5', '+5', '-1.5', '-.5', '-1e5', '+4930123456', '0']) {
    expect([text, formulaSafeText(text)]).toEqual([text, text]);
  }
});

it('leaves every value of numeric columns as it is, by PostgreSQL and MySQL type name', async () => {
  const numeric = ['int2', 'int4', 'int8', 'numeric', 'float4', 'float8', 'money', 'decimal', 'decimal unsigned', 'bigint unsigned', 'double', 'float', 'tinyint', 'smallint', 'mediumint', 'int', 'year'];
  for (const type of numeric) {
    const lines = await csvOf([{ name: 'v', type }], [['-5'], [-5], ['-$5.00'], ['NaN'], ['-Infinity'], [null]], true);
    expect([type, lines]).toEqual([type, ['v', '-5', '-5', '-$5.00', 'NaN', '-Infinity', '']]);
  }
});

it('makes text columns safe (json included), keeps booleans, and quotes what RFC 4180 needs', async () => {
  const columns = [{ name: '=name', type: 'text' }, { name: 'doc', type: 'jsonb' }, { name: 'ok', type: 'bool' }, { name: 'v', type: 'varchar' }];
  const rows: CellValue[][] = [['=A1,B1', '-5', true, '-Infinity'], ['@x', '"=1"', false, '=HYPERLINK("u")']];
  expect(await csvOf(columns, rows, true)).toEqual([
    "'=name,doc,ok,v",
    '"\'=A1,B1",-5,true,\'-Infinity',
    '\'@x,"""=1""",false,"\'=HYPERLINK(""u"")"',
  ]);
  // Without the option: the exact values.
  expect(await csvOf(columns, rows, false)).toEqual(['=name,doc,ok,v', '"=A1,B1",-5,true,-Infinity', '@x,"""=1""",false,"=HYPERLINK(""u"")"']);
});
