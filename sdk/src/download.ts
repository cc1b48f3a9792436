/** Result files as web streams, never buffered: the body of the answer with its file name. */
import { HeraldError } from './errors.js';

export interface Download {
  /** The file's bytes as they arrive; read it to the end or cancel it. */
  stream: ReadableStream<Uint8Array>;
  /** From Content-Disposition (filename* preferred), else the last path segment. */
  filename: string;
  contentType: string;
  /** Content-Length, when the server sent one. */
  size?: number;
}

export interface DownloadOptions {
  format?: 'csv' | 'xlsx' | 'json';
  /** Quote cells a spreadsheet would run as formulas (csv). */
  formulaSafe?: boolean;
  signal?: AbortSignal;
}

/** The file name of a Content-Disposition header (RFC 6266; filename* as RFC 8187 UTF-8). */
export function filenameOf(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try { return decodeURIComponent(extended[2]!.trim()); } catch { /* fall back to filename */ }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  const token = /filename\s*=\s*([^;\s]+)/i.exec(header);
  return token?.[1];
}

export async function download(
  fetcher: (url: string, init?: RequestInit) => Promise<Response>, path: string, options: DownloadOptions,
): Promise<Download> {
  const query = new URLSearchParams();
  if (options.format) query.set('format', options.format);
  if (options.formulaSafe !== undefined) query.set('formula_safe', String(options.formulaSafe));
  const url = query.size > 0 ? `${path}?${query}` : path;
  const response = await fetcher(url, options.signal ? { signal: options.signal } : {});
  if (!response.ok) throw await HeraldError.from(response);
  if (!response.body) throw new Error(`GET ${path} answered without a body`);
  const length = response.headers.get('content-length');
  return {
    stream: response.body,
    filename: filenameOf(response.headers.get('content-disposition')) ?? path.split('/').pop()!,
    contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    ...(length !== null && /^\d+$/.test(length) ? { size: Number(length) } : {}),
  };
}
