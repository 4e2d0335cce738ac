import { dirname } from 'node:path';

/** Files remembered by hash, directories remembered as read: bounded, so a loader of millions of files stays flat. */
const MAX_FILES = 65_536;
const MAX_DIRS = 4_096;

/**
 * Which directories a thread's traced I/O read and wrote (provenance: what a checkpoint came
 * from). Fed by the fs tracer: every traced path's hash and directory, then each read and write
 * event's file. A file forgotten by the bound (over MAX_FILES distinct files) is not attributed
 * until it is hashed again.
 */
export class DataLineage {
  private readonly dirOf = new Map<string, string>();
  private readonly reads = new Set<string>();
  private readonly lastWrite = new Map<string, number>();
  private seq = 0;
  private lastRead = '';

  /** A traced path and its hash (the fs tracer, where it hashes the path). */
  note(fhash: string, abs: string): void {
    if (this.dirOf.has(fhash)) return;
    if (this.dirOf.size >= MAX_FILES) this.dirOf.clear();
    this.dirOf.set(fhash, dirname(abs));
  }

  read(fhash: string): void {
    // sequential reads of one file: one compare
    if (fhash === this.lastRead) return;
    this.lastRead = fhash;
    const d = this.dirOf.get(fhash);
    if (d !== undefined && this.reads.size < MAX_DIRS) this.reads.add(d);
  }

  wrote(fhash: string): void {
    const d = this.dirOf.get(fhash);
    if (d === undefined) return;
    this.lastWrite.delete(d); // keeps the map in order of last write, bounded like reads
    if (this.lastWrite.size >= MAX_DIRS) this.lastWrite.delete(this.lastWrite.keys().next().value!);
    this.lastWrite.set(d, ++this.seq);
  }

  /** The directories whose files were read, in order of first read. */
  readDirectories(): string[] {
    return [...this.reads];
  }

  /** A point in the sequence of writes, for `writtenSince`. */
  mark(): number {
    return this.seq;
  }

  /** The directories written to after `mark`. */
  writtenSince(mark: number): string[] {
    const out: string[] = [];
    for (const [d, s] of this.lastWrite) if (s > mark) out.push(d);
    return out;
  }
}
