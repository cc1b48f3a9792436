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
 *   - float4, float8: the text as it is when it is already what JavaScript writes for its number
 *     (plainFloatDigits), else the number's JavaScript text when it is finite;
 *   - everything else, and any cell a rule does not take (a raw control character, COPY's \v, a
 *     year past 9999, BC, an infinity, NaN): decoded by values.ts and written by JSON.stringify.
 * A chunk that is not valid UTF-8 (a SQL_ASCII database) goes the value path whole: its bytes
 * cannot be copied as they are.
 */
import { isUtf8 } from 'node:buffer';
import { GrowingBuffer } from '../../core/growing-buffer.js';
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

/**
 * The columns' rules and decoders for copyNdjson, by their type OIDs; `shortestFloats` when the
 * server writes floats as their shortest exact digits (shortestFloats()).
 */
export interface CopyColumns { rules: Uint8Array; decoders: TextDecoder[]; shortestFloats: boolean }

export function copyColumns(oids: readonly number[], shortestFloats = false): CopyColumns {
  return { rules: Uint8Array.from(oids, (oid) => RULES[oid] ?? TEXT), decoders: oids.map(textDecoderFor), shortestFloats };
}

/**
 * Whether a server of this version (the server_version it reports) writes a float as the
 * shortest digits that read back exactly: PostgreSQL 12 and later with extra_float_digits > 0,
 * which every run's transaction sets (client.ts). JavaScript writes a number the same way (the
 * shortest digits, the closest of them), so such a text in plain notation is already what
 * JSON.stringify writes for it. Unknown or older: false.
 */
export function shortestFloats(serverVersion: string | undefined): boolean {
  const major = Number.parseInt(serverVersion ?? '', 10);
  return Number.isFinite(major) && major >= 12;
}

/**
 * Whether a float's text is what JavaScript writes for its number: plain notation (digits, a
 * minus, a point; no exponent, NaN or Infinity), not -0, and either at most 15 significant digits
 * (any such decimal reads back from its double unchanged, so it is the shortest text of it) or
 * from a server that writes the shortest digits. Plain text from PostgreSQL lies between 1e-4 and
 * 1e17, where JavaScript writes plain notation too. The cell is src[s, e), its digits from
 * `from` (past a minus), holding `points` points (the last at `pointAt`) and `significant` digits
 * from the first nonzero one: all else in it is a digit (the caller's scan).
 */
function plainFloatDigits(
  src: Buffer, s: number, from: number, e: number, points: number, pointAt: number, significant: number, shortest: boolean,
): boolean {
  // Only the canonical form: one point at most, no trailing zero after it, no leading zero.
  if (points > 1 || src[e - 1] === POINT || (points === 1 && src[e - 1] === ZERO)) return false;
  if (src[from] === ZERO && from + 1 < e && src[from + 1] !== POINT) return false;
  if (src[from] === POINT) return false;
  if (significant === 0) return from === s; // 0, but not -0 (JavaScript writes it 0)
  // Where JavaScript writes plain notation too: below 1e21 (at most 21 digits before the point)
  // and from 1e-6 (at most five zeros after "0."). PostgreSQL's plain text is always within.
  if ((points === 1 ? pointAt : e) - from > 21) return false;
  if (points === 1 && pointAt === from + 1 && src[from] === ZERO) {
    let zeros = 0;
    while (src[pointAt + 1 + zeros] === ZERO) zeros += 1;
    if (zeros > 5) return false;
  }
  // JavaScript writes at most 17 significant digits.
  return significant <= 15 || (shortest && significant <= 17);
}

const NEWLINE = 0x0a;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const NULL_MARK = 0x4e; // \N
const PLUS = 0x2b;
const ZERO = 0x30;
const NINE = 0x39;
const POINT = 0x2e;
const DASH = 0x2d;
const SPACE = 0x20;
const NULL_JSON = Buffer.from('null');
const TRUE_JSON = Buffer.from('true');
const FALSE_JSON = Buffer.from('false');
const NEWLINE_BYTE = Buffer.from('\n');

const isDigit = (b: number): boolean => b >= 0x30 && b <= 0x39;

/** COPY's escape letters JSON writes the same way after its backslash (\\ \n \r \t \b \f); 0 for the others. */
const SAME_ESCAPE = new Uint8Array(256);
for (const c of '\\nrtbf') SAME_ESCAPE[c.charCodeAt(0)] = c.charCodeAt(0);
/** The bytes that end a cell: a tab or a newline. */
const CELL_END = new Uint8Array(256).map((_, b) => (b === TAB || b === NEWLINE ? 1 : 0));

/** Four-digit year, a dash, and (for timestamps) a space after the date: the forms the rules copy. */
function isoDateAt(src: Buffer, s: number): boolean {
  return isDigit(src[s]!) && isDigit(src[s + 1]!) && isDigit(src[s + 2]!) && isDigit(src[s + 3]!) && src[s + 4] === DASH;
}

/** The rest of a date's ten bytes after isoDateAt's five: two digits, a dash, two digits. */
function isoDateRest(src: Buffer, s: number): boolean {
  return isDigit(src[s + 5]!) && isDigit(src[s + 6]!) && src[s + 7] === DASH && isDigit(src[s + 8]!) && isDigit(src[s + 9]!);
}

/** The bytes PostgreSQL writes in a timestamp of the forms the rules copy: digits, - : . + and the space. */
const TIME_BYTE = new Uint8Array(256).map((_, b) => (isDigit(b) || b === DASH || b === 0x3a || b === POINT || b === PLUS || b === SPACE ? 1 : 0));

const MAX_SAFE = Buffer.from(String(Number.MAX_SAFE_INTEGER));

/**
 * Whether an integer's digits src[from, e) (a minus before them when from > s) are written as
 * PostgreSQL writes an integer: at least one digit, no leading zero, no -0. Anything else (a
 * server that only speaks its protocol) goes the value path, which decides.
 */
function canonicalDigits(src: Buffer, s: number, from: number, e: number): boolean {
  return e > from && !(src[from] === ZERO && (e - from > 1 || from > s));
}

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

/** The lines as they are written. */
class Out extends GrowingBuffer {  /** A value the way the value path writes it: decoded from its unescaped text, then JSON.stringify. */
  value(src: Buffer, s: number, e: number, decode: TextDecoder, rest: number): void {
    const text = src.toString('utf8', s, e);
    const json = JSON.stringify(decode(text.includes('\\') ? unescapeCopy(text) : text));
    this.room(json.length * 3 + rest);
    this.at += this.buf.write(json, this.at);
  }
}

/**
 * The NDJSON lines of `input`, complete COPY text lines (each ending in a newline; one is added to
 * a last line without), for columns `columns`; and how many rows they hold.
 *
 * One pass over the bytes: a cell ends at the first tab or newline (COPY escapes both inside a
 * value), found by the same loop that copies it, with no call per cell (a native indexOf per
 * cell cost more than the copying, measured).
 */
export function copyNdjson(input: Buffer, columns: CopyColumns): { lines: Buffer; rows: number } {
  const { rules, decoders, shortestFloats: shortest } = columns;
  const width = rules.length;
  if (!isUtf8(input)) return valuePath(input, decoders);
  const src = input.length === 0 || input[input.length - 1] === NEWLINE ? input : Buffer.concat([input, NEWLINE_BYTE]);
  const n = src.length;
  const out = new Out(n + (n >> 1) + 1024);
  let rows = 0;
  let p = 0;
  while (p < n) {
    const eol = src.indexOf(NEWLINE, p);
    out.room(2 * (eol - p) + 32 * width + 8);
    let buf = out.buf;
    let o = out.at;
    buf[o++] = 0x5b; // [
    for (let c = 0; c < width; c += 1) {
      // A line of fewer cells than columns is not COPY's: the value path decides (before a cell
      // is read from the next line, past the room made for this one).
      if (p > eol) return valuePath(input, decoders);
      if (c > 0) buf[o++] = COMMA;
      const s = p;
      if (src[s] === BACKSLASH && src[s + 1] === NULL_MARK && CELL_END[src[s + 2]!] === 1) {
        NULL_JSON.copy(buf, o);
        o += 4;
        p = s + 3;
        continue;
      }
      const rule = rules[c]!;
      if (rule === TEXT) {
        const start = o;
        buf[o++] = QUOTE;
        let q = s;
        let b = src[q]!;
        for (;;) {
          // A byte the cell's JSON holds as it is: not a control character, a quote or a backslash
          // (compared, not looked up in a table: measured faster).
          if (b > QUOTE ? b !== BACKSLASH : b >= SPACE && b !== QUOTE) { buf[o++] = b; b = src[++q]!; continue; }
          if (CELL_END[b] === 1) { buf[o++] = QUOTE; break; }
          if (b === QUOTE) { buf[o++] = BACKSLASH; buf[o++] = QUOTE; b = src[++q]!; continue; }
          const same = b === BACKSLASH ? SAME_ESCAPE[src[q + 1]!]! : 0;
          if (same !== 0) { buf[o++] = BACKSLASH; buf[o++] = same; q += 2; b = src[q]!; continue; }
          // A control character or \v: the whole cell the value path's way.
          while (CELL_END[src[q]!] === 0) q += 1;
          out.at = start;
          out.value(src, s, q, decoders[c]!, 2 * (eol - q) + 32 * width + 8);
          buf = out.buf;
          o = out.at;
          break;
        }
        p = q + 1;
        continue;
      }
      if (rule === BARE) {
        // Copied as the digits are checked: an integer as PostgreSQL writes one (an optional
        // minus, digits, no leading zero); anything else (a server that only speaks its protocol)
        // goes the value path, which decides.
        const start = o;
        const from = src[s] === DASH ? s + 1 : s;
        if (from > s) buf[o++] = DASH;
        let q = from;
        let b = src[q]!;
        while (b >= ZERO && b <= NINE) { buf[o++] = b; b = src[++q]!; }
        if (CELL_END[b] === 1 && q - from <= 15 && canonicalDigits(src, s, from, q)) { p = q + 1; continue; }
        while (CELL_END[src[q]!] === 0) q += 1;
        p = q + 1;
        out.at = start;
        out.value(src, s, q, decoders[c]!, 2 * (eol - q) + 32 * width + 8);
        buf = out.buf;
        o = out.at;
        continue;
      }
      if (rule === BIGINT || rule === FLOAT) {
        // One scan over the digits (and a float's point) that also finds the cell's end when they
        // fill it; a cell of anything else goes the general way below.
        const from = src[s] === DASH ? s + 1 : s;
        let q = from;
        let b = src[q]!;
        let points = 0;
        let pointAt = -1;
        let significant = 0;
        for (;;) {
          if (b >= ZERO && b <= NINE) { if (significant > 0 || b !== ZERO) significant += 1; } else if (b === POINT && rule === FLOAT) { points += 1; pointAt = q; } else break;
          b = src[++q]!;
        }
        if (CELL_END[b] === 1 && q > from) {
          const e = q;
          if (rule === BIGINT && canonicalDigits(src, s, from, e)) {
            p = e + 1;
            const quoted = !safeInteger(src, s, e);
            if (quoted) buf[o++] = QUOTE;
            for (let i = s; i < e; i += 1) buf[o++] = src[i]!;
            if (quoted) buf[o++] = QUOTE;
            continue;
          }
          if (rule === FLOAT && plainFloatDigits(src, s, from, e, points, pointAt, significant, shortest)) {
            p = e + 1;
            for (let i = s; i < e; i += 1) buf[o++] = src[i]!;
            continue;
          }
        }
      }
      if (rule === TIMESTAMP || rule === TIMESTAMPTZ) {
        // Copied as the end is looked for, then checked: the common forms (four-digit year, not
        // BC; for timestamptz the +00 of the transaction's UTC) get their T, and the Z for +00;
        // any other is written again the general way below.
        const start = o;
        buf[o++] = QUOTE;
        let e = s;
        let b = src[e]!;
        let odd = 0;
        while (CELL_END[b] === 0) { odd |= TIME_BYTE[b]! ^ 1; buf[o++] = b; b = src[++e]!; }
        // Only PostgreSQL's bytes (digits, - : . + and the space): anything else (a quote, a
        // backslash, a letter) is for the value path, whatever its shape.
        const plain = odd === 0 && e - s >= 19 && isoDateAt(src, s) && isoDateRest(src, s) && src[s + 10] === SPACE;
        if (plain && rule === TIMESTAMP && isDigit(src[e - 1]!)) {
          buf[start + 11] = 0x54; // T
          buf[o++] = QUOTE;
          p = e + 1;
          continue;
        }
        if (plain && rule === TIMESTAMPTZ && e - s >= 22
          && src[e - 3] === PLUS && src[e - 2] === ZERO && src[e - 1] === ZERO && isDigit(src[e - 4]!)) {
          buf[start + 11] = 0x54; // T
          o -= 3;
          buf[o++] = 0x5a; // Z
          buf[o++] = QUOTE;
          p = e + 1;
          continue;
        }
        o = start;
      }
      let e = s;
      while (CELL_END[src[e]!] === 0) e += 1;
      p = e + 1;
      if (rule === BOOL) {
        const word = src[s] === 0x74 ? TRUE_JSON : FALSE_JSON;
        word.copy(buf, o);
        o += word.length;
        continue;
      }
      if (rule === DATE && e - s === 10 && isoDateAt(src, s) && isoDateRest(src, s)) {
        buf[o++] = QUOTE;
        for (let q = s; q < e; q += 1) buf[o++] = src[q]!;
        buf[o++] = QUOTE;
        continue;
      }
      if (rule === FLOAT) {
        const value = Number(src.toString('latin1', s, e));
        if (Number.isFinite(value)) { o += buf.write(String(value), o, 'latin1'); continue; }
      }
      out.at = o;
      out.value(src, s, e, decoders[c]!, 2 * (eol - e) + 32 * width + 8);
      buf = out.buf;
      o = out.at;
    }
    // A line of fewer or more cells than columns is not COPY's: the value path decides.
    if (p !== eol + 1) return valuePath(input, decoders);
    buf[o++] = 0x5d; // ]
    buf[o++] = NEWLINE;
    out.at = o;
    rows += 1;
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
