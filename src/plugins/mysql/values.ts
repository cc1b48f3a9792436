/**
 * MySQL/MariaDB values as mysql2 hands them over (binary protocol, with supportBigNumbers,
 * bigNumberStrings, dateStrings and jsonStrings: see client.ts) turned into CellValues without
 * loss, and the database type name of each column.
 */
import type { CellValue } from '../../domain/plugins/connector.js';

/** The column definition fields of mysql2 that matter here. */
export interface MysqlField {
  name: string;
  columnType?: number;
  type?: number;
  flags?: number | string[];
  characterSet?: number;
  columnLength?: number;
  extendedTypeName?: string;
  extendedFormat?: string;
}

export const T = {
  DECIMAL: 0, TINY: 1, SHORT: 2, LONG: 3, FLOAT: 4, DOUBLE: 5, NULL: 6, TIMESTAMP: 7, LONGLONG: 8,
  INT24: 9, DATE: 10, TIME: 11, DATETIME: 12, YEAR: 13, NEWDATE: 14, VARCHAR: 15, BIT: 16,
  TIMESTAMP2: 17, DATETIME2: 18, TIME2: 19, VECTOR: 242, JSON: 245, NEWDECIMAL: 246, ENUM: 247,
  SET: 248, TINY_BLOB: 249, MEDIUM_BLOB: 250, LONG_BLOB: 251, BLOB: 252, VAR_STRING: 253,
  STRING: 254, GEOMETRY: 255,
} as const;

const BINARY_CHARSET = 63;
const UNSIGNED_FLAG = 32;
const ENUM_FLAG = 256;
const SET_FLAG = 2048;

export type Decoder = (value: unknown) => CellValue;

function flagsOf(field: MysqlField): number {
  return typeof field.flags === 'number' ? field.flags : 0;
}

function columnType(field: MysqlField): number {
  return field.columnType ?? field.type ?? T.VAR_STRING;
}

/** Anything mysql2 may hand over, as a CellValue (the fallback of every decoder). */
function generic(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return JSON.stringify(value);
}

const bigint: Decoder = (v) => {
  if (typeof v !== 'string') return generic(v);
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
};

/** A FLOAT arrives as float32 widened to a double: its shortest decimal that reads back the same. */
const float32: Decoder = (v) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) return generic(v);
  for (let p = 1; p <= 9; p += 1) {
    const candidate = Number(v.toPrecision(p));
    if (Math.fround(candidate) === v) return candidate;
  }
  return v;
};

const bits: Decoder = (v) => {
  if (!Buffer.isBuffer(v)) return generic(v);
  let n = 0n;
  for (const byte of v) n = (n << 8n) | BigInt(byte);
  return Number.isSafeInteger(Number(n)) ? Number(n) : n.toString();
};

const datetime: Decoder = (v) => (typeof v === 'string' ? v.replace(' ', 'T') : generic(v));

function timestampWithOffset(offset: string): Decoder {
  const suffix = offset === '+00:00' || offset === '-00:00' || offset === 'UTC' ? 'Z' : offset;
  return (v) => (typeof v === 'string' ? (v.startsWith('0000-00-00') ? v.replace(' ', 'T') : `${v.replace(' ', 'T')}${suffix}`) : generic(v));
}

/** Decoders for a result's columns; `sessionOffset` is the session's time_zone (TIMESTAMP values are in it). */
export function decoderFor(field: MysqlField, sessionOffset: string): Decoder {
  switch (columnType(field)) {
    case T.LONGLONG: return bigint;
    case T.FLOAT: return float32;
    case T.DECIMAL:
    case T.NEWDECIMAL: return (v) => (typeof v === 'string' ? v : generic(v));
    case T.DATETIME:
    case T.DATETIME2: return datetime;
    case T.TIMESTAMP:
    case T.TIMESTAMP2: return timestampWithOffset(sessionOffset);
    case T.BIT: return bits;
    default: return generic;
  }
}

const NAMES: Record<number, string> = {
  [T.DECIMAL]: 'decimal', [T.NEWDECIMAL]: 'decimal', [T.TINY]: 'tinyint', [T.SHORT]: 'smallint',
  [T.LONG]: 'int', [T.INT24]: 'mediumint', [T.LONGLONG]: 'bigint', [T.FLOAT]: 'float',
  [T.DOUBLE]: 'double', [T.NULL]: 'null', [T.TIMESTAMP]: 'timestamp', [T.TIMESTAMP2]: 'timestamp',
  [T.DATE]: 'date', [T.NEWDATE]: 'date', [T.TIME]: 'time', [T.TIME2]: 'time', [T.DATETIME]: 'datetime',
  [T.DATETIME2]: 'datetime', [T.YEAR]: 'year', [T.BIT]: 'bit', [T.JSON]: 'json', [T.ENUM]: 'enum',
  [T.SET]: 'set', [T.GEOMETRY]: 'geometry', [T.VECTOR]: 'vector',
};

/** The database's own type name of a result column (e.g. "int unsigned", "varchar", "blob", "uuid"). */
export function typeName(field: MysqlField): string {
  if (field.extendedTypeName) return field.extendedTypeName.toLowerCase();
  if (field.extendedFormat === 'json') return 'json';
  const type = columnType(field);
  const flags = flagsOf(field);
  const binary = field.characterSet === BINARY_CHARSET;
  let name: string;
  if (flags & ENUM_FLAG) name = 'enum';
  else if (flags & SET_FLAG) name = 'set';
  else if (type === T.VAR_STRING || type === T.VARCHAR) name = binary ? 'varbinary' : 'varchar';
  else if (type === T.STRING) name = binary ? 'binary' : 'char';
  else if (type === T.TINY_BLOB || type === T.MEDIUM_BLOB || type === T.LONG_BLOB || type === T.BLOB) name = binary ? 'blob' : 'text';
  else name = NAMES[type] ?? 'unknown';
  const numeric = [T.TINY, T.SHORT, T.LONG, T.INT24, T.LONGLONG, T.DECIMAL, T.NEWDECIMAL, T.FLOAT, T.DOUBLE].includes(type as 0);
  return numeric && flags & UNSIGNED_FLAG ? `${name} unsigned` : name;
}
