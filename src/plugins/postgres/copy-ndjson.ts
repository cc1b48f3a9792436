/**
 * COPY's text lines straight into a result file's NDJSON lines, without a value per cell: the
 * bytes of each line are copied into `[cell,cell,…]\n`, each cell written as JSON by a rule of its
 * column's type. The result is byte for byte what the value path gives, that is
 * `JSON.stringify(copyRows(text, decoders)[i]) + "\n"` for each row (copy.ts, values.ts): the
 * run's hash and its stored file are the same either way (tests/unit/copy-ndjson.test.ts holds
 * both side by side for every rule and every escape).
 *
 * The rules, by type OID (as values.ts decodes them):
 *   - int2, int4, oid: the text is the JSON number;
 *   - int8: the number when it is a safe integer (values.ts's bigint), else the text quoted;
 *   - bool: t → true, f → false;
 *   - text and every type values.ts leaves as text (numeric, money, varchar, uuid, json, interval,
 *     time, arrays, …): the text quoted, COPY's escapes \\ \n \r \t \b \f turned into JSON's and
 *     `"` into `\"`;
 *   - date, timestamp, timestamptz of the common forms (four-digit year, not BC, and for
 *     timestamptz the +00 offset every run's TimeZone UTC gives): the ISO text values.ts makes,
 *     quoted;
 *   - float4, float8: the number's own JavaScript text when it is finite (what JSON.stringify
 *     writes for it);
 *   - everything else, and any cell a rule does not take (a raw control character, COPY's \v, a
 *     year past 9999, BC, an infinity, NaN): decoded by values.ts and written by JSON.stringify.
 * A chunk that is not valid UTF-8 (a SQL_ASCII database) goes the value path whole: its bytes
 * cannot be copied as they are.
 */
import { isUtf8 } from 'node:buffer';
import { copyRows, unescapeCopy } from './copy.js';
import { textDecoderFor, type TextDecoder } from './values.js';

/** How a column's cells are written (see the file's comment). */
const VALUE = 0;
const BARE = 1;
const BIGINT = 2;
const BOOL = 3;
const TEXT = 4;
const DATE = 5;
const TIMESTAMP = 6;
const TIMESTAMPTZ = 7;
const FLOAT = 8;

/** The types values.ts decodes to something other than their own text, and the rule of each. */
const RULES: Record<number, number> = {
  16: BOOL, 17: VALUE, 20: BIGINT, 21: BARE, 23: BARE, 26: BARE, 700: FLOAT, 701: FLOAT,
  1700: TEXT, 790: TEXT, 1082: DATE, 1083: TEXT, 1114: TIMESTAMP, 1184: TIMESTAMPTZ, 1186: TEXT, 1266: VALUE,
};

/** The columns' rules and decoders for copyNdjson, by their type OIDs. */
export interface CopyColumns { rules: Uint8Array; decoders: TextDecoder[] }

export function copyColumns(oids: readonly number[]): CopyColumns {
  return { rules: Uint8Array.from(oids, (oid) => RULES[oid] ?? TEXT), decoders: oids.map(textDecoderFor) };
}

const NEWLINE = 0x0a;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const NULL_MARK = 0x4e; // \N
const PLUS = 0x2b;
const ZERO = 0x30;
const DASH = 0x2d;
const SPACE = 0x20;
const NULL_JSON = Buffer.from('null');
const TRUE_JSON = Buffer.from('true');
const FALSE_JSON = Buffer.from('false');

const isDigit = (b: number): boolean => b >= 0x30 && b <= 0x39;

/** COPY's escape letters JSON writes the same way after its backslash (\\ \n \r \t \b \f); 0 for the others. */
const SAME_ESCAPE = new Uint8Array(128);
for (const c of '\\nrtbf') SAME_ESCAPE[c.charCodeAt(0)] = c.charCodeAt(0);

/** Four-digit year, a dash, and (for timestamps) a space after the date: the forms the rules copy. */
function isoDateAt(src: Buffer, s: number): boolean {
  return isDigit(src[s]!) && isDigit(src[s + 1]!) && isDigit(src[s + 2]!) && isDigit(src[s + 3]!) && src[s + 4] === DASH;
}

const MAX_SAFE = Buffer.from(String(Number.MAX_SAFE_INTEGER));

/** Whether an integer's text (int8out's: an optional minus, digits, no leading zero) is within ±2^53 - 1. */
function safeInteger(src: Buffer, s: number, e: number): boolean {
  const from = src[s] === DASH ? s + 1 : s;
  const digits = e - from;
  if (digits !== MAX_SAFE.length) return digits < MAX_SAFE.length;
  for (let q = 0; q < digits; q += 1) {
    const d = src[from + q]! - MAX_SAFE[q]!;
    if (d !== 0) return d < 0;
  }
  return true;
}

/** The output under construction (a class, not closures: see results/xlsx-bytes.ts). */
class Out {
  buf: Buffer;
  at = 0;
  constructor(size: number) { this.buf = Buffer.allocUnsafe(size); }
  room(need: number): void {
    if (this.at + need <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + need));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
  /** A value the way the value path writes it: decoded from its unescaped text, then JSON.stringify. */
  value(src: Buffer, s: number, e: number, decode: TextDecoder, rest: number): void {
    const text = src.toString('utf8', s, e);
    const json = JSON.stringify(decode(text.includes('\\') ? unescapeCopy(text) : text));
    this.room(json.length * 3 + rest);
    this.at += this.buf.write(json, this.at);
  }
}

/**
 * The NDJSON lines of `src`, complete COPY text lines each ending in a newline, for columns
 * `columns`; and how many rows they hold.
 */
export function copyNdjson(src: Buffer, columns: CopyColumns): { lines: Buffer; rows: number } {
  const { rules, decoders } = columns;
  const width = rules.length;
  if (!isUtf8(src)) return valuePath(src, decoders);
  const out = new Out(src.length + (src.length >> 1) + 1024);
  const n = src.length;
  let rows = 0;
  let p = 0;
  while (p < n) {
    let eol = src.indexOf(NEWLINE, p);
    if (eol === -1) eol = n;
    out.room(3 * (eol - p) + 32 * width + 8);
    let buf = out.buf;
    let o = out.at;
    buf[o++] = 0x5b; // [
    for (let c = 0; c < width; c += 1) {
      let e = c === width - 1 ? eol : src.indexOf(TAB, p);
      if (e === -1 || e > eol) e = eol;
      const s = p;
      p = e + 1;
      if (c > 0) buf[o++] = COMMA;
      if (e - s === 2 && src[s] === BACKSLASH && src[s + 1] === NULL_MARK) { NULL_JSON.copy(buf, o); o += 4; continue; }
      const rule = rules[c]!;
      if (rule === BARE && e > s) {
        for (let q = s; q < e; q += 1) buf[o++] = src[q]!;
        continue;
      }
      if (rule === TEXT) {
        const start = o;
        buf[o++] = QUOTE;
        let q = s;
        for (; q < e; q += 1) {
          const b = src[q]!;
          if (b >= SPACE && b !== QUOTE && b !== BACKSLASH) { buf[o++] = b; continue; }
          if (b === QUOTE) { buf[o++] = BACKSLASH; buf[o++] = QUOTE; continue; }
          if (b === BACKSLASH && q + 1 < e) {
            const next = src[q + 1]!;
            const same = next < 128 ? SAME_ESCAPE[next]! : 0;
            if (same !== 0) { buf[o++] = BACKSLASH; buf[o++] = same; q += 1; continue; }
          }
          break; // a control character or \v: the value path
        }
        if (q === e) { buf[o++] = QUOTE; continue; }
        out.at = start;
        out.value(src, s, e, decoders[c]!, 3 * (eol - e) + 32 * width + 8);
        buf = out.buf;
        o = out.at;
        continue;
      }
      if (rule === BOOL) {
        const word = src[s] === 0x74 ? TRUE_JSON : FALSE_JSON;
        word.copy(buf, o);
        o += word.length;
        continue;
      }
      if (rule === BIGINT) {
        if (safeInteger(src, s, e)) {
          for (let q = s; q < e; q += 1) buf[o++] = src[q]!;
        } else {
          buf[o++] = QUOTE;
          for (let q = s; q < e; q += 1) buf[o++] = src[q]!;
          buf[o++] = QUOTE;
        }
        continue;
      }
      if (rule === DATE && e - s === 10 && isoDateAt(src, s)) {
        buf[o++] = QUOTE;
        for (let q = s; q < e; q += 1) buf[o++] = src[q]!;
        buf[o++] = QUOTE;
        continue;
      }
      if (rule === TIMESTAMP && e - s >= 19 && isoDateAt(src, s) && src[s + 10] === SPACE && isDigit(src[e - 1]!)) {
        buf[o++] = QUOTE;
        for (let q = s; q < s + 10; q += 1) buf[o++] = src[q]!;
        buf[o++] = 0x54; // T
        for (let q = s + 11; q < e; q += 1) buf[o++] = src[q]!;
        buf[o++] = QUOTE;
        continue;
      }
      if (rule === TIMESTAMPTZ && e - s >= 22 && isoDateAt(src, s) && src[s + 10] === SPACE
        && src[e - 3] === PLUS && src[e - 2] === ZERO && src[e - 1] === ZERO && isDigit(src[e - 4]!)) {
        buf[o++] = QUOTE;
        for (let q = s; q < s + 10; q += 1) buf[o++] = src[q]!;
        buf[o++] = 0x54; // T
        for (let q = s + 11; q < e - 3; q += 1) buf[o++] = src[q]!;
        buf[o++] = 0x5a; // Z
        buf[o++] = QUOTE;
        continue;
      }
      if (rule === FLOAT) {
        const value = Number(src.toString('latin1', s, e));
        if (Number.isFinite(value)) { o += buf.write(String(value), o, 'latin1'); continue; }
      }
      out.at = o;
      out.value(src, s, e, decoders[c]!, 3 * (eol - e) + 32 * width + 8);
      buf = out.buf;
      o = out.at;
    }
    buf[o++] = 0x5d; // ]
    buf[o++] = NEWLINE;
    out.at = o;
    rows += 1;
    p = eol + 1;
  }
  return { lines: out.buf.subarray(0, out.at), rows };
}

/** The value path: each row decoded (copy.ts) and written by JSON.stringify. */
function valuePath(src: Buffer, decoders: readonly TextDecoder[]): { lines: Buffer; rows: number } {
  let text = src.toString('utf8');
  if (text.endsWith('\n')) text = text.slice(0, -1);
  if (text.length === 0 && src.length === 0) return { lines: Buffer.alloc(0), rows: 0 };
  const rows = copyRows(text, decoders);
  let json = '';
  for (const row of rows) json += `${JSON.stringify(row)}\n`;
  return { lines: Buffer.from(json), rows: rows.length };
}
