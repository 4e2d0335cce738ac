/**
 * Traces in DFTracer 2.2's layout, built from its C++ writer's format strings
 * (`src/dftracer/core/serialization/json_line.cpp`, see ../shared/research/upstream-format-2026.md):
 * no `[`/`]`, integer `ph` (1 complete, 2 counter, 3 aggregated, 4 metadata), an integer `type`,
 * metadata without id/ts/dur, counters and aggregated records without id/dur (ts before ph, pid/tid
 * after), entity records `EH`/`ET`/`ER`, `args.relations` on events, and the last interval's
 * aggregated records after `end`. The committed files in `fixtures/upstream/` are these (a test
 * regenerates them and compares).
 *
 * - `2026-v2.2-run.pfw`: one process of everything above, types 3 (LIBC_IO), 6 (PYTHON), 7
 *   (PSUTIL), 14 (CUDA, past dftracer-utils' enum) and 42 (unknown).
 * - `2026-mixed/`: a 2.2 rank (gzip) beside a rank in our layout (brackets, letter `ph`, ids on
 *   metadata, an aggregated record as `"ph":"C"` with `dft_cnt`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const T0 = 1_785_087_679_000_000; // 2026-07-26, the doc's aggregated example
const H = '5f3c1a9e0b7d2c48'; // hhash: 16 hex
const FH_TRAIN = 'a0b1c2d3e4f50617';
const FH_CKPT = '0f1e2d3c4b5a6978';
/** Entity ids (FNV-1a-64, 16 hex) of the run's data directory, its checkpoint and the model. */
export const ENTITY_DATA = '8f0de68c04eea0bf';
export const ENTITY_CKPT = '1c2b3a4958677685';
export const ENTITY_MODEL = '77aa55cc33ee1100';

/** DFTracer 2.2's writer, one format string per record kind. */
class Writer22 {
  readonly lines: string[] = [];
  private id = 0;
  constructor(
    readonly pid: number,
    readonly tid: number,
  ) {}
  /** `JsonLines::data`: id,name,cat,type,pid,tid,ts,dur,ph,args */
  complete(name: string, cat: string, type: number, ts: number, dur: number, args?: string, tid = this.tid): number {
    const id = ++this.id;
    this.lines.push(`{"id":${id},"name":"${name}","cat":"${cat}","type":${type},"pid":${this.pid},"tid":${tid},"ts":${ts},"dur":${dur},"ph":1${args === undefined ? '}' : `,"args":{"hhash":"${H}"${args}}}`}`);
    return id;
  }
  /** A folded call: takes an id, writes nothing. */
  folded(): void {
    this.id++;
  }
  /** `JsonLines::metadata`: name,cat,type,pid,tid,ph,args */
  metadata(name: string, type: number, key: string, value: string, quoted = true): void {
    this.lines.push(`{"name":"${name}","cat":"dftracer","type":${type},"pid":${this.pid},"tid":${this.tid},"ph":4,"args":{"hhash":"${H}","name":"${key}","value":${quoted ? `"${value}"` : value}}}`);
  }
  /** `JsonLines::series`: name,cat,type,ts,ph,pid,tid,args (ph 2 counter, 3 aggregated) */
  series(ph: 2 | 3, name: string, cat: string, type: number, ts: number, args: string): void {
    this.lines.push(`{"name":"${name}","cat":"${cat}","type":${type},"ts":${ts},"ph":${ph},"pid":${this.pid},"tid":${this.tid},"args":{"hhash":"${H}"${args}}}`);
  }
  /** `JsonLines::record`: an entity record (EH, ET, ER) */
  record(name: 'EH' | 'ET' | 'ER', fields: string): void {
    this.lines.push(`{"name":"${name}","cat":"dftracer","type":1,"pid":${this.pid},"tid":${this.tid},"ph":4,"args":{"hhash":"${H}",${fields}}}`);
  }
  /** Init: HH, thread_name, CM time_metric, FH, start. */
  begin(host: string): void {
    this.metadata('HH', 1, host, H);
    this.metadata('thread_name', 1, String(this.pid), 'thread_name');
    this.metadata('CM', 1, 'time_metric', 'US');
    this.metadata('PR', 1, 'core_affinity', '[0,1,2,3]', false);
    this.complete('start', 'dftracer', 1, T0, 0, `,"cwd":"/p/run","version":"2.2.0","date":"Sun Jul 26 17:41:19 2026","ppid":1`);
  }
  /** `end`: id num_events+1, args num_events, cfg, build, used, app. */
  end(ts: number, used: string[]): void {
    const n = this.id;
    this.complete(
      'end',
      'dftracer',
      1,
      ts,
      0,
      `,"num_events":${n},"cfg":{"enable":true,"aggregation_enable":true,"aggregation_type":"FULL","trace_interval_ms":1000},"build":{"version":"2.2.0"},"used":[${used.map((u) => `"${u}"`).join(',')}],"app":{"model":"unet"}`,
    );
  }
  text(): string {
    return this.lines.map((l) => `${l}\n`).join('');
  }
}

/** One process of everything the 2.2 layout holds. */
function run22(pid: number): Writer22 {
  const w = new Writer22(pid, pid);
  w.begin('node17');
  w.metadata('FH', 1, '/p/data/train/img_0.npz', FH_TRAIN);
  w.metadata('FH', 1, '/p/ckpt/model-1.pt', FH_CKPT);
  w.metadata('CM', 6, 'git_sha', 'd1e2f3');
  // entity types, entities and their relation (17: derived from)
  w.record('ET', `"type":"dataset","role":1,"description":"training data"`);
  w.record('EH', `"id":"${ENTITY_DATA}","type":"dataset","store":1,"uri":"/p/data/train"`);
  w.record('EH', `"id":"${ENTITY_CKPT}","type":"checkpoint","store":1,"uri":"/p/ckpt/model-1.pt"`);
  w.record('ER', `"relation":17,"subject":"${ENTITY_CKPT}","object":"${ENTITY_DATA}"`);
  // complete events: LIBC_IO reads and a write, a Python step, CUDA (14) and an unknown layer (42)
  w.complete('open64', 'POSIX', 3, T0 + 100, 12, `,"fhash":"${FH_TRAIN}","ret":3`);
  w.complete('read', 'POSIX', 3, T0 + 120, 40, `,"fhash":"${FH_TRAIN}","count":4096,"ret":4096`);
  w.complete('read', 'POSIX', 3, T0 + 170, 35, `,"fhash":"${FH_TRAIN}","count":4096,"ret":1000`);
  w.complete('train_step', 'ai_root', 6, T0 + 300, 5_000, `,"step":1,"epoch":1,"relations":{"used":["${ENTITY_DATA}"]}`);
  w.complete('cudaMemcpy', 'CUDA', 14, T0 + 400, 80);
  w.complete('probe', 'custom', 42, T0 + 600, 9, `,"level":1`);
  w.complete('write', 'POSIX', 3, T0 + 6_000, 70, `,"fhash":"${FH_CKPT}","count":8192,"ret":8192,"relations":{"generated":["${ENTITY_CKPT}"]}`);
  w.complete('close', 'POSIX', 3, T0 + 6_100, 5, `,"fhash":"${FH_CKPT}","ret":0`);
  // counters (PSUTIL)
  w.series(2, 'memory', 'sys', 7, T0 + 1_000, `,"rss":104857600,"vms":209715200`);
  w.series(2, 'memory', 'sys', 7, T0 + 2_000, `,"rss":115343360,"vms":209715200`);
  // folded reads of the first interval (written when the next interval's first call arrives)
  for (let i = 0; i < 5; i++) w.folded();
  w.series(3, 'read', 'POSIX', 3, T0, `,"dft_cnt":5,"dur_min":20,"dur_max":60,"dur_sum":190,"count_min":4096,"count_max":4096,"count_sum":20480,"ret_min":512,"ret_max":4096,"ret_sum":16896`);
  for (let i = 0; i < 1; i++) w.folded();
  w.series(3, 'pwrite64', 'POSIX', 3, T0, `,"dft_cnt":1,"dur":33,"count":2048,"ret":2048,"offset":0`);
  // the last interval's calls take their ids before `end`; their records come after it
  for (let i = 0; i < 3 + 2 + 4; i++) w.folded();
  w.end(T0 + 1_500_000, ['LIBC_IO', 'PYTHON', 'ai']);
  w.series(3, 'read', 'POSIX', 3, T0 + 1_000_000, `,"dft_cnt":3,"dur_min":10,"dur_max":30,"dur_sum":55,"count_min":4096,"count_max":4096,"count_sum":12288,"ret_min":4096,"ret_max":4096,"ret_sum":12288`);
  w.series(3, 'fread', 'STDIO', 3, T0 + 1_000_000, `,"dft_cnt":2,"dur_min":4,"dur_max":6,"dur_sum":10,"size_min":512,"size_max":512,"size_sum":1024,"ret_min":2,"ret_max":4,"ret_sum":6`);
  w.series(3, 'train_step', 'ai_root', 6, T0 + 1_000_000, `,"dft_cnt":4,"dur_min":900,"dur_max":1100,"dur_sum":4000,"step_min":2,"step_max":5,"step_sum":14`);
  return w;
}

/** A rank in our layout: brackets, letter ph, ids on metadata; one aggregated record as `C` + dft_cnt. */
function oursRank(pid: number): string {
  const a = `"hhash":"${H}"`;
  const l = [
    '[',
    `{"id":1,"name":"HH","cat":"dftracer","pid":${pid},"tid":${pid},"ph":"M","args":{"name":"node18","value":"${H}"}}`,
    `{"id":2,"name":"FH","cat":"dftracer","pid":${pid},"tid":${pid},"ph":"M","args":{"name":"/p/data/train/img_0.npz","value":"${FH_TRAIN}"}}`,
    `{"id":3,"name":"start","cat":"dftracer","pid":${pid},"tid":${pid},"ts":${T0},"dur":0,"ph":"X","args":{${a},"level":1}}`,
    `{"id":4,"name":"read","cat":"POSIX","pid":${pid},"tid":${pid},"ts":${T0 + 50},"dur":25,"ph":"X","args":{${a},"fhash":"${FH_TRAIN}","count":4096,"ret":4096,"level":1}}`,
    `{"id":5,"name":"memory","cat":"sys","pid":${pid},"tid":${pid},"ts":${T0 + 500},"ph":"C","args":{"rss":99614720}}`,
    `{"id":9,"name":"read","cat":"POSIX","pid":${pid},"tid":${pid},"ts":${T0},"ph":"C","args":{${a},"dft_cnt":3,"dur_min":5,"dur_max":9,"dur_sum":21,"count_min":4096,"count_max":4096,"count_sum":12288,"ret_min":100,"ret_max":4096,"ret_sum":8292,"fhash":"${FH_TRAIN}"}}`,
    `{"id":10,"name":"end","cat":"dftracer","pid":${pid},"tid":${pid},"ts":${T0 + 900},"dur":0,"ph":"X","args":{${a},"num_events":6}}`,
    ']',
  ];
  return l.map((x) => `${x}\n`).join('');
}

/** The fixture files, written under `dir`: paths relative to it. */
export const V22_RUN = '2026-v2.2-run.pfw';
export const V22_MIXED = '2026-mixed';
export const V22_FILES = [V22_RUN, `${V22_MIXED}/rank1-v2.2.pfw.gz`, `${V22_MIXED}/rank0-ours.pfw`];

export function writeV22Fixtures(dir: string): string[] {
  mkdirSync(join(dir, V22_MIXED), { recursive: true });
  writeFileSync(join(dir, V22_RUN), run22(4242).text());
  writeFileSync(join(dir, V22_MIXED, 'rank1-v2.2.pfw.gz'), gzipSync(run22(4343).text()));
  writeFileSync(join(dir, V22_MIXED, 'rank0-ours.pfw'), oursRank(4141));
  return V22_FILES.map((f) => join(dir, f));
}
