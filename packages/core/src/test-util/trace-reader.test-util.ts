/** Test support: run real node programs and read back the traces they write. Not shipped. */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, inflateRawSync } from 'node:zlib';

export const CORE_DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
export const REGISTER_DIST = fileURLToPath(new URL('../../dist/register.js', import.meta.url));

export interface TraceEvent {
  id?: number;
  name: string;
  cat: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  ph: 'X' | 'M';
  args?: Record<string, unknown>;
}

export interface Trace {
  lines: string[];
  events: TraceEvent[];
  complete: TraceEvent[];
  meta: TraceEvent[];
}

export function tempDir(prefix = 'dft-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Writes `source` as an ES module in `dir` and returns its path. `CORE` and `REGISTER` in the
 * source become the (quoted) paths of the built package's index and register entries.
 */
export function writeModule(dir: string, source: string, name = `app-${Math.random().toString(36).slice(2)}.mjs`): string {
  const file = join(dir, name);
  writeFileSync(file, source.replaceAll('CORE', JSON.stringify(CORE_DIST)).replaceAll('REGISTER', JSON.stringify(REGISTER_DIST)));
  return file;
}

/** Writes `source` as an ES module in `dir` and runs it with node; CORE is replaced by the dist path. */
export function runModule(dir: string, source: string, env: Record<string, string | undefined> = {}, nodeArgs: string[] = []): SpawnSyncReturns<string> {
  const file = writeModule(dir, source);
  return spawnSync(process.execPath, [...nodeArgs, file], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...cleanEnv(), ...env },
    timeout: 60_000,
  });
}

export interface Finished {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running child whose output can be awaited line by line. */
export interface Running {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the first stdout line that satisfies `pred`; rejects if the child exits first. */
  line(pred: (line: string) => boolean): Promise<string>;
  readonly exited: Promise<Finished>;
}

/** Starts `node <nodeArgs> file` without waiting; for tests that act while the program runs. */
export function start(file: string, env: Record<string, string | undefined> = {}, nodeArgs: string[] = [], options: SpawnOptions = {}): Running {
  const child = spawn(process.execPath, [...nodeArgs, file], { cwd: join(file, '..'), env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let out = '';
  let err = '';
  const waiters: { pred: (l: string) => boolean; resolve: (l: string) => void; reject: (e: Error) => void }[] = [];
  let partial = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    out += d;
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const l of lines) {
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i]!.pred(l)) {
          waiters[i]!.resolve(l);
          waiters.splice(i, 1);
        }
      }
    }
  });
  child.stderr!.on('data', (d: string) => (err += d));
  const exited = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status, signal) => {
      for (const w of waiters.splice(0)) w.reject(new Error(`child exited (${status ?? signal}) before the awaited line; stderr: ${err}`));
      resolve({ status, signal, stdout: out, stderr: err });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    line: (pred) => new Promise((resolve, reject) => waiters.push({ pred, resolve, reject })),
    exited,
  };
}

/** The environment without any DFTRACER_* the test runner may have. */
export function cleanEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DFTRACER_') && v !== undefined) out[k] = v;
  return out;
}

export function traceFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pfw') || f.endsWith('.pfw.gz'))
    .map((f) => join(dir, f));
}

/** Counts the gzip members of a file (each flush writes one). */
export function countGzipMembers(buf: Buffer): number {
  let n = 0;
  let off = 0;
  while (off < buf.length) {
    const body = off + headerLength(buf, off);
    const res = inflateRawSync(buf.subarray(body), { info: true }) as unknown as { engine: { bytesWritten: number } };
    off = body + res.engine.bytesWritten + 8; // + CRC32 and ISIZE
    n++;
  }
  return n;
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
      const res = inflateRawSync(buf.subarray(body), { info: true }) as unknown as { engine: { bytesWritten: number } };
      end = body + res.engine.bytesWritten + 8;
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

export interface CrashedTrace extends Trace {
  /** Complete gzip members (0 for plain files). */
  readonly memberCount: number;
  /** Bytes of a cut-off last member or line, ignored. */
  readonly tailBytes: number;
}

/**
 * Reads what a killed process left: every complete member (or, uncompressed, every complete
 * line) must hold whole, valid JSON lines; an incomplete tail is ignored and reported.
 */
export function readCrashedTrace(file: string): CrashedTrace {
  const raw = readFileSync(file);
  let text: string;
  let memberCount = 0;
  let tailBytes: number;
  if (file.endsWith('.gz')) {
    const walk = walkGzipMembers(raw);
    for (const [i, m] of walk.members.entries()) if (!m.endsWith('\n')) throw new Error(`${file}: member ${i} does not end with a whole line`);
    text = walk.members.join('');
    memberCount = walk.members.length;
    tailBytes = walk.tailBytes;
  } else {
    const s = raw.toString('utf8');
    const cut = s.lastIndexOf('\n') + 1;
    text = s.slice(0, cut);
    tailBytes = Buffer.byteLength(s.slice(cut));
  }
  if (text === '') return { lines: [], events: [], complete: [], meta: [], memberCount, tailBytes };
  return { ...parseLines(file, text), memberCount, tailBytes };
}

export function readTrace(file: string): Trace {
  const raw = readFileSync(file);
  return parseLines(file, file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8'));
}

function parseLines(file: string, text: string): Trace {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== '[') throw new Error(`${file}: first line is ${JSON.stringify(lines[0])}, not "["`);
  // finalize() closes the array with a `]` line; a killed process leaves none
  const body = lines[lines.length - 1] === ']' ? lines.slice(1, -1) : lines.slice(1);
  const events = body.map((l, i) => {
    try {
      return JSON.parse(l) as TraceEvent;
    } catch (e) {
      throw new Error(`${file}:${i + 2}: ${(e as Error).message}: ${l.slice(0, 200)}`);
    }
  });
  return { lines, events, complete: events.filter((e) => e.ph === 'X'), meta: events.filter((e) => e.ph === 'M') };
}

/** Checks the invariants every trace must hold; returns the problems found. */
export function traceProblems(t: Trace): string[] {
  const problems: string[] = [];
  const byId = new Map<number, TraceEvent>();
  const metaIds = new Set<number>();
  for (const e of t.complete) {
    if (byId.has(e.id!)) problems.push(`duplicate id ${e.id}`);
    byId.set(e.id!, e);
    const keys = Object.keys(e).join(',');
    const want = e.args === undefined ? 'id,name,cat,pid,tid,ts,dur,ph' : 'id,name,cat,pid,tid,ts,dur,ph,args';
    if (keys !== want) problems.push(`field order of ${e.name}: ${keys}`);
    if (!Number.isInteger(e.ts) || !Number.isInteger(e.dur) || e.dur! < 0) problems.push(`bad ts/dur on ${e.name}`);
  }
  for (const e of t.meta) {
    if (Object.keys(e).join(',') !== 'id,name,cat,pid,tid,ph,args') problems.push(`metadata field order ${Object.keys(e).join(',')}`);
    if (byId.has(e.id!) || metaIds.has(e.id!)) problems.push(`duplicate id ${e.id} (metadata ${e.name})`);
    metaIds.add(e.id!);
  }
  if (t.lines.length > 1 && t.lines[t.lines.length - 1] !== ']' && t.events[t.events.length - 1]?.name === 'end') problems.push('no closing "]" after end');
  const fh = new Set(t.meta.filter((m) => m.name === 'FH').map((m) => m.args!.value));
  for (const e of t.complete) {
    const a = e.args;
    if (a === undefined) continue;
    if (a.fhash !== undefined && !fh.has(a.fhash)) problems.push(`unresolved fhash on ${e.name} ${e.id}`);
    const p = a.p_idx as number;
    if (p === -1) {
      if (a.level !== 1) problems.push(`top-level ${e.name} ${e.id} has level ${String(a.level)}`);
      continue;
    }
    const parent = byId.get(p);
    if (parent === undefined) {
      problems.push(`${e.name} ${e.id}: parent ${p} missing`);
      continue;
    }
    if (a.level !== (parent.args!.level as number) + 1) problems.push(`${e.name} ${e.id}: level ${String(a.level)} under parent level ${String(parent.args!.level)}`);
    if (e.ts! < parent.ts! || e.ts! + e.dur! > parent.ts! + parent.dur!) problems.push(`${e.name} ${e.id} [${e.ts},+${e.dur}] pokes out of parent ${parent.name} ${parent.id} [${parent.ts},+${parent.dur}]`);
  }
  // Slices on one track are disjoint or nested.
  const tracks = new Map<string, TraceEvent[]>();
  for (const e of t.complete) {
    const k = `${e.pid}/${e.tid}`;
    if (!tracks.has(k)) tracks.set(k, []);
    tracks.get(k)!.push(e);
  }
  for (const [k, evs] of tracks) {
    evs.sort((a, b) => a.ts! - b.ts! || b.dur! - a.dur!);
    const open: number[] = [];
    for (const e of evs) {
      while (open.length > 0 && open[open.length - 1]! <= e.ts!) open.pop();
      const end = e.ts! + e.dur!;
      if (open.length > 0 && end > open[open.length - 1]!) problems.push(`track ${k}: ${e.name} ${e.id} overlaps an enclosing slice without nesting`);
      open.push(end);
    }
  }
  // num_events counts every record before `end`, metadata included (upstream's count)
  const end = t.events[t.events.length - 1];
  if (end?.name === 'end' && end.args !== undefined) {
    const before = t.events.length - 1;
    if (end.args?.num_events !== before) problems.push(`end.num_events ${String(end.args?.num_events)} but ${before} records before it`);
  }
  return problems;
}
