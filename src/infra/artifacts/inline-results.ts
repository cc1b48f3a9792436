/**
 * Small results kept in the store (run_results) instead of a file of their own: most runs of
 * alerts and reports give a few rows, and a file per run cost a worker more than the run's
 * query (an open, a write, a close and a rename through libuv's thread pool: 12 % of a `select 1`
 * run's worker CPU in a profile; under SVC_STORAGE_S3 a temporary file and an upload). The
 * writer holds the NDJSON text while it is small; at finish, a file of at most INLINE_MAX bytes
 * (the same gzip bytes a file would hold) is answered inline, and the run's end writes it in the
 * statement that records the run (run-engine-repo). Past that, the text goes to the artifact
 * store underneath, as before. Reading a `db:` key reads the row; removing one does nothing, as
 * the row goes with its run and with retention's forget (storage-repo).
 */
import { gunzipSync } from 'node:zlib';
import type { ArtifactStore, ResultWriter } from '../../domain/artifacts/ports.js';
import { inlineRunOf } from '../../core/result-keys.js';
import { joined, ndjsonOf, SMALL_TEXT, storedResultOfBytes } from './local-store.js';
import { gzipResult } from './small-gzip.js';

/** The largest result file kept in the store's row (gzip bytes). */
export const INLINE_MAX = 16 * 1024;

/** The store's rows of small results. */
export interface InlineResultRows {
  /** The gzip bytes of the run's result kept in the store, or undefined. */
  read(runId: string): Promise<Buffer | undefined>;
}

export function withInlineResults(files: ArtifactStore, rows: InlineResultRows, inlineMax = INLINE_MAX): ArtifactStore {
  return {
    async createResult(key, columns): Promise<ResultWriter> {
      /** The text so far while it is small; undefined once it went to the file underneath. */
      let held: Array<string | Buffer> | undefined = [`${JSON.stringify({ columns })}\n`];
      let heldLength = held[0]!.length;
      let file: ResultWriter | undefined;
      /** The file underneath, with the text held so far. */
      const toFile = async (): Promise<ResultWriter> => {
        const text = joined(held!);
        held = undefined;
        file = await files.createResult(key, columns);
        // Its header line is the file's own; the rows held go after it.
        const body = typeof text === 'string' ? text.slice(text.indexOf('\n') + 1) : text.subarray(text.indexOf(0x0a) + 1);
        if (body.length > 0) await file.writeLines(typeof body === 'string' ? Buffer.from(body) : body);
        return file;
      };
      const hold = async (text: string | Buffer) => {
        if (!held) return;
        held.push(text);
        heldLength += text.length;
        if (heldLength > SMALL_TEXT) await toFile();
      };
      return {
        async write(batch) {
          if (file) return file.write(batch);
          const chunk = ndjsonOf(batch);
          if (chunk) await hold(chunk);
          return chunk;
        },
        async writeLines(lines) {
          if (file) return file.writeLines(lines);
          if (lines.length > 0) await hold(lines);
        },
        async finish() {
          if (file) return file.finish();
          const compressed = gzipResult(joined(held!));
          if (compressed.length > inlineMax) return (await toFile()).finish();
          held = undefined;
          return { bytes: compressed.length, inline: compressed };
        },
        async abort() {
          held = undefined;
          await file?.abort();
        },
      };
    },

    async readResult(key) {
      const runId = inlineRunOf(key);
      if (runId === undefined) return files.readResult(key);
      const bytes = await rows.read(runId);
      return bytes ? storedResultOfBytes(gunzipSync(bytes), key) : undefined;
    },

    async remove(key) {
      if (inlineRunOf(key) === undefined) await files.remove(key);
    },
  };
}
