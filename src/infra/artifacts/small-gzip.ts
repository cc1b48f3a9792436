/**
 * A result's gzip bytes, made without deflate when the text is small. Most runs of alerts give a
 * few rows: for such a text, gzipSync's own set-up (a deflate state of ~300 kB allocated and
 * freed per call, outside the heap) costs more than the run's other work on it, and saves a few
 * dozen bytes. Up to STORED_MAX bytes the text goes into one "stored" deflate block (RFC 1951
 * 3.2.4: no compression) inside a gzip member (RFC 1952), which every gunzip reads as any other:
 * the stored result files, the store's kept results and their downloads are unchanged.
 */
import { crc32, gzipSync } from 'node:zlib';

/** Texts up to this many bytes are stored, not deflated (a stored block holds at most 65,535). */
export const STORED_MAX = 2048;

/** gzip's member header: magic, deflate, no flags, no time, no extra flags, OS unknown. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

/** The gzip bytes of `text` (a Buffer or a UTF-8 string). */
export function gzipResult(text: string | Buffer): Buffer {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  if (bytes.length > STORED_MAX) return gzipSync(bytes, { level: 1 });
  const out = Buffer.allocUnsafe(HEADER.length + 5 + bytes.length + 8);
  HEADER.copy(out, 0);
  let at = HEADER.length;
  out[at] = 0x01; // BFINAL = 1, BTYPE = 00 (stored)
  out.writeUInt16LE(bytes.length, at + 1);
  out.writeUInt16LE(~bytes.length & 0xffff, at + 3);
  at += 5;
  bytes.copy(out, at);
  at += bytes.length;
  out.writeUInt32LE(crc32(bytes) >>> 0, at);
  out.writeUInt32LE(bytes.length, at + 4);
  return out;
}
