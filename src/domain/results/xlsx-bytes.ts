/**
 * A worksheet's rows made from the stored file's NDJSON bytes (see ndjson-bytes.ts), without a
 * JavaScript value per cell: numbers and booleans are copied into their cells, text into inline
 * strings with XML's escapes. What needs the value's meaning is decoded and written by the same
 * code as the value-by-value writer (xlsx-cells.ts): a date or timestamp column's text (a date
 * cell when it parses), text that may be an exact number, and text with a JSON escape other than
 * \" \\ and \/ (a line break, a control character, a lone surrogate). So both give the same XML.
 */
import { cellXml, type CellKind } from './xlsx-cells.js';
import { BACKSLASH, CLOSE, COMMA, LETTER_N, malformed, NEWLINE, OPEN, QUOTE, scanned, stringEnd } from './ndjson-bytes.js';
import { GrowingBuffer } from '../../core/growing-buffer.js';

const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LETTER_T = 0x74; // true
const LETTER_F = 0x66; // false
const AMP = 0x26;
const LT = 0x3c;
const GT = 0x3e;

const isDigit = (b: number | undefined) => b !== undefined && b >= DIGIT_0 && b <= DIGIT_9;
const LETTER_E = 0x65;
const UPPER_E = 0x45;
const PLUS = 0x2b;
const DOT = 0x2e;

/**
 * exactNumber (xlsx-cells.ts) of a text's bytes, input[start, end), without an escape: the
 * number when the text is a decimal a double carries exactly as written (at most 15 significant
 * digits), else undefined (the cell is then text).
 */
export function exactNumberAt(input: Buffer, start: number, end: number): number | undefined {
  let k = start;
  if (input[k] === MINUS) k++;
  if (!isDigit(input[k])) return undefined;
  /** Significant digits: from the first non-zero digit to the last non-zero one (the dot skipped). */
  let first = -1;
  let last = -1;
  let digits = 0;
  let dot = false;
  for (; k < end; k++) {
    const b = input[k]!;
    if (b >= DIGIT_0 && b <= DIGIT_9) {
      if (b !== DIGIT_0) { if (first === -1) first = digits; last = digits; }
      digits++;
    } else if (b === DOT && !dot && isDigit(input[k + 1]) && k + 1 < end) {
      dot = true;
    } else {
      break;
    }
  }
  if (k < end && (input[k] === LETTER_E || input[k] === UPPER_E)) {
    k++;
    if (input[k] === PLUS || input[k] === MINUS) k++;
    if (k >= end || !isDigit(input[k])) return undefined;
    while (k < end && isDigit(input[k])) k++;
  }
  if (k !== end) return undefined;
  if (first !== -1 && last - first + 1 > 15) return undefined;
  const n = Number(input.toString('latin1', start, end));
  return Number.isFinite(n) ? n : undefined;
}

const DAY_MS = 86_400_000;
/** Excel's day 0, as xlsx-cells.ts has it. */
const EPOCH_MS = Date.UTC(1899, 11, 30);
const COLON = 0x3a;
const LETTER_T_UPPER = 0x54;
const SPACE = 0x20;
const LETTER_Z = 0x5a;

/** The number of `count` ASCII digits at input[k], or -1. */
function digitsAt(input: Buffer, k: number, count: number): number {
  let n = 0;
  for (let e = k + count; k < e; k++) {
    const b = input[k]!;
    if (b < DIGIT_0 || b > DIGIT_9) return -1;
    n = n * 10 + (b - DIGIT_0);
  }
  return n;
}

/**
 * serialOf (xlsx-cells.ts) of the common forms only, from a text's bytes input[start, end)
 * without an escape: YYYY-MM-DD, and YYYY-MM-DD[T ]HH:MM:SS[.fraction][Z]. undefined for any
 * other text (an offset, an infinity, a year out of range, not a date): the caller then writes
 * the cell through the value code, which decides.
 */
export function serialAt(input: Buffer, start: number, end: number): number | undefined {
  const length = end - start;
  if (length < 10 || input[start + 4] !== MINUS || input[start + 7] !== MINUS) return undefined;
  const year = digitsAt(input, start, 4);
  const month = digitsAt(input, start + 5, 2);
  const day = digitsAt(input, start + 8, 2);
  if (year < 1900 || year > 9999 || month < 0 || day < 0) return undefined;
  if (length === 10) return (Date.UTC(year, month - 1, day, 0, 0, 0, 0) - EPOCH_MS) / DAY_MS;
  const t = input[start + 10];
  if (length < 19 || (t !== LETTER_T_UPPER && t !== SPACE) || input[start + 13] !== COLON || input[start + 16] !== COLON) return undefined;
  const hours = digitsAt(input, start + 11, 2);
  const minutes = digitsAt(input, start + 14, 2);
  const seconds = digitsAt(input, start + 17, 2);
  if (hours < 0 || minutes < 0 || seconds < 0) return undefined;
  let k = start + 19;
  let ms = 0;
  if (k < end && input[k] === DOT) {
    const from = k;
    k++;
    if (!isDigit(input[k]) || k >= end) return undefined;
    while (k < end && isDigit(input[k])) k++;
    ms = Math.round(Number(input.toString('latin1', from, k)) * 1000);
  }
  if (k < end && input[k] === LETTER_Z) k++;
  if (k !== end) return undefined;
  return (Date.UTC(year, month - 1, day, hours, minutes, seconds, ms) - EPOCH_MS) / DAY_MS;
}

const ascii = (text: string): Uint8Array => Buffer.from(text, 'latin1');
const ROW_OPEN = ascii('<row r="');
const ROW_OPENED = ascii('">');
const ROW_CLOSE = ascii('</row>');
const DATE_CELL = ascii('" s="2"><v>');
const TIME_CELL = ascii('" s="3"><v>');
const NUMBER_CELL = ascii('"><v>');
const VALUE_CLOSE = ascii('</v></c>');
const TEXT_CELL = ascii('" t="inlineStr"><is><t xml:space="preserve">');
const TEXT_CLOSE = ascii('</t></is></c>');
const TRUE_CELL = ascii('" t="b"><v>1</v></c>');
const FALSE_CELL = ascii('" t="b"><v>0</v></c>');

/** The sheet's XML as it is written. */
class Bytes extends GrowingBuffer {
  /** ASCII text (markup, cell references, row numbers), byte by byte: shorter than a Buffer.write call costs. */
  ascii(text: string): void {
    this.room(text.length);
    const { buf } = this;
    let o = this.at;
    for (let k = 0; k < text.length; k++) buf[o++] = text.charCodeAt(k);
    this.at = o;
  }

  /** Bytes, byte by byte. */
  put(bytes: Uint8Array): void {
    this.room(bytes.length);
    const { buf } = this;
    let o = this.at;
    for (let k = 0; k < bytes.length; k++) buf[o++] = bytes[k]!;
    this.at = o;
  }

  /** A cell's start: `<c r="` and its column's letters (`open`), the row's number, the rest of its markup. */
  cell(open: Uint8Array, row: Uint8Array, rest: Uint8Array): void {
    this.room(open.length + row.length + rest.length);
    const { buf } = this;
    let o = this.at;
    for (let k = 0; k < open.length; k++) buf[o++] = open[k]!;
    for (let k = 0; k < row.length; k++) buf[o++] = row[k]!;
    for (let k = 0; k < rest.length; k++) buf[o++] = rest[k]!;
    this.at = o;
  }

  /** Any text, as UTF-8. */
  text(text: string): void {
    this.room(Buffer.byteLength(text));
    this.at += this.buf.write(text, this.at);
  }
}

/**
 * The `<row>` elements of a chunk of whole NDJSON lines, numbered from `firstRow`; `names` are
 * the columns' letters (A, B, …) and `kinds` how their values are written. Empty lines are
 * skipped, as the value reader skips them. Answers the XML and how many rows it holds.
 */
export function xlsxRowsOfNdjson(input: Buffer, names: readonly string[], kinds: readonly CellKind[], firstRow: number): { xml: Buffer; rows: number } {
  const n = input.length;
  const out = new Bytes(n * 4 + 1024);
  /** Each column's `<c r="` and letters. */
  const opens = names.map((name) => ascii(`<c r="${name}`));
  let r = firstRow - 1;
  let i = 0;
  while (i < n) {
    let c = input[i];
    if (c === NEWLINE) { i++; continue; }
    if (c !== OPEN) throw malformed();
    i++;
    r += 1;
    const row = String(r);
    const digits = ascii(row);
    out.cell(ROW_OPEN, digits, ROW_OPENED);
    let col = 0;
    if (input[i] === CLOSE) {
      i++;
    } else {
      for (;;) {
        c = input[i];
        const open = opens[col] ?? ascii(`<c r="${String(names[col])}`);
        const kind = kinds[col];
        if (c === QUOTE) {
          const j = stringEnd(input, i);
          const { decode } = scanned;
          const serial = !decode && (kind === 'date' || kind === 'datetime') ? serialAt(input, i + 1, j) : undefined;
          const number = !decode && kind === 'other' ? exactNumberAt(input, i + 1, j) : undefined;
          if (serial !== undefined) {
            out.cell(open, digits, kind === 'date' ? DATE_CELL : TIME_CELL);
            out.ascii(String(serial));
            out.put(VALUE_CLOSE);
          } else if (number !== undefined) {
            out.cell(open, digits, NUMBER_CELL);
            out.ascii(String(number));
            out.put(VALUE_CLOSE);
          } else if (decode || kind !== 'other') {
            out.text(cellXml(`${String(names[col])}${row}`, JSON.parse(input.toString('utf8', i, j + 1)) as string, kind!));
          } else {
            out.cell(open, digits, TEXT_CELL);
            out.room((j - i) * 6);
            const { buf } = out;
            let o = out.at;
            for (let k = i + 1; k < j; k++) {
              let b = input[k]!;
              if (b === BACKSLASH) {
                b = input[++k]!;
                if (b === QUOTE) { buf[o++] = AMP; buf[o++] = 0x71; buf[o++] = 0x75; buf[o++] = 0x6f; buf[o++] = 0x74; buf[o++] = 0x3b; continue; } // &quot;
              } else if (b === AMP) {
                buf[o++] = AMP; buf[o++] = 0x61; buf[o++] = 0x6d; buf[o++] = 0x70; buf[o++] = 0x3b; continue; // &amp;
              } else if (b === LT) {
                buf[o++] = AMP; buf[o++] = 0x6c; buf[o++] = 0x74; buf[o++] = 0x3b; continue; // &lt;
              } else if (b === GT) {
                buf[o++] = AMP; buf[o++] = 0x67; buf[o++] = 0x74; buf[o++] = 0x3b; continue; // &gt;
              } else if (b === 0xef && input[k + 1] === 0xbf && (input[k + 2] === 0xbe || input[k + 2] === 0xbf)) {
                // U+FFFE and U+FFFF, which XML cannot carry: U+FFFD, as xmlText writes them.
                buf[o++] = 0xef; buf[o++] = 0xbf; buf[o++] = 0xbd; k += 2; continue;
              }
              buf[o++] = b;
            }
            out.at = o;
            out.put(TEXT_CLOSE);
          }
          i = j + 1;
        } else if (c === LETTER_N) {
          i += 4;
        } else if (c === LETTER_T || c === LETTER_F) {
          // A boolean or a number is written whatever its column's kind (as cellXml does).
          out.cell(open, digits, c === LETTER_T ? TRUE_CELL : FALSE_CELL);
          i += c === LETTER_T ? 4 : 5;
        } else {
          // A number: its JSON text is what the value-by-value writer prints.
          let j = i;
          for (;;) {
            const b = input[j];
            if (b === COMMA || b === CLOSE) break;
            if (b === NEWLINE || b === undefined) throw malformed();
            j++;
          }
          out.cell(open, digits, NUMBER_CELL);
          out.room(j - i);
          const { buf } = out;
          let o = out.at;
          for (let k = i; k < j; k++) buf[o++] = input[k]!;
          out.at = o;
          out.put(VALUE_CLOSE);
          i = j;
        }
        const sep = input[i];
        if (sep === COMMA) { i++; col++; continue; }
        if (sep !== CLOSE) throw malformed();
        i++;
        break;
      }
    }
    out.put(ROW_CLOSE);
  }
  return { xml: out.buf.subarray(0, out.at), rows: r - firstRow + 1 };
}
