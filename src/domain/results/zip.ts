/**
 * A zip archive written as a stream (PKWARE APPNOTE 6.3.x): each entry is deflated as its data
 * arrives, with its CRC-32 and sizes in a data descriptor after it (general purpose bit 3), and
 * the central directory at the end; nothing but one entry's compressor state is held.
 *
 * ZIP64 where needed (APPNOTE 4.3.9, 4.5.3, 4.3.14-15): sizes are known only once an entry is
 * written, so an entry whose sizes pass 4 GiB gets a data descriptor with 8-byte sizes and a
 * ZIP64 extra field in its central directory record (sizes and, past 4 GiB, its offset set to
 * 0xFFFFFFFF there); an archive whose directory starts past 4 GiB or holds more than 65,535
 * entries ends with a ZIP64 end of central directory record and its locator. Archives that fit
 * stay plain zip 2.0 (what every reader opens). The local header of a streamed entry carries no
 * sizes (bit 3), as in Go's archive/zip: readers that trust the central directory (spreadsheet
 * programs, unzip, Python's zipfile, JSZip) read the 8-byte sizes from there.
 */
import { crc32, createDeflateRaw } from 'node:zlib';

export interface ZipEntry {
  name: string;
  data: AsyncIterable<Buffer>;
}

export interface ZipOptions {
  /**
   * Largest size or offset written in a 4-byte field (0xFFFFFFFF, the format's limit). Tests
   * lower it to exercise the ZIP64 records without writing 4 GiB.
   */
  zip64Above?: number;
}

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
/** 1980-01-01 00:00 in MS-DOS time: entries carry no real time (the archive is generated). */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
/** Version needed to extract: 2.0 (deflate), 4.5 (ZIP64). */
const V20 = 20;
const V45 = 45;

interface Totals { crc: number; size: number; compressed: number }

/**
 * zlib's fastest level. A 1,000,000-row xlsx (scripts/bench/result-files.ts, serve xlsx): level 6
 * 10.8-10.9 s and 64.6 MB, level 3 8.9 s and 74.0 MB, level 1 7.1-7.9 s and 81.1 MB. A sheet's
 * XML repeats itself so much that the fast level keeps most of the gain, and the deflate is
 * most of a download's CPU: the server's CPU, shared by every user, over 26 % more bytes.
 */
export const DEFLATE_LEVEL = 1;

/** Deflates one entry's data, yielding compressed chunks; answers CRC and sizes at the end. */
async function* deflateEntry(data: AsyncIterable<Buffer>, totals: Totals): AsyncGenerator<Buffer> {
  const deflate = createDeflateRaw({ level: DEFLATE_LEVEL });
  const out: Buffer[] = [];
  let failure: Error | undefined;
  deflate.on('data', (chunk: Buffer) => { out.push(chunk); totals.compressed += chunk.length; });
  deflate.on('error', (err) => { failure = err; });
  const drain = function* () { while (out.length > 0) yield out.shift()!; };
  for await (const chunk of data) {
    totals.crc = crc32(chunk, totals.crc);
    totals.size += chunk.length;
    await new Promise<void>((resolve, reject) => deflate.write(chunk, (err) => (err ? reject(err) : resolve())));
    if (failure) throw failure;
    yield* drain();
  }
  await new Promise<void>((resolve, reject) => { deflate.once('end', resolve); deflate.once('error', reject); deflate.end(); });
  yield* drain();
}

/** Writes a number that may pass 2^32 (below 2^53) as 8 little-endian bytes. */
function writeUInt64(buf: Buffer, value: number, at: number): void {
  buf.writeBigUInt64LE(BigInt(value), at);
}

export async function* zipStream(entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>, options: ZipOptions = {}): AsyncGenerator<Buffer> {
  const above = options.zip64Above ?? MAX32;
  const central: Buffer[] = [];
  let count = 0;
  let offset = 0;
  for await (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(V20, 4); // version needed
    local.writeUInt16LE(0x0808, 6); // bit 3: data descriptor; bit 11: UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    // CRC and sizes (14..25) stay 0: they follow in the data descriptor.
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const header = Buffer.concat([local, name]);
    yield header;
    const totals: Totals = { crc: 0, size: 0, compressed: 0 };
    for await (const chunk of deflateEntry(entry.data, totals)) yield chunk;

    // Sizes past 4 GiB: the descriptor carries them in 8 bytes (APPNOTE 4.3.9.2).
    const bigSizes = totals.size > above || totals.compressed > above;
    const descriptor = Buffer.alloc(bigSizes ? 24 : 16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(totals.crc >>> 0, 4);
    if (bigSizes) {
      writeUInt64(descriptor, totals.compressed, 8);
      writeUInt64(descriptor, totals.size, 16);
    } else {
      descriptor.writeUInt32LE(totals.compressed, 8);
      descriptor.writeUInt32LE(totals.size, 12);
    }
    yield descriptor;

    // The central directory record; the ZIP64 extra field holds, in this order, only the
    // fields set to 0xFFFFFFFF in the record (APPNOTE 4.5.3).
    const bigOffset = offset > above;
    const extra: number[] = [];
    if (bigSizes) extra.push(totals.size, totals.compressed);
    if (bigOffset) extra.push(offset);
    const zip64 = extra.length > 0;
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(zip64 ? V45 : V20, 4); // version made by (MS-DOS)
    record.writeUInt16LE(zip64 ? V45 : V20, 6);
    record.writeUInt16LE(0x0808, 8);
    record.writeUInt16LE(8, 10);
    record.writeUInt16LE(DOS_TIME, 12);
    record.writeUInt16LE(DOS_DATE, 14);
    record.writeUInt32LE(totals.crc >>> 0, 16);
    record.writeUInt32LE(bigSizes ? MAX32 : totals.compressed, 20);
    record.writeUInt32LE(bigSizes ? MAX32 : totals.size, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt16LE(zip64 ? 4 + 8 * extra.length : 0, 30);
    record.writeUInt32LE(bigOffset ? MAX32 : offset, 42);
    const parts = [record, name];
    if (zip64) {
      const field = Buffer.alloc(4 + 8 * extra.length);
      field.writeUInt16LE(0x0001, 0);
      field.writeUInt16LE(8 * extra.length, 2);
      extra.forEach((value, i) => writeUInt64(field, value, 4 + 8 * i));
      parts.push(field);
    }
    central.push(Buffer.concat(parts));
    count += 1;
    offset += header.length + totals.compressed + descriptor.length;
  }

  const directory = Buffer.concat(central);
  yield directory;
  const directoryAt = offset;
  const zip64End = count > Math.min(MAX16, above) || directoryAt > above || directory.length > above;
  if (zip64End) {
    // ZIP64 end of central directory record (APPNOTE 4.3.14) and its locator (4.3.15).
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    writeUInt64(record, 56 - 12, 4); // size of the rest of this record
    record.writeUInt16LE(V45, 12);
    record.writeUInt16LE(V45, 14);
    // disk numbers (16..23) are 0
    writeUInt64(record, count, 24);
    writeUInt64(record, count, 32);
    writeUInt64(record, directory.length, 40);
    writeUInt64(record, directoryAt, 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    writeUInt64(locator, directoryAt + directory.length, 8);
    locator.writeUInt32LE(1, 16); // total number of disks
    yield Buffer.concat([record, locator]);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64End ? MAX16 : count, 8);
  end.writeUInt16LE(zip64End ? MAX16 : count, 10);
  end.writeUInt32LE(zip64End ? MAX32 : directory.length, 12);
  end.writeUInt32LE(zip64End ? MAX32 : directoryAt, 16);
  yield end;
}
