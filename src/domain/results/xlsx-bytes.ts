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

const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LETTER_T = 0x74; // true
const LETTER_F = 0x66; // false
const AMP = 0x26;
const LT = 0x3c;
const GT = 0x3e;

/** A growing byte buffer. */
class Bytes {
  buf: Buffer;
  o = 0;

  constructor(size: number) { this.buf = Buffer.allocUnsafe(size); }

  room(more: number): void {
    if (this.o + more <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.o + more));
    this.buf.copy(bigger, 0, 0, this.o);
    this.buf = bigger;
  }

  /** ASCII text (markup, cell references, row numbers), byte by byte: shorter than a Buffer.write call costs. */
  ascii(text: string): void {
    this.room(text.length);
    const { buf } = this;
    let { o } = this;
    for (let k = 0; k < text.length; k++) buf[o++] = text.charCodeAt(k);
    this.o = o;
  }

  /** Any text, as UTF-8. */
  text(text: string): void {
    this.room(Buffer.byteLength(text));
    this.o += this.buf.write(text, this.o);
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
  let r = firstRow - 1;
  let i = 0;
  while (i < n) {
    let c = input[i];
    if (c === NEWLINE) { i++; continue; }
    if (c !== OPEN) throw malformed();
    i++;
    r += 1;
    const row = String(r);
    out.ascii('<row r="');
    out.ascii(row);
    out.ascii('">');
    let col = 0;
    if (input[i] === CLOSE) {
      i++;
    } else {
      for (;;) {
        c = input[i];
        const name = String(names[col]);
        const kind = kinds[col];
        if (c === QUOTE) {
          const j = stringEnd(input, i);
          const { decode } = scanned;
          const first = input[i + 1]!;
          const mayBeNumber = first === MINUS || (first >= DIGIT_0 && first <= DIGIT_9);
          if (decode || kind !== 'other' || mayBeNumber) {
            out.text(cellXml(`${name}${row}`, JSON.parse(input.toString('utf8', i, j + 1)) as string, kind!));
          } else {
            out.ascii('<c r="');
            out.ascii(name);
            out.ascii(row);
            out.ascii('" t="inlineStr"><is><t xml:space="preserve">');
            out.room((j - i) * 6);
            const { buf } = out;
            let { o } = out;
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
            out.o = o;
            out.ascii('</t></is></c>');
          }
          i = j + 1;
        } else if (c === LETTER_N) {
          i += 4;
        } else if (c === LETTER_T || c === LETTER_F) {
          // A boolean or a number is written whatever its column's kind (as cellXml does).
          out.ascii('<c r="');
          out.ascii(name);
          out.ascii(row);
          out.ascii(c === LETTER_T ? '" t="b"><v>1</v></c>' : '" t="b"><v>0</v></c>');
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
          out.ascii('<c r="');
          out.ascii(name);
          out.ascii(row);
          out.ascii('"><v>');
          out.room(j - i);
          const { buf } = out;
          let { o } = out;
          for (let k = i; k < j; k++) buf[o++] = input[k]!;
          out.o = o;
          out.ascii('</v></c>');
          i = j;
        }
        const sep = input[i];
        if (sep === COMMA) { i++; col++; continue; }
        if (sep !== CLOSE) throw malformed();
        i++;
        break;
      }
    }
    out.ascii('</row>');
  }
  return { xml: out.buf.subarray(0, out.o), rows: r - firstRow + 1 };
}
