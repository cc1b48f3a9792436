/**
 * Rows through COPY (…) TO STDOUT: where a statement allows it, the PostgreSQL connector reads its
 * rows as COPY's text format instead of a cursor's batches (execute.ts), in the same read-only
 * transaction, after the same Describe. The server streams without a round trip per batch, and
 * the client gets one line per row instead of a buffer per value: about 3x fewer allocations.
 *
 * COPY's text format (PostgreSQL docs, COPY, "Text Format"): one line per row ending in \n,
 * values separated by tabs, NULL as \N; a value's backslash, newline, carriage return, tab and
 * other control characters are written as \\, \n, \r, \t, \b, \f, \v. Each value is otherwise the
 * type's text output, the same text a cursor receives (values.ts decodes either).
 *
 * Which statements: those without parameters (COPY takes none), starting with SELECT, WITH,
 * VALUES or TABLE (COPY's query forms; SHOW, EXPLAIN and FETCH use the cursor) and holding no
 * semicolon anywhere. The statement has already parsed on its own as exactly one statement
 * (Describe), so its parentheses are balanced and its comments and quotes closed; it is put
 * between "copy (" and a line break before ")", so a trailing line comment cannot swallow the
 * parenthesis. COPY goes through the simple protocol (postgres.js); without a semicolon the text
 * is one statement there too.
 */
import type { Readable } from 'node:stream';
import type { CellValue } from '../../domain/plugins/connector.js';
import type { TextDecoder } from './values.js';

const COPY_FORM = /^\s*(\(\s*)*(select|with|values|table)\b/i;

/** Whether a statement's rows are read through COPY. */
export function copyEligible(sql: string, params: readonly unknown[]): boolean {
  return params.length === 0 && !sql.includes(';') && COPY_FORM.test(sql);
}

/** The COPY statement around a user's statement (see the file's comment for why this is safe). */
export const copyStatement = (sql: string): string => `copy (\n${sql}\n) to stdout`;

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
const ESCAPED = /\\(.)/gs;
/** A value's text of COPY's text format with its backslash escapes undone. */
export const unescapeCopy = (value: string): string => value.replace(ESCAPED, (_, c: string) => ESCAPES[c] ?? c);

/** The rows of complete lines of COPY's text format (no trailing newline), decoded per column. */
export function copyRows(text: string, decoders: readonly TextDecoder[]): CellValue[][] {
  const lines = text.split('\n');
  const rows = new Array<CellValue[]>(lines.length);
  const width = decoders.length;
  for (let l = 0; l < lines.length; l += 1) {
    const line = lines[l]!;
    const row = new Array<CellValue>(width);
    let start = 0;
    for (let c = 0; c < width; c += 1) {
      let end = line.indexOf('\t', start);
      if (end === -1 || c === width - 1) end = line.length;
      const raw = line.slice(start, end);
      start = end + 1;
      row[c] = raw === '\\N' ? null : decoders[c]!(raw.includes('\\') ? unescapeCopy(raw) : raw);
    }
    rows[l] = row;
  }
  return rows;
}

const NEWLINE = 0x0a;
const NEWLINE_BYTE = Buffer.from('\n');

/**
 * Reads a COPY stream chunk by chunk without the stream's async iterator (leaving its loop would
 * destroy the stream, and postgres.js would then stop reading the connection for good).
 */
export class CopyReader {
  private stream: Readable | undefined;
  private carry: Buffer = Buffer.alloc(0);
  private ended = false;
  private failure: Error | undefined;
  private waiter: (() => void) | undefined;

  /**
   * Listens to the stream: called synchronously when postgres.js makes it (see watch()), since
   * an error that arrives with the COPY's start (the first row fails, the time limit) destroys
   * the stream before any promise callback could listen, and an 'error' nobody listens to
   * would end the process.
   */
  attach(stream: Readable): void {
    this.stream = stream;
    const wake = () => { const w = this.waiter; this.waiter = undefined; w?.(); };
    // postgres.js 3.4 pauses the connection's socket when a push finds the stream full and
    // resumes it only from the stream's _read, which Node no longer calls once the stream has
    // ended: when the statement's end arrived in the same socket read as that push, the
    // connection would stay paused for good (its next statement never answered). So it is
    // resumed once more at the end.
    const resume = () => { (stream as unknown as { _read(size: number): void })._read(0); };
    stream.on('readable', wake);
    stream.on('end', () => { this.ended = true; resume(); wake(); });
    stream.on('error', (err: Error) => { this.failure ??= err; resume(); wake(); });
    stream.on('close', () => { this.ended = true; resume(); wake(); });
  }

  /**
   * Hooks a postgres.js COPY query so that its stream is attached the moment it exists
   * (postgres.js hands it to the query's own resolve, synchronously on CopyOutResponse).
   */
  watch(query: unknown): void {
    const q = query as { resolve(value: unknown): void; active: boolean };
    const resolve = q.resolve.bind(q);
    q.resolve = (value: unknown) => {
      const stream = value && typeof value === 'object' && 'read' in value && 'on' in value ? value as Readable : undefined;
      if (stream) this.attach(stream);
      resolve(value);
      // postgres.js marks a query inactive once resolved, here on CopyOutResponse, and would then
      // never send its cancel request (nor settle the cancel's promise): the COPY stays active
      // until ReadyForQuery resolves (or rejects) it again.
      if (stream) q.active = true;
    };
  }

  /** The next chunk, or null after the last; rejects with the statement's error. */
  private async chunk(): Promise<Buffer | null> {
    for (;;) {
      if (this.failure) throw this.failure;
      const chunk = (this.stream?.read() ?? null) as Buffer | null;
      if (chunk !== null) return chunk;
      if (this.ended || !this.stream) return null;
      await new Promise<void>((resolve) => { this.waiter = resolve; });
    }
  }

  /** Complete lines (text, without the last newline), or null after the last row. */
  async lines(): Promise<string | null> {
    const bytes = await this.lineBytes();
    return bytes === null ? null : bytes.toString('utf8', 0, bytes.length - 1);
  }

  /** Complete lines as bytes, each ending in a newline (the last given one), or null after the last row. */
  async lineBytes(): Promise<Buffer | null> {
    for (;;) {
      const chunk = await this.chunk();
      if (chunk === null) {
        if (this.carry.length === 0) return null;
        const rest = this.carry;
        this.carry = Buffer.alloc(0);
        return rest[rest.length - 1] === NEWLINE ? rest : Buffer.concat([rest, NEWLINE_BYTE]);
      }
      const end = chunk.lastIndexOf(NEWLINE);
      if (end === -1) { this.carry = Buffer.concat([this.carry, chunk]); continue; }
      const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, chunk.subarray(0, end + 1)]) : chunk.subarray(0, end + 1);
      this.carry = Buffer.from(chunk.subarray(end + 1));
      return bytes;
    }
  }

  /** Reads and drops the rest (after a cancel request) until the stream ends or fails; never rejects. */
  async drain(): Promise<void> {
    try {
      while ((await this.chunk()) !== null) { /* dropped */ }
    } catch { /* the cancel's own error */ }
  }

  get done(): boolean { return this.ended || this.failure !== undefined; }
}
