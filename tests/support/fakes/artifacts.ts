/** The artifact store in memory: a result file appears under its key when its writer finishes. */
import type { ArtifactStore, ResultWriter, StoredResult } from '../../../src/domain/artifacts/ports.js';
import type { CellValue, ResultColumn } from '../../../src/domain/plugins/connector.js';

export interface StoredFile { columns: ResultColumn[]; rows: CellValue[][] }

export class FakeArtifacts implements ArtifactStore {
  readonly files = new Map<string, StoredFile>();
  /** Writers that were aborted (half-written files dropped), by key. */
  readonly aborted: string[] = [];
  /** Results of at most this many rows are answered inline (kept in the store's row), as inline-results.ts does. */
  inlineUpTo = -1;

  async createResult(key: string, columns: ResultColumn[]): Promise<ResultWriter> {
    const rows: CellValue[][] = [];
    let done = false;
    return {
      write: async (batch) => { rows.push(...structuredClone(batch)); },
      writeLines: async (lines) => {
        for (const line of lines.toString('utf8').split('\n')) if (line) rows.push(JSON.parse(line) as CellValue[]);
      },
      finish: async () => {
        done = true;
        const bytes = Buffer.from(JSON.stringify({ columns, rows }));
        if (rows.length <= this.inlineUpTo) return { bytes: bytes.length, inline: bytes };
        this.files.set(key, { columns, rows });
        return { bytes: bytes.length };
      },
      abort: async () => { if (!done) this.aborted.push(key); done = true; },
    };
  }

  async readResult(key: string): Promise<StoredResult | undefined> {
    const file = this.files.get(key);
    if (!file) return undefined;
    return { columns: file.columns, batches: (async function* () { yield file.rows; })() };
  }

  async remove(key: string): Promise<void> {
    this.files.delete(key);
  }
}
