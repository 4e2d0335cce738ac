/**
 * The summary's plain totals, gathered from the same sorted stream the sweep reads, so that no
 * further query has to scan the events again: per process (events, threads, first start, last
 * end, bytes read and written) and per file with I/O (calls, reads, writes, bytes, time, and how
 * many processes touched it). Sums follow SQL's: a null `dur` adds nothing and a null `ts` or
 * `dur` takes no part in a start or an end; every count and sum is exact (integers below 2^53).
 */

/** Bits of the chunk's `bits` column. */
export const BIT_DEV = 1;
export const BIT_DUR_NULL = 2;
/** op (0 other, 1 read, 2 write) sits above the two flag bits. */
export const OP_SHIFT = 2;
/** The `kind` of a row that is an epoch or step window in the stream (`timeline-sweep.ts`), not an event. */
export const KIND_WINDOW = 255;

/** The columns the totals read (a subset of `TimelineChunk`). */
export interface TotalsChunk {
  rows: number;
  g: Float64Array;
  /** NaN: null. */
  ts: Float64Array;
  te: Float64Array;
  /** NaN: null. */
  tid: Float64Array;
  /** KIND_WINDOW: not an event (left out here). */
  kind: Float64Array;
  /** dev | dur null · 2 | op · 4. */
  bits: Float64Array;
  bytes: Float64Array;
  /** File index (`fdir.fid`) of an I/O event, -1: none. */
  fid: Float64Array;
}

export interface ProcessTotals {
  events: Float64Array;
  threads: Float64Array;
  /** NaN when the process has no start (no ts) or no end (no ts + dur). */
  start: Float64Array;
  end: Float64Array;
  bytesRead: Float64Array;
  bytesWritten: Float64Array;
}

export interface FileTotals {
  ops: Float64Array;
  reads: Float64Array;
  writes: Float64Array;
  bytesRead: Float64Array;
  bytesWritten: Float64Array;
  readUs: Float64Array;
  writeUs: Float64Array;
  ioUs: Float64Array;
  processes: Float64Array;
}

export interface GroupTotalsResult {
  proc: ProcessTotals;
  file: FileTotals;
}

const floats = <K extends string>(names: readonly K[], n: number, fill = 0): Record<K, Float64Array> =>
  Object.fromEntries(names.map((k) => [k, new Float64Array(n).fill(fill)])) as Record<K, Float64Array>;

export class GroupTotals {
  private readonly proc: ProcessTotals;
  private readonly file: FileTotals;
  /** Per file: the last process that touched it (the stream comes by process). */
  private readonly fileLastG: Float64Array;
  private g = -1;
  private readonly tids = new Set<number>();

  constructor(processes: number, files: number) {
    this.proc = { ...floats(['events', 'threads', 'bytesRead', 'bytesWritten'] as const, processes), ...floats(['start', 'end'] as const, processes, NaN) };
    this.file = floats(['ops', 'reads', 'writes', 'bytesRead', 'bytesWritten', 'readUs', 'writeUs', 'ioUs', 'processes'] as const, files);
    this.fileLastG = new Float64Array(files).fill(-1);
  }

  push(c: TotalsChunk): void {
    const p = this.proc;
    const f = this.file;
    for (let i = 0; i < c.rows; i++) {
      if (c.kind[i] === KIND_WINDOW) continue;
      const g = c.g[i]!;
      if (g !== this.g) {
        this.flushThreads();
        this.g = g;
      }
      p.events[g]!++;
      const tid = c.tid[i]!;
      if (tid === tid) this.tids.add(tid);
      const ts = c.ts[i]!;
      const bits = c.bits[i]!;
      const durNull = (bits & BIT_DUR_NULL) !== 0;
      if (ts === ts) {
        if (!(p.start[g]! <= ts)) p.start[g] = ts;
        const te = c.te[i]!;
        if (!durNull && !(p.end[g]! >= te)) p.end[g] = te;
      }
      const op = bits >> OP_SHIFT;
      const bytes = c.bytes[i]!;
      if (op === 1) p.bytesRead[g]! += bytes;
      else if (op === 2) p.bytesWritten[g]! += bytes;
      const fid = c.fid[i]!;
      if (fid < 0) continue;
      // (ts null: te null too, and its dur adds nothing, as SQL's sum of a null)
      const dur = durNull || ts !== ts ? 0 : c.te[i]! - ts;
      f.ops[fid]!++;
      f.ioUs[fid]! += dur;
      if (op === 1) {
        f.reads[fid]!++;
        f.bytesRead[fid]! += bytes;
        f.readUs[fid]! += dur;
      } else if (op === 2) {
        f.writes[fid]!++;
        f.bytesWritten[fid]! += bytes;
        f.writeUs[fid]! += dur;
      }
      if (this.fileLastG[fid] !== g) {
        this.fileLastG[fid] = g;
        f.processes[fid]!++;
      }
    }
  }

  finish(): GroupTotalsResult {
    this.flushThreads();
    return { proc: this.proc, file: this.file };
  }

  private flushThreads(): void {
    if (this.g >= 0) this.proc.threads[this.g] = this.tids.size;
    this.tids.clear();
  }
}
