/**
 * A byte buffer written from the front that doubles when asked for more room than it has left:
 * the output of the byte writers (results/xlsx-bytes.ts, plugins/postgres/copy-ndjson.ts), which
 * extend it with their own writes. Keep the writing in methods or in locals copied from `buf`
 * and `at`: closures that share them made the xlsx writer three times slower (V8 keeps such
 * variables in a context object).
 */
export class GrowingBuffer {
  buf: Buffer;
  /** How many bytes are written. */
  at = 0;

  constructor(size: number) { this.buf = Buffer.allocUnsafe(size); }

  /** At least `more` bytes free after `at` (the written bytes kept). */
  room(more: number): void {
    if (this.at + more <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + more));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}
