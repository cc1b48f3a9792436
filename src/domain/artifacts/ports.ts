/**
 * The artifact store: where runs keep their result files. A result file holds the columns and
 * every row, written as the rows stream from the database and read back the same way, so neither
 * side holds a whole result in memory. The local backend writes under SVC_DATA_DIR; an
 * S3-compatible one can stand in for fleets (result-files issue).
 */
import type { CellValue, ResultColumn } from '../plugins/connector.js';

export interface ResultWriter {
  /**
   * Appends rows; resolves once they are handed to the file (backpressure is honoured). A store
   * that writes the rows as NDJSON may resolve with the lines it wrote (each row's JSON and a
   * newline), so that a run hashes them without encoding each row twice.
   */
  write(rows: CellValue[][]): Promise<string | void>;
  /**
   * Appends rows already written as NDJSON lines (each row's `JSON.stringify` and a newline, as
   * a connector's NdjsonBatch holds them), with the same backpressure.
   */
  writeLines(lines: Buffer): Promise<void>;
  /**
   * Completes the file (it appears under its key only now) and answers its size in bytes. A
   * store that keeps small results in the store's own row answers the file's bytes as `inline`
   * instead of keeping them: the run's end then writes them, under inlineResultKeyOf.
   */
  finish(): Promise<{ bytes: number; inline?: Buffer }>;
  /** Drops a half-written file. Safe to call after finish() or twice. */
  abort(): Promise<void>;
}

export interface StoredResult {
  columns: ResultColumn[];
  /** Batches of rows in column order. Breaking out of the loop closes the file. */
  batches: AsyncIterable<CellValue[][]>;
  /**
   * The same rows as the stored file's bytes, when the store can hand them: chunks of whole
   * NDJSON lines, each `JSON.stringify(row)` and a newline. csv and json downloads are made from
   * these without a value per cell (results/ndjson-bytes.ts). Read either this or `batches`.
   */
  lines?: AsyncIterable<Buffer>;
}

export interface ArtifactStore {
  /** A writer for the result file `key` (a later finish replaces a file a lost attempt left). */
  createResult(key: string, columns: ResultColumn[]): Promise<ResultWriter>;
  /** The stored result, or undefined when there is no file under `key`. */
  readResult(key: string): Promise<StoredResult | undefined>;
  /** Removes the file under `key`; nothing happens when there is none. */
  remove(key: string): Promise<void>;
}

/** The key of a run's result file. */
export const resultKeyOf = (reportId: string, runId: string): string => `${reportId}/${runId}`;
