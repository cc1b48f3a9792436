/**
 * Result files as attachments and their names: the bytes come from the streaming writers of
 * streams.ts (csv, json, xlsx), collected in memory only up to MAX_ATTACHMENT_BYTES.
 */
import { DomainError } from '../../core/errors.js';
import { slugOf } from '../../core/slug.js';
import type { StoredResult } from '../artifacts/ports.js';
import type { ResultFormat } from '../channels/model.js';
import { resultStream, type StreamOptions } from './streams.js';

/** The largest attachment a delivery sends; larger results must go as a link. */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

export const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const satisfies Record<ResultFormat, string>;

const tooLarge = () => new DomainError('delivery.attachment_too_large',
  `The result is larger than the attachment limit of ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB; send a link instead`);

/**
 * The file of a result in `format` as one Buffer, for an attachment: the same bytes a download
 * streams (streams.ts), collected up to `maxBytes` (else delivery.attachment_too_large).
 */
export async function resultFile(result: StoredResult, format: ResultFormat, options: StreamOptions & { maxBytes?: number } = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? MAX_ATTACHMENT_BYTES;
  const parts: Buffer[] = [];
  let size = 0;
  const stream = resultStream(result, format, options);
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxBytes) { await stream.return(undefined); throw tooLarge(); }
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** A file name from the report title and the run's time: "daily-sales-2026-11-22-0800.xlsx". */
export function resultFileName(title: string, at: Date, format: ResultFormat): string {
  const slug = slugOf(title, 'result');
  const stamp = at.toISOString().slice(0, 16).replace('T', '-').replace(':', '');
  return `${slug}-${stamp}.${format}`;
}
