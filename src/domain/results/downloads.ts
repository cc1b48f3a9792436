/**
 * Downloads of run results (GET /runs/{runId}/result): the stored file in csv, xlsx or json,
 * streamed, with a file name made of the report's title and the run's time (its slot for
 * scheduled runs). A csv is the exact values unless formula-safe is asked for.
 */
import { DomainError, notFound } from '../../core/errors.js';
import type { ArtifactStore } from '../artifacts/ports.js';
import type { ResultFormat } from '../channels/model.js';
import type { RunRecord } from '../runs/model.js';
import { CONTENT_TYPES, resultFileName } from './formats.js';
import { resultStream, type StreamOptions } from './streams.js';

export interface ResultDownload {
  stream: AsyncGenerator<Buffer>;
  contentType: (typeof CONTENT_TYPES)[ResultFormat];
  filename: string;
}

export function createResultDownloads(deps: {
  runs: { find(id: string): Promise<RunRecord | undefined> };
  reportTitle(reportId: string): Promise<string | undefined>;
  artifacts: Pick<ArtifactStore, 'readResult'>;
}) {
  const noResult = () => new DomainError('run.no_result', 'The run has no result file: it ended before writing one, or retention removed it');
  return {
    /** `options.formulaSafe`: a formula-safe csv (streams.ts); other formats ignore it. */
    async open(runId: string, format: ResultFormat, options: StreamOptions = {}): Promise<ResultDownload> {
      const run = await deps.runs.find(runId);
      if (!run) throw notFound('run');
      if (!run.resultKey) throw noResult();
      const stored = await deps.artifacts.readResult(run.resultKey);
      if (!stored) throw noResult();
      const title = (await deps.reportTitle(run.reportId)) ?? 'result';
      return { stream: resultStream(stored, format, options), contentType: CONTENT_TYPES[format], filename: resultFileName(title, run.slot ?? run.createdAt, format) };
    },
  };
}

export type ResultDownloads = ReturnType<typeof createResultDownloads>;
