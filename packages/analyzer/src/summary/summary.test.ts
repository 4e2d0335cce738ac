import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize, formatSummary, type Summary } from './summary.js';
import { readTrace } from '@dftracer/testing';
import { tempDir, writeSmallTrace } from '../test-util/fixtures.test-util.js';
import { writeSyntheticTrace } from '../test-util/synthetic.test-util.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';
import { READ_CALLS, WRITE_CALLS } from '../read/duck.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

describe('summary of a small trace with known answers', () => {
  let s: Summary;
  beforeAll(async () => {
    const t = writeSmallTrace(join(dir, 'small.pfw.gz'));
    s = await summarize([t.path], { threads: 1 });
  });

  it('splits time into I/O, compute (self time), their overlap and other', () => {
    expect(s.per_process).toHaveLength(1);
    const p = s.per_process[0]!;
    expect(p).toMatchObject({ pid: 4242, name: 'python train.py', host: 'node01', threads: 2, events: 11 });
    // I/O: open 3 + reads 20 + close 1 + lane pread 50 + write 20, all disjoint
    expect(p.io_us).toBe(94);
    // compute (cat compute): forward [50,150] with no children = 100
    expect(p.compute_us).toBe(100);
    // the lane's pread [60,110] runs during forward
    expect(p.overlap_us).toBe(50);
    expect(p.io_only_us).toBe(44);
    expect(p.compute_only_us).toBe(50);
    // other (dataloader fetch [10,41] and data item [11,40]) outside their 24 µs of calls: 7
    expect(p.other_us).toBe(7);
    expect(p.wall_us).toBe(300);
    expect(p.idle_us).toBe(300 - (94 + 100 - 50 + 7));
    expect(s.totals.overlap_us).toBe(50);
  });

  it('counts bytes per file from ret, with names from FH', () => {
    const byFile = Object.fromEntries(s.files.map((f) => [f.file, f]));
    expect(byFile['/data/a.bin']).toMatchObject({ bytes_read: 4196, bytes_written: 0, reads: 2, ops: 4, read_us: 20 });
    expect(byFile['/data/a.bin']!.read_bandwidth).toBeCloseTo(4196 / 20e-6);
    expect(byFile['/data/b.bin']).toMatchObject({ bytes_read: 8192, ops: 1 });
    expect(byFile['/data/out/c.bin']).toMatchObject({ bytes_written: 1000, writes: 1, write_us: 20 });
    expect(s.bytes_read).toBe(4196 + 8192);
    expect(s.bytes_written).toBe(1000);
  });

  it('renders readable tables', () => {
    const text = formatSummary(s);
    expect(text).toMatch(/11 events from 1 trace file, 1 process; wall time 300 µs/);
    expect(text).toMatch(/\/data\/a\.bin/);
    expect(text).toMatch(/Longest events/);
    expect(s.percentiles).toBe('exact');
    expect(text).toMatch(/mean\s+p50\s+p99\s+max/);
    expect(text).not.toMatch(/≈/);
  });

  it('says when p50 and p99 are estimates (beyond EXACT_QUANTILE_MAX events), in the table and under it', () => {
    const text = formatSummary({ ...s, percentiles: 'approximate' });
    expect(text).toMatch(/mean\s+p50 ≈\s+p99 ≈\s+max/);
    expect(text).toContain('p50 ≈ and p99 ≈: t-digest estimates (over 20,000,000 events)');
  });
});

describe('summary figures equal values computed independently', () => {
  it('matches JSON.parse of every line of a synthetic trace and of a second process', async () => {
    const a = join(dir, 'synthA.pfw.gz');
    const b = join(dir, 'synthB.pfw');
    writeSyntheticTrace({ path: a, events: 30_000, seed: 7, memberBytes: 32 * 1024 });
    writeSyntheticTrace({ path: b, events: 8_000, seed: 9, pid: 5151, hostname: 'node02' });
    const s = await summarize([a, b], { threads: 2 });

    const events = [...readTrace(a).events, ...readTrace(b).events];
    const fh = new Map<string, string>();
    for (const e of events) if (e.ph === 'M' && e.name === 'FH') fh.set(String(e.args!.value), String(e.args!.name));
    const x = events.filter((e) => e.ph === 'X');
    expect(s.events).toBe(x.length);
    expect(s.processes).toBe(2);

    // counts and total durations per (cat, name)
    const byName = new Map<string, { count: number; total: number }>();
    for (const e of x) {
      const k = `${e.cat}/${e.name}`;
      const v = byName.get(k) ?? { count: 0, total: 0 };
      v.count++;
      v.total += e.dur;
      byName.set(k, v);
    }
    expect(s.by_name).toHaveLength(byName.size);
    for (const r of s.by_name) expect({ count: r.count, total: r.total_us }).toEqual(byName.get(`${r.cat}/${r.name}`));

    // p50 and p99 as quantile_cont interpolates them, over each name's durations
    const quantile = (xs: number[], q: number) => {
      const h = (xs.length - 1) * q;
      const lo = xs[Math.floor(h)]!;
      return lo + (xs[Math.ceil(h)]! - lo) * (h - Math.floor(h));
    };
    const durs = new Map<string, number[]>();
    for (const e of x) {
      const k = `${e.cat}/${e.name}`;
      if (!durs.has(k)) durs.set(k, []);
      durs.get(k)!.push(e.dur);
    }
    for (const r of s.by_name) {
      const d = durs.get(`${r.cat}/${r.name}`)!.sort((a, b) => a - b);
      expect([r.p50_us, r.p99_us, r.min_us, r.max_us]).toEqual([quantile(d, 0.5), quantile(d, 0.99), d[0], d.at(-1)]);
    }

    // bytes read and written per file
    const files = new Map<string, { read: number; written: number; ops: number }>();
    for (const e of x) {
      if (e.cat !== 'POSIX' || !e.args?.fhash) continue;
      const name = fh.get(String(e.args.fhash))!;
      const v = files.get(name) ?? { read: 0, written: 0, ops: 0 };
      v.ops++;
      const ret = Math.max(0, Number(e.args.ret ?? 0));
      if (READ_CALLS.includes(e.name)) v.read += ret;
      if (WRITE_CALLS.includes(e.name)) v.written += ret;
      files.set(name, v);
    }
    expect(s.files).toHaveLength(files.size);
    for (const f of s.files) expect({ read: f.bytes_read, written: f.bytes_written, ops: f.ops }).toEqual(files.get(f.file));

    expect(s.files_left_out).toBe(0);
    // only the files with most bytes kept, the rest counted
    const few = await summarize([a, b], { threads: 2, filesKept: 3 });
    expect(few.files).toEqual(s.files.slice(0, 3));
    expect(few.files_left_out).toBe(s.files.length - 3);
    expect(formatSummary(few)).toMatch(new RegExp(`Files by directory, most bytes read and written first \\(${s.files.length.toLocaleString('en-US')} files`));

    // wall time and per-process event counts
    const start = Math.min(...x.map((e) => e.ts));
    const end = Math.max(...x.map((e) => e.ts + e.dur));
    expect(s.wall_us).toBe(end - start);
    expect(s.per_process.map((p) => [p.pid, p.events, p.host])).toEqual([
      [4242, x.filter((e) => e.pid === 4242).length, 'node01'],
      [5151, x.filter((e) => e.pid === 5151).length, 'node02'],
    ]);

    // the I/O union of one process, computed by a plain sort-and-sweep
    const ioIntervals = x.filter((e) => e.pid === 5151 && e.cat === 'POSIX' && e.dur > 0).map((e) => [e.ts, e.ts + e.dur] as const);
    ioIntervals.sort((p, q) => p[0] - q[0]);
    let union = 0;
    let reach = -Infinity;
    for (const [s0, e0] of ioIntervals) {
      union += Math.max(0, e0 - Math.max(s0, reach));
      reach = Math.max(reach, e0);
    }
    expect(s.per_process.find((p) => p.pid === 5151)!.io_us).toBe(union);
  });
});

describe('the I/O / compute split', () => {
  it('gives each process of several traces the split it has alone', async () => {
    const a = join(dir, 'splitA.pfw.gz');
    const b = join(dir, 'splitB.pfw.gz');
    writeSyntheticTrace({ path: a, events: 20_000, seed: 3 });
    writeSyntheticTrace({ path: b, events: 12_000, seed: 5, pid: 6161 });
    const split = (s: Summary) => s.per_process.map((p) => [p.pid, p.io_us, p.compute_us, p.overlap_us, p.other_us, p.idle_us]);
    const whole = await summarize([a, b], { threads: 2 });
    expect(whole.per_process.map((p) => [p.pid, p.events])).toEqual([
      [4242, 20_000],
      [6161, 12_000],
    ]);
    expect(whole.totals.io_us).toBeGreaterThan(0);
    expect(whole.totals.compute_us).toBeGreaterThan(0);
    expect(whole.totals.overlap_us).toBeGreaterThan(0);
    expect(split(whole)).toEqual([...split(await summarize([a], { threads: 2 })), ...split(await summarize([b], { threads: 1 }))]);
  });

  it('ignores children with nothing inside their parent', async () => {
    const path = join(dir, 'stray-child.pfw.gz');
    const t0 = 1760934170000000;
    const w = new TraceWriter({ path, pid: 7070 });
    w.header();
    w.start(t0);
    const step = w.begin('step', 'compute', t0 + 100);
    w.complete('read', 'POSIX', t0 + 120, 30, { parent: step }); // inside: hides [120, 150)
    w.exit(step, t0 + 200);
    w.complete('late', 'POSIX', t0 + 250, 10, { parent: step, tid: 7071 }); // after its parent ended
    w.close();
    const p = (await summarize([path], { threads: 1 })).per_process[0]!;
    expect([p.compute_us, p.io_us, p.overlap_us]).toEqual([70, 40, 0]);
  });

  it('splits the events of lines without a pid as one process of their own', async () => {
    const path = join(dir, 'no-pid.pfw');
    const ev = (id: number, name: string, cat: string, ts: number, dur: number, parent: number) =>
      JSON.stringify({ id, name, cat, tid: 1, ts: 1760934170000000 + ts, dur, ph: 'X', args: { level: parent < 0 ? 1 : 2, p_idx: parent } });
    writeFileSync(path, ['[', ev(2, 'read', 'POSIX', 10, 20, 1), ev(1, 'step', 'compute', 0, 100, -1), ''].join('\n'));
    const p = (await summarize([path], { threads: 1 })).per_process;
    expect(p.map((x) => [x.events, x.io_us, x.compute_us])).toEqual([[2, 20, 80]]);
  });
});


describe("the end event's run description", () => {
  it('reads used, app and cfg of each process from the loaded events', async () => {
    const path = join(dir, 'run-info.pfw.gz');
    const w = new TraceWriter({ path, pid: 8181 });
    const t0 = 1_760_000_000_000_000;
    w.header();
    w.start(t0);
    w.complete('read', 'POSIX', t0 + 10, 5, { args: { ret: 10 } });
    const used = ['posix', 'counters'];
    const app = { model: 'cnn', rank: 3 };
    const cfg = { aggregation_enable: true, trace_interval_ms: 250 };
    w.complete('end', 'dftracer', t0 + 100, 0, { args: { num_events: w.records, used, app, cfg }, parent: null });
    w.close();
    const s = await summarize([path], { threads: 1 });
    expect(s.runs).toEqual([{ pid: 8181, used, app, cfg }]);
    expect(formatSummary(s)).toContain('run: used counters, posix; app model=cnn, rank=3; aggregation on (250 ms intervals)');
  });
});
