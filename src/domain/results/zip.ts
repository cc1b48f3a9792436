/**
 * A zip archive written as a stream (PKWARE APPNOTE 6.3): each entry is deflated as its data
 * arrives, with its CRC-32 and sizes in a data descriptor after it (general purpose bit 3), and
 * the central directory at the end; nothing but one entry's compressor state is held. Entries
 * and the archive stay under 4 GiB (no ZIP64): past it the stream fails rather than write a
 * broken file.
 */
import { crc32, createDeflateRaw } from 'node:zlib';

export interface ZipEntry {
  name: string;
  data: AsyncIterable<Buffer>;
}

const LIMIT = 0xffffffff;
/** 1980-01-01 00:00 in MS-DOS time: entries carry no real time (the archive is generated). */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/** Deflates one entry's data, yielding compressed chunks; answers CRC and sizes at the end. */
async function* deflateEntry(data: AsyncIterable<Buffer>, totals: { crc: number; size: number; compressed: number }): AsyncGenerator<Buffer> {
  const deflate = createDeflateRaw({ level: 6 });
  const out: Buffer[] = [];
  let failure: Error | undefined;
  deflate.on('data', (chunk: Buffer) => { out.push(chunk); totals.compressed += chunk.length; });
  deflate.on('error', (err) => { failure = err; });
  const drain = function* () { while (out.length > 0) yield out.shift()!; };
  for await (const chunk of data) {
    totals.crc = crc32(chunk, totals.crc);
    totals.size += chunk.length;
    if (totals.size > LIMIT) throw new Error('a zip entry past 4 GiB needs ZIP64, which this writer does not write');
    await new Promise<void>((resolve, reject) => deflate.write(chunk, (err) => (err ? reject(err) : resolve())));
    if (failure) throw failure;
    yield* drain();
  }
  await new Promise<void>((resolve, reject) => { deflate.once('end', resolve); deflate.once('error', reject); deflate.end(); });
  yield* drain();
}

export async function* zipStream(entries: ZipEntry[]): AsyncGenerator<Buffer> {
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0808, 6); // bit 3: data descriptor; bit 11: UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    // CRC and sizes (14..25) stay 0: they follow in the data descriptor.
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const header = Buffer.concat([local, name]);
    yield header;
    const totals = { crc: 0, size: 0, compressed: 0 };
    for await (const chunk of deflateEntry(entry.data, totals)) yield chunk;
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(totals.crc >>> 0, 4);
    descriptor.writeUInt32LE(totals.compressed, 8);
    descriptor.writeUInt32LE(totals.size, 12);
    yield descriptor;

    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4); // version made by
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(0x0808, 8);
    record.writeUInt16LE(8, 10);
    record.writeUInt16LE(DOS_TIME, 12);
    record.writeUInt16LE(DOS_DATE, 14);
    record.writeUInt32LE(totals.crc >>> 0, 16);
    record.writeUInt32LE(totals.compressed, 20);
    record.writeUInt32LE(totals.size, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(offset, 42);
    central.push(Buffer.concat([record, name]));
    offset += header.length + totals.compressed + descriptor.length;
    if (offset > LIMIT) throw new Error('a zip archive past 4 GiB needs ZIP64, which this writer does not write');
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  yield directory;
  yield end;
}
