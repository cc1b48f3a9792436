/**
 * csv and json downloads made from the stored file's own bytes, without a JavaScript value per
 * cell. A stored result's rows are NDJSON lines, each `JSON.stringify(row)` of an array of
 * ResultValue (null, number, boolean, string) and a newline (artifacts/ports.ts). So:
 *
 * - a json download's rows are those very lines, joined with commas;
 * - a csv row is the line with its brackets dropped: numbers and booleans are the same text in
 *   csv as in JSON, null is an empty field, and a string is its bytes, quoted when it holds a
 *   comma or a quote (JSON's \" becomes csv's ""). A string with another escape (a line break, a
 *   tab, a control character, a lone surrogate) or one that formula-safe csv may have to change is
 *   decoded and written the way the value-by-value writer does (streams.ts), so both give the
 *   same bytes.
 *
 * Measured on a 1,000,000-row result (scripts/bench/result-files.ts): JSON.parse of the stored
 * rows and the garbage of a string per value were most of a csv download's CPU and of its peak.
 */
import { csvCell, formulaSafeText } from './cells.js';

export const OPEN = 0x5b; // [
export const CLOSE = 0x5d; // ]
export const QUOTE = 0x22; // "
export const BACKSLASH = 0x5c;
const SLASH = 0x2f;
export const COMMA = 0x2c;
export const NEWLINE = 0x0a;
const CR = 0x0d;
export const LETTER_N = 0x6e; // null

/** First bytes of a string that formula-safe csv may prefix (=, +, -, @; a tab or CR is escaped in JSON, so a backslash). */
const MAY_START_FORMULA = new Uint8Array(256);
for (const c of '=+-@') MAY_START_FORMULA[c.charCodeAt(0)] = 1;

export const malformed = () => new Error('a stored result row is not a JSON array of values');

/** What the last stringEnd saw of its string (one object for every call: no allocation per cell). */
export const scanned = {
  /** An escape other than \" \\ and \/: the string is decoded by JSON.parse. */
  decode: false,
  /** A comma or a quote: csv quotes the field. */
  quoted: false,
};

/** The index of the closing quote of the JSON string whose opening quote is at `i`; sets `scanned`. */
export function stringEnd(input: Buffer, i: number): number {
  let j = i + 1;
  let decode = false;
  let quoted = false;
  for (;;) {
    const b = input[j];
    if (b === QUOTE) break;
    if (b === BACKSLASH) {
      const e = input[j + 1];
      if (e === QUOTE) quoted = true;
      else if (e !== BACKSLASH && e !== SLASH) decode = true;
      j += 2;
      continue;
    }
    if (b === COMMA) quoted = true;
    else if (b === NEWLINE || b === undefined) throw malformed();
    j++;
  }
  scanned.decode = decode;
  scanned.quoted = quoted;
  return j;
}

/**
 * csv rows (CRLF after each) of a chunk of whole NDJSON lines. `safe[i]`: column i's text is made
 * formula-safe (formulaSafeText). Empty lines are skipped, as the value reader skips them.
 */
export function csvOfNdjson(input: Buffer, safe?: readonly boolean[]): Buffer {
  const n = input.length;
  let out: Buffer = Buffer.allocUnsafe(n + 64);
  let o = 0;
  let i = 0;
  while (i < n) {
    let c = input[i];
    if (c === NEWLINE || c === CR) { i++; continue; }
    if (c !== OPEN) throw malformed();
    i++;
    let col = 0;
    if (input[i] === CLOSE) {
      i++;
    } else {
      for (;;) {
        c = input[i];
        if (c === QUOTE) {
          const j = stringEnd(input, i);
          const { decode, quoted } = scanned;
          if (decode || (safe !== undefined && safe[col] === true && MAY_START_FORMULA[input[i + 1]!] === 1)) {
            const text = JSON.parse(input.toString('utf8', i, j + 1)) as string;
            const cell = Buffer.from(csvCell(safe?.[col] === true ? formulaSafeText(text) : text));
            if (o + cell.length + 2 > out.length) out = grown(out, o, cell.length + 2);
            o += cell.copy(out, o);
          } else {
            if (o + (j - i) + 2 > out.length) out = grown(out, o, j - i + 2);
            if (quoted) out[o++] = QUOTE;
            // Byte by byte: most cells are short, and a Buffer.copy call costs more than they.
            // \" becomes "" (csv's quote in a quoted field), \\ and \/ their character.
            for (let k = i + 1; k < j; k++) {
              let b = input[k]!;
              if (b === BACKSLASH) {
                b = input[++k]!;
                if (b === QUOTE) out[o++] = QUOTE;
              }
              out[o++] = b;
            }
            if (quoted) out[o++] = QUOTE;
          }
          i = j + 1;
        } else if (c === LETTER_N) {
          i += 4;
        } else {
          // A number, true or false: the same text in csv.
          if (o + 32 > out.length) out = grown(out, o, 32);
          for (;;) {
            const b = input[i];
            if (b === COMMA || b === CLOSE) break;
            if (b === NEWLINE || b === undefined) throw malformed();
            out[o++] = b;
            i++;
            if (o === out.length) out = grown(out, o, 32);
          }
        }
        const sep = input[i];
        if (sep === COMMA) {
          if (o === out.length) out = grown(out, o, 1);
          out[o++] = COMMA;
          i++;
          col++;
          continue;
        }
        if (sep !== CLOSE) throw malformed();
        i++;
        break;
      }
    }
    if (o + 2 > out.length) out = grown(out, o, 2);
    out[o++] = CR;
    out[o++] = NEWLINE;
  }
  return out.subarray(0, o);
}

/** A larger buffer with the first `used` bytes of `out` and room for `more` (only a decoded cell can outgrow its JSON: a formula's quote). */
function grown(out: Buffer, used: number, more: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, used + more));
  out.copy(bigger, 0, 0, used);
  return bigger;
}

/**
 * The json download's rows of a chunk of whole NDJSON lines: the lines themselves, each preceded
 * by a comma unless it is the download's first row (`first`). Empty lines are skipped.
 */
export function jsonRowsOfNdjson(input: Buffer, first: boolean): { bytes: Buffer; first: boolean } {
  const out = Buffer.allocUnsafe(input.length + 1);
  let o = 0;
  let start = 0;
  while (start < input.length) {
    let end = input.indexOf(NEWLINE, start);
    if (end === -1) end = input.length;
    if (end > start) {
      if (!first) out[o++] = COMMA;
      first = false;
      o += input.copy(out, o, start, end);
    }
    start = end + 1;
  }
  return { bytes: out.subarray(0, o), first };
}
