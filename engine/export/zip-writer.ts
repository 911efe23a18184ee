/**
 * The byte layout of a streamed ZIP archive (PKWARE APPNOTE 6.3): local headers, data
 * descriptors for entries whose size is only known once written, the central directory and its
 * end record. It only frames bytes; compression and I/O belong to the caller, so an entry of any
 * size streams through in chunks.
 *
 * Sizes and offsets are 32-bit (no Zip64): Excel warns about Zip64 parts in small files, and an
 * export is at most 100,000 rows, far from 4 GiB. Crossing 4 GiB throws ExportLimitError instead
 * of writing an archive readers would misread.
 */
import { crc32, deflateRawSync } from 'node:zlib';
import { ExportLimitError } from './export-errors.ts';

const LOCAL_SIG = 0x04034b50;
const DESCRIPTOR_SIG = 0x08074b50;
const CENTRAL_SIG = 0x02014b50;
const END_SIG = 0x06054b50;
/** Version 2.0: deflate and data descriptors. */
const VERSION = 20;
const METHOD_DEFLATE = 8;
/** General purpose flag bit 3: CRC and sizes follow the data in a descriptor. */
const FLAG_DESCRIPTOR = 0x0008;
const MAX_U32 = 0xffffffff;

/**
 * The end of a raw deflate stream made of independently sync-flushed pieces: one final, empty
 * fixed-Huffman block (BFINAL=1, BTYPE=01, end-of-block code).
 */
export const DEFLATE_FINAL_BLOCK = Buffer.from([0x03, 0x00]);

interface EntryRecord {
  name: Buffer;
  flags: number;
  crc: number;
  csize: number;
  usize: number;
  offset: number;
}

/** MS-DOS date and time of `d` (local time, 2-second resolution), as ZIP headers store them. */
function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

function checkU32(n: number, what: string): void {
  if (n > MAX_U32)
    throw new ExportLimitError(
      'xlsx_too_large',
      `${what} exceeds 4 GiB, the limit of a ZIP archive without Zip64`,
    );
}

/**
 * A ZIP framer. Each method returns the bytes to emit next, in order; the writer counts them to
 * know every entry's offset, so the caller must emit exactly what it gets plus the compressed
 * bytes it reports to `endEntry`.
 */
export function createZipWriter(modified = new Date()) {
  const { time, date } = dosDateTime(modified);
  const entries: EntryRecord[] = [];
  let offset = 0;
  let open: EntryRecord | undefined;

  const localHeader = (e: EntryRecord): Buffer => {
    const b = Buffer.alloc(30 + e.name.length);
    b.writeUInt32LE(LOCAL_SIG, 0);
    b.writeUInt16LE(VERSION, 4);
    b.writeUInt16LE(e.flags, 6);
    b.writeUInt16LE(METHOD_DEFLATE, 8);
    b.writeUInt16LE(time, 10);
    b.writeUInt16LE(date, 12);
    b.writeUInt32LE(e.crc, 14);
    b.writeUInt32LE(e.csize, 18);
    b.writeUInt32LE(e.usize, 22);
    b.writeUInt16LE(e.name.length, 26);
    b.writeUInt16LE(0, 28);
    e.name.copy(b, 30);
    return b;
  };

  return {
    /** A whole small entry (header and deflated data), for parts known up front. */
    file(name: string, data: string | Buffer): Buffer {
      if (open) throw new Error(`zip entry ${open.name.toString()} is still open`);
      const raw = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      const packed = deflateRawSync(raw);
      const e: EntryRecord = {
        name: Buffer.from(name, 'utf8'),
        flags: 0,
        crc: crc32(raw),
        csize: packed.length,
        usize: raw.length,
        offset,
      };
      const out = Buffer.concat([localHeader(e), packed]);
      offset += out.length;
      checkU32(offset, 'the archive');
      entries.push(e);
      return out;
    },

    /** The local header of a streamed entry; its data (raw deflate) follows, then `endEntry`. */
    beginEntry(name: string): Buffer {
      if (open) throw new Error(`zip entry ${open.name.toString()} is still open`);
      open = { name: Buffer.from(name, 'utf8'), flags: FLAG_DESCRIPTOR, crc: 0, csize: 0, usize: 0, offset };
      const h = localHeader(open);
      offset += h.length;
      return h;
    },

    /** The data descriptor closing the open entry: CRC-32 and sizes of what was streamed. */
    endEntry(crc: number, csize: number, usize: number): Buffer {
      if (!open) throw new Error('no zip entry is open');
      checkU32(usize, `entry ${open.name.toString()}`);
      Object.assign(open, { crc, csize, usize });
      entries.push(open);
      open = undefined;
      const d = Buffer.alloc(16);
      d.writeUInt32LE(DESCRIPTOR_SIG, 0);
      d.writeUInt32LE(crc >>> 0, 4);
      d.writeUInt32LE(csize, 8);
      d.writeUInt32LE(usize, 12);
      offset += csize + d.length;
      checkU32(offset, 'the archive');
      return d;
    },

    /** The central directory and its end record: the last bytes of the archive. */
    finish(): Buffer {
      if (open) throw new Error(`zip entry ${open.name.toString()} is still open`);
      const parts: Buffer[] = [];
      for (const e of entries) {
        const c = Buffer.alloc(46 + e.name.length);
        c.writeUInt32LE(CENTRAL_SIG, 0);
        c.writeUInt16LE(VERSION, 4); // made by: MS-DOS attributes, version 2.0
        c.writeUInt16LE(VERSION, 6);
        c.writeUInt16LE(e.flags, 8);
        c.writeUInt16LE(METHOD_DEFLATE, 10);
        c.writeUInt16LE(time, 12);
        c.writeUInt16LE(date, 14);
        c.writeUInt32LE(e.crc >>> 0, 16);
        c.writeUInt32LE(e.csize, 20);
        c.writeUInt32LE(e.usize, 24);
        c.writeUInt16LE(e.name.length, 28);
        // extra length, comment length, disk, internal and external attributes: all 0
        c.writeUInt32LE(e.offset, 42);
        e.name.copy(c, 46);
        parts.push(c);
      }
      const dirSize = parts.reduce((n, p) => n + p.length, 0);
      checkU32(offset + dirSize, 'the archive');
      const end = Buffer.alloc(22);
      end.writeUInt32LE(END_SIG, 0);
      end.writeUInt16LE(entries.length, 8);
      end.writeUInt16LE(entries.length, 10);
      end.writeUInt32LE(dirSize, 12);
      end.writeUInt32LE(offset, 16);
      parts.push(end);
      offset += dirSize + end.length;
      return Buffer.concat(parts);
    },
  };
}
