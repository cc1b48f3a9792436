/**
 * COPY's text lines written straight as NDJSON (src/plugins/postgres/copy-ndjson.ts) give the
 * very bytes the value path gives: each line decoded by copy.ts and values.ts, then
 * `JSON.stringify(row)` and a newline. Every rule (int, int8, bool, text, date, timestamp,
 * timestamptz, float) and every way out of a rule to the value path is held side by side with
 * the value path; tests/integration/connector-copy.test.ts does the same through a real
 * PostgreSQL.
 */
import { copyColumns, copyNdjson, shortestFloats } from '../../src/plugins/postgres/copy-ndjson.js';
import { copyRows } from '../../src/plugins/postgres/copy.js';
import { textDecoderFor } from '../../src/plugins/postgres/values.js';

/** The value path: what the run wrote before (and writes for a cursor's rows). */
function byValues(text: string, oids: number[]): string {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return copyRows(body, oids.map(textDecoderFor)).map((row) => `${JSON.stringify(row)}\n`).join('');
}

function expectSame(lines: string[], oids: number[], shortestFloats = false): void {
  const text = `${lines.join('\n')}\n`;
  const { lines: bytes, rows } = copyNdjson(Buffer.from(text), copyColumns(oids, shortestFloats));
  expect(bytes.toString('utf8')).toBe(byValues(text, oids));
  expect(rows).toBe(lines.length);
}

/** One column of the given type, a line per value (COPY's text: already escaped). */
const column = (oid: number, values: string[]) => expectSame(values, [oid]);

it('writes integers as they are, int8 past ±2^53 - 1 as text', () => {
  column(23, ['0', '1', '-1', '2147483647', '-2147483648', '\\N']);
  column(21, ['32767', '-32768']);
  column(26, ['4294967295']);
  column(20, [
    '0', '-7', '999999999999999', '-999999999999999', '1000000000000000', '9007199254740991', '-9007199254740991',
    '9007199254740992', '-9007199254740992', '9007199254740993', '9007199254740990', '8999999999999999', '9100000000000000',
    '12345678901234567890', '-9223372036854775808', '\\N',
  ]);
  // Not PostgreSQL's integer text (a server that only speaks its protocol might send it): the value path.
  column(23, ['1B', '007', '-0', '-', '', '1-2', '+3', ' 4']);
  column(20, ['12a', '00123456789012345678', '-', '-0012', '99999999999999999x']);
});

it('writes booleans and NULLs', () => {
  column(16, ['t', 'f', '\\N']);
  expectSame(['\\N\t\\N\t\\N', 't\t\\N\t1'], [16, 25, 23]);
});

it('writes text quoted, COPY\'s escapes turned into JSON\'s, and takes the value path for the rest', () => {
  column(25, [
    '', 'plain', 'a, "quoted" note', '\\\\', 'back\\\\slash', 'line\\nbreak', 'cr\\rlf', 'tab\\there', 'bs\\bff\\f',
    'vt\\vhere', `ctl${String.fromCharCode(1)}x`, `unit${String.fromCharCode(0x1f)}`, `del${String.fromCharCode(0x7f)}`,
    'é漢😀', 'line\u2028sep\u2029', '\\\\N', 'null', '"', '\\\\"', 'ends in \\\\', '\\N',
  ]);
  // Every type values.ts leaves as its text is written the same way.
  column(1700, ['1.50', '-0.001', 'NaN', 'Infinity', '12345678901234567890.12345']);
  column(790, ['$1,234.56', '-$0.01']);
  column(2950, ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']);
  column(3802, ['{"a": [1, 2], "b": "c\\\\\\\\d"}', '{"quote": "\\\\""}']);
  column(1009, ['{a,"b c",NULL}']);
  column(1186, ['P1Y2M3DT4H5M6S']);
  column(1083, ['10:00:00.5']);
  column(1043, ['C1']);
});

it('writes dates and timestamps of the common forms as ISO text, and the value path the others', () => {
  column(1082, ['2024-01-02', '0044-03-15', '0044-03-15 BC', '12345-01-01', 'infinity', '-infinity', '\\N']);
  column(1114, [
    '2024-01-02 03:04:05', '2024-01-02 03:04:05.123456', '0001-01-01 00:00:00', '0044-03-15 10:00:00 BC', '12345-01-01 00:00:00',
    'infinity', '-infinity',
  ]);
  column(1184, [
    '2024-01-02 03:04:05+00', '2024-01-02 03:04:05.5+00', '2023-11-14 22:13:20.000001+00', '2024-01-02 03:04:05+05:30',
    '2024-01-02 03:04:05-08', '1883-11-18 12:00:00+00:53:28', '2024-01-02 03:04:05+00:00', '0044-03-15 10:00:00+00 BC',
    '12345-01-01 00:00:00+00', 'infinity', '-infinity',
  ]);
  column(1266, ['10:00:00+02', '10:00:00+00']);
});

it('writes finite floats as JavaScript writes the number, and the value path the others', () => {
  column(701, [
    '0', '-0', '3', '0.1', '0.14285714285714285', '1e+20', '1e+21', '1.5e+300', '1e-05', '1.2345e-07', '5e-324',
    '1.7976931348623157e+308', '-2.5', 'NaN', 'Infinity', '-Infinity', '123456789012345680000', '\\N',
  ]);
  column(700, ['0.1', '3.4028235e+38', '-1e-45', 'NaN']);
  // Not PostgreSQL's canonical text (it never writes these): the value path, not the bytes.
  column(701, ['1.0', '1.50', '01', '-00.5', '0.', '1..2', '-', '+1', '.5', '-.5', '.']);
  expectSame(['.5', '-.25'], [701], true);
});

it('takes the value path for what only a server that merely speaks PostgreSQL\'s protocol would send (found by fuzzing)', () => {
  // Lines of fewer cells than columns, one of them long: the cells were read on into the next
  // lines, past the room made for the line, and a float written there threw.
  expectSame(['a', '"'.repeat(2100), '1e5'], [25, 25, 701]);
  expectSame(['1\t2', '3'], [23, 23]);
  // Integers of more digits than int4 and oid have: past 2^53 their JSON is the number's.
  column(23, ['90071992547409910', '1234567890123456', '123456789012345']);
  column(26, ['12345678901234567890']);
  // Plain floats where JavaScript writes an exponent: below 1e-6, from 1e21.
  column(701, ['0.0000001', '-0.00000012', '0.000001', '0.0000015', '1000000000000000000000', '100000000000000000000', '123456789012345678901.5']);
  // More significant digits than JavaScript ever writes, from a server said to write the shortest.
  expectSame(['0.123456789012345678', '1.2345678901234567', '12345678901234567.8'], [701], true);
  // Dates and timestamps of the right length holding other bytes.
  column(1082, ['2024-01-0"', '2024-0\\\\-1', '2024-01-0x', '2024-01 02']);
  column(1114, ['2024-01-02 03:04:"5', '2024-01-02 03:0\\\\:05', '2024 01-02 03:04:05', `2024-01-02 03:04:05${String.fromCharCode(1)}5`, '2024-01-02T03:04:05']);
  column(1184, ['2024-01-02 0":04:05+00', '2024-01-02 03:04:05 +00', '2024-01-02 03:04:05x+00', '2024-01-0x 03:04:05+00']);
});

it('copies a float\'s shortest digits as they are from a server that writes them (PostgreSQL 12+), the value path for the rest', () => {
  const shortest = [
    '0.14285714285714285', '0.30000000000000004', '-2.5', '0.0001', '99999999999999.98', '123456789012345.67', '1.7976931348623157e+308',
    '-0', '0', 'NaN', '-Infinity', '1e+15', '1.2345678901234567e-05', '\\N',
  ];
  expectSame(shortest, [701], true);
  expectSame(Array.from({ length: 5000 }, (_, i) => String((i * 7919) / 7 / 10 ** (i % 9))).filter((t) => !t.includes('e')), [701], true);
  expect(shortestFloats('15.20 (Debian 15.20-0+deb12u1)')).toBe(true);
  expect(shortestFloats('12.0')).toBe(true);
  expect(shortestFloats('11.22')).toBe(false);
  expect(shortestFloats('9.6.24')).toBe(false);
  expect(shortestFloats(undefined)).toBe(false);
  expect(shortestFloats('')).toBe(false);
});

it('writes bytea and every other type through the value path', () => {
  column(17, ['\\\\x', '\\\\x00ff', '\\\\xdeadbeef']);
});

it('writes rows of mixed columns, a value path cell among them, and a last line without its newline', () => {
  const oids = [23, 25, 1700, 20, 1082, 1184, 16, 25, 701, 1043];
  const lines = Array.from({ length: 50 }, (_, g) => [
    g, `item ${g}`, `${g * 7}.0${g % 10}`, `${9007199254740990 + g}`, `2010-01-${String(1 + (g % 28)).padStart(2, '0')}`,
    `2023-11-14 22:13:${String(g % 60).padStart(2, '0')}+00`, g % 3 === 0 ? 't' : 'f', g % 5 === 0 ? '\\N' : g % 7 === 0 ? 'v\\vt' : 'a, "quoted" note',
    g % 4 === 0 ? '1e+20' : `${g / 7}`, `C${g}`,
  ].join('\t'));
  expectSame(lines, oids);
  const text = lines.join('\n');
  expect(copyNdjson(Buffer.from(text), copyColumns(oids)).lines.toString()).toBe(byValues(text, oids));
});

it('makes room for value path cells many times longer as JSON than as COPY text', () => {
  const oids = [701, 25, 701, 25];
  const lines = Array.from({ length: 400 }, () => ['1e+20', '\\v\\v\\v\\v\\v\\v\\v\\v', '1e+20', `${'"'.repeat(40)}${'\\n'.repeat(20)}`].join('\t'));
  expectSame(lines, oids);
});

it('goes the value path for a chunk that is not UTF-8 (a SQL_ASCII database), as the value path decodes it', () => {
  const bytes = Buffer.concat([Buffer.from('1\tcaf'), Buffer.from([0xe9, 0xff]), Buffer.from('\t2024-01-02\n2\tok\t\\N\n')]);
  const oids = [23, 25, 1082];
  expect(copyNdjson(bytes, copyColumns(oids))).toEqual({ lines: Buffer.from(byValues(bytes.toString('utf8'), oids)), rows: 2 });
});

it('gives nothing for no lines', () => {
  expect(copyNdjson(Buffer.alloc(0), copyColumns([23]))).toEqual({ lines: Buffer.alloc(0), rows: 0 });
});

it('holds for random text of every awkward character, escaped as COPY writes it', () => {
  const alphabet = ['a', 'Z', ' ', ',', '"', '\\', '\n', '\r', '\t', '\b', '\f', '\v', '\u0001', '\u001f', '\u007f', 'é', '漢', '😀', '\u2028', 'N'];
  const copyText = (s: string) => s.replace(/[\\\n\r\t\b\f\v]/g, (c) => ({ '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\v': '\\v' })[c]!);
  let seed = 7;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const lines = Array.from({ length: 2000 }, () => Array.from({ length: 3 }, () => {
    const s = Array.from({ length: Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]!).join('');
    return copyText(s);
  }).join('\t'));
  expectSame(lines, [25, 1043, 3802]);
});

it('takes the value path for lines of fewer or more cells than columns', () => {
  for (const text of ['1\ta\n2\n', '1\ta\tb\n', '1\n2\tb\n', '\\N\n2\tb\n', '1\t\\N\tx\n']) {
    expect(copyNdjson(Buffer.from(text), copyColumns([23, 25])).lines.toString()).toBe(byValues(text, [23, 25]));
  }
});

it('writes rows that grow the most (one short cell a line) and a chunk far larger than the last', () => {
  expectSame(Array.from({ length: 3000 }, (_, i) => ['', 'f', '\\N', 't'][i % 4]!), [25]);
  expectSame(Array.from({ length: 3000 }, (_, i) => ['f', 't'][i % 2]!), [16]);
  expectSame(Array.from({ length: 20 }, () => 'x'.repeat(500_000)), [25]);
  expectSame(['short'], [25]);
});
