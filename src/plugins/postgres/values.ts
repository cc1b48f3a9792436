/**
 * Postgres values as they arrive (text format, raw bytes) turned into CellValues without loss:
 * each transaction sets DateStyle ISO, IntervalStyle iso_8601, TimeZone UTC and bytea_output hex (see
 * client.ts transactionSettings), and nothing of the driver's own parsing is used (queries run with .raw()).
 */
import type { CellValue } from '../../domain/plugins/connector.js';

export type Decoder = (raw: Buffer) => CellValue;
/** The same decoding from the value's text (COPY's text format, unescaped; see copy.ts). */
export type TextDecoder = (text: string) => CellValue;

const text: TextDecoder = (s) => s;
const ascii = (raw: Buffer): string => raw.toString('latin1');

const bool: TextDecoder = (s) => s.charCodeAt(0) === 0x74; // 't'
const int: TextDecoder = (s) => Number(s);
const bigint: TextDecoder = (s) => {
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : s;
};
const float: TextDecoder = (s) => {
  const n = Number(s);
  return Number.isFinite(n) ? n : s === 'NaN' ? 'NaN' : s.startsWith('-') ? '-Infinity' : 'Infinity';
};
const numeric: TextDecoder = (s) => s; // 'NaN', 'Infinity', '-Infinity' already read so
const bytea: TextDecoder = (s) => {
  // hex format: \x0a0b…
  return Buffer.from(s.slice(2), 'hex').toString('base64');
};

function infinity(s: string): string | undefined {
  if (s === 'infinity') return 'Infinity';
  if (s === '-infinity') return '-Infinity';
  return undefined;
}

/** "0044-03-15 BC" → "-0043-03-15" (ISO 8601 has a year 0); a leading "+" for years past 9999. */
function isoDatePart(date: string, bc: boolean): string {
  const dash = date.indexOf('-', 1);
  const year = Number(date.slice(0, dash));
  const rest = date.slice(dash);
  const iso = bc ? 1 - year : year;
  if (iso >= 0 && iso <= 9999) return String(iso).padStart(4, '0') + rest;
  return (iso < 0 ? '-' : '+') + String(Math.abs(iso)).padStart(4, '0') + rest;
}

/** "+00" → "Z"; "+05:30" stays; "+01" → "+01:00"; "+00:53:28" stays. */
function isoOffset(offset: string): string {
  if (/^[+-]00(:00)?(:00)?$/.test(offset)) return 'Z';
  return offset.length === 3 ? `${offset}:00` : offset;
}

const OFFSET = /([+-]\d\d(?::\d\d){0,2})$/;

const date: TextDecoder = (s) => {
  const inf = infinity(s);
  if (inf) return inf;
  const bc = s.endsWith(' BC');
  return isoDatePart(bc ? s.slice(0, -3) : s, bc);
};

function timestampText(s: string, zoned: boolean): string {
  const inf = infinity(s);
  if (inf) return inf;
  const bc = s.endsWith(' BC');
  const body = bc ? s.slice(0, -3) : s;
  const space = body.indexOf(' ');
  const datePart = isoDatePart(body.slice(0, space), bc);
  let time = body.slice(space + 1);
  if (!zoned) return `${datePart}T${time}`;
  const m = OFFSET.exec(time);
  if (!m) return `${datePart}T${time}`;
  time = time.slice(0, m.index);
  return `${datePart}T${time}${isoOffset(m[1]!)}`;
}

const timestamp: TextDecoder = (s) => timestampText(s, false);
const timestamptz: TextDecoder = (s) => timestampText(s, true);
const timetz: TextDecoder = (s) => {
  const m = OFFSET.exec(s);
  return m ? s.slice(0, m.index) + isoOffset(m[1]!).replace('Z', '+00:00') : s;
};

/** Decoders by type OID; every other type arrives as its text (json, uuid, interval, arrays, …). */
const DECODERS: Record<number, TextDecoder> = {
  16: bool,
  17: bytea,
  20: bigint,
  21: int,
  23: int,
  26: int,
  700: float,
  701: float,
  1700: numeric,
  790: numeric, // money
  1082: date,
  1083: text, // time: HH:MM:SS[.ffffff]
  1114: timestamp,
  1184: timestamptz,
  1186: text, // interval, ISO 8601 duration (IntervalStyle iso_8601)
  1266: timetz,
};

export function textDecoderFor(oid: number): TextDecoder {
  return DECODERS[oid] ?? text;
}

const utf8: Decoder = (raw) => raw.toString('utf8');
/** From raw bytes: the types above are ASCII (read as latin1, the quickest); the rest UTF-8 text. */
const BUFFER_DECODERS = new Map<number, Decoder>(Object.entries(DECODERS).map(([oid, decode]) => [Number(oid), (raw: Buffer) => decode(ascii(raw))]));

export function decoderFor(oid: number): Decoder {
  return BUFFER_DECODERS.get(oid) ?? utf8;
}

/** Names of the common built-in types (pg_type.typname; arrays as elem[]); others are looked up. */
export const BUILT_IN_TYPE_NAMES: Record<number, string> = {
  16: 'bool', 17: 'bytea', 18: 'char', 19: 'name', 20: 'int8', 21: 'int2', 23: 'int4', 24: 'regproc',
  25: 'text', 26: 'oid', 28: 'xid', 114: 'json', 142: 'xml', 194: 'pg_node_tree', 600: 'point',
  650: 'cidr', 700: 'float4', 701: 'float8', 705: 'unknown', 774: 'macaddr8', 790: 'money',
  829: 'macaddr', 869: 'inet', 1033: 'aclitem', 1042: 'bpchar', 1043: 'varchar', 1082: 'date',
  1083: 'time', 1114: 'timestamp', 1184: 'timestamptz', 1186: 'interval', 1266: 'timetz',
  1560: 'bit', 1562: 'varbit', 1700: 'numeric', 2205: 'regclass', 2206: 'regtype', 2249: 'record',
  2278: 'void', 2950: 'uuid', 3220: 'pg_lsn', 3614: 'tsvector', 3615: 'tsquery', 3802: 'jsonb',
  3904: 'int4range', 3906: 'numrange', 3908: 'tsrange', 3910: 'tstzrange', 3912: 'daterange',
  3926: 'int8range', 4072: 'jsonpath', 5069: 'xid8',
  199: 'json[]', 1000: 'bool[]', 1001: 'bytea[]', 1002: 'char[]', 1003: 'name[]', 1005: 'int2[]',
  1007: 'int4[]', 1009: 'text[]', 1014: 'bpchar[]', 1015: 'varchar[]', 1016: 'int8[]',
  1021: 'float4[]', 1022: 'float8[]', 1028: 'oid[]', 1115: 'timestamp[]', 1182: 'date[]',
  1183: 'time[]', 1185: 'timestamptz[]', 1187: 'interval[]', 1231: 'numeric[]', 1270: 'timetz[]',
  2951: 'uuid[]', 3807: 'jsonb[]',
};
