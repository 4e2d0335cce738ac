import { gunzipSync, inflateRawSync } from 'node:zlib';

/** Counts the gzip members of a file (each flush writes one). */
export function countGzipMembers(buf: Buffer): number {
  let n = 0;
  let off = 0;
  while (off < buf.length) {
    const body = off + headerLength(buf, off);
    off = body + deflatedLength(buf.subarray(body)) + 8; // + CRC32 and ISIZE
    n++;
  }
  return n;
}

export interface MemberWalk {
  /** The decompressed text of each complete member, CRC32 and length checked. */
  readonly members: string[];
  /** Bytes after the last complete member: a member cut short by a crash; 0 when the file ends cleanly. */
  readonly tailBytes: number;
}

/**
 * Walks a multi-member gzip file the way a crash-tolerant reader does: every complete member must
 * decompress and pass its CRC; an incomplete last member is a clean truncation. Anything else (a
 * corrupt member, garbage between members) throws.
 */
export function walkGzipMembers(buf: Buffer): MemberWalk {
  const members: string[] = [];
  let off = 0;
  while (off < buf.length) {
    let end: number;
    try {
      if (buf.length - off < 18) throw new RangeError('short member');
      const body = off + headerLength(buf, off);
      end = body + deflatedLength(buf.subarray(body)) + 8;
      if (end > buf.length) throw new RangeError('member trailer cut');
    } catch (e) {
      if (e instanceof RangeError || /unexpected end of file/.test((e as Error).message)) return { members, tailBytes: buf.length - off };
      if (buf[off] !== 0x1f || buf[off + 1] !== 0x8b) throw new Error(`no gzip member at byte ${off}`);
      throw e;
    }
    // gunzip checks the CRC32 and ISIZE trailer of the member.
    members.push(gunzipSync(buf.subarray(off, end)).toString('utf8'));
    off = end;
  }
  return { members, tailBytes: 0 };
}

/** Bytes of the deflate stream at the start of `buf` (the member's body). */
function deflatedLength(buf: Buffer): number {
  const res = inflateRawSync(buf, { info: true }) as unknown as { engine: { bytesWritten: number } };
  return res.engine.bytesWritten;
}

function headerLength(buf: Buffer, off: number): number {
  if (buf[off] !== 0x1f || buf[off + 1] !== 0x8b) throw new Error(`no gzip member at byte ${off}`);
  const flags = buf[off + 3]!;
  let p = off + 10;
  if (flags & 4) p += 2 + buf.readUInt16LE(p);
  if (flags & 8) while (buf[p++] !== 0);
  if (flags & 16) while (buf[p++] !== 0);
  if (flags & 2) p += 2;
  return p - off;
}
