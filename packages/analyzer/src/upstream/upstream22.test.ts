/**
 * DFTracer 2.2's layout (integer ph, no brackets, `type`, aggregated records after `end`,
 * entities): the committed fixtures (built by `upstream22.test-util.ts` from upstream's writer
 * format strings) and a directory mixing them with our layout. Expected figures come from the
 * fixtures' own records, parsed here with JSON.parse.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_CALLS, WRITE_CALLS } from '../read/duck.js';
import { exportPerfetto } from '../export/export-perfetto.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { resolveInputs } from '../read/inputs.js';
import { mergeTraces } from '../merge/merge.js';
import { queryTraces } from '../query/query.js';
import { summarize } from '../summary/summary.js';
import { ENTITY_CKPT, ENTITY_DATA, V22_FILES, V22_MIXED, V22_RUN, writeV22Fixtures } from './upstream22.test-util.js';
import { validateFiles } from '../validate/validate.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = resolve(HERE, '..', '..', 'fixtures', 'upstream');
const { dir, cleanup } = tempDir();
afterAll(cleanup);

type Rec = { id?: number; name: string; cat: string; ph: string | number; ts?: number; dur?: number; pid: number; args?: Record<string, unknown> };

function text(file: string): string {
  const raw = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
}

/** Every record of a file (bracket lines skipped), by JSON.parse. */
function records(file: string): Rec[] {
  return text(file)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && l !== '[' && l !== ']')
    .map((l) => JSON.parse(l) as Rec);
}

const isComplete = (r: Rec) => r.ph === 1 || r.ph === 'X';
const isAggregated = (r: Rec) => r.ph === 3 || (r.ph === 'C' && r.args?.dft_cnt !== undefined);
const isCounter = (r: Rec) => r.ph === 2 || (r.ph === 'C' && r.args?.dft_cnt === undefined);
const n = (v: unknown) => Number(v ?? 0);

/** Calls, time and bytes from the records: a complete event is one call; an aggregated record dft_cnt calls taking dur_sum. */
function expected(files: string[]) {
  let events = 0;
  let read = 0;
  let written = 0;
  const byName = new Map<string, { count: number; total_us: number }>();
  for (const f of files) {
    for (const r of records(f)) {
      if (!isComplete(r) && !isAggregated(r)) continue;
      const a = r.args ?? {};
      const agg = isAggregated(r);
      const calls = agg ? n(a.dft_cnt) : 1;
      const us = agg ? n(a.dur_sum ?? a.dur) : n(r.dur);
      // bytes: ret (summed when folded), times the item size of fread/fwrite (one size in the fold)
      const size = r.name === 'fread' || r.name === 'fwrite' ? n(a.size ?? (a.size_min === a.size_max ? a.size_min : undefined) ?? 1) : 1;
      const bytes = Math.max(0, n(a.ret_sum ?? a.ret ?? a.count_sum ?? a.count)) * size;
      events += calls;
      if (READ_CALLS.includes(r.name)) read += bytes;
      if (WRITE_CALLS.includes(r.name)) written += bytes;
      const k = `${r.cat}/${r.name}`;
      const s = byName.get(k) ?? { count: 0, total_us: 0 };
      s.count += calls;
      s.total_us += us;
      byName.set(k, s);
    }
  }
  return { events, read, written, byName };
}

const run = join(FIXTURES, V22_RUN);
const mixed = join(FIXTURES, V22_MIXED);
const mixedFiles = V22_FILES.filter((f) => f.startsWith(`${V22_MIXED}/`)).map((f) => join(FIXTURES, f));
/** The directory, as the CLI expands it. */
const mixedDir = () => resolveInputs([mixed]);

describe('DFTracer 2.2 layout', () => {
  it('the committed fixtures are what the test helper writes, and hold every record kind', () => {
    for (const g of writeV22Fixtures(dir)) {
      const committed = join(FIXTURES, g.slice(dir.length + 1));
      expect(existsSync(committed), committed).toBe(true);
      expect(text(committed), committed).toBe(text(g));
    }
    const recs = records(run);
    expect(new Set(recs.map((r) => r.ph))).toEqual(new Set([1, 2, 3, 4]));
    const end = recs.findIndex((r) => r.name === 'end');
    expect(recs.slice(end + 1).every(isAggregated)).toBe(true);
    expect(recs.slice(end + 1).length).toBeGreaterThan(0);
    expect(new Set(recs.map((r) => (r as { type?: number }).type))).toEqual(new Set([1, 3, 6, 7, 14, 42]));
    expect(recs.filter((r) => ['EH', 'ET', 'ER'].includes(r.name)).length).toBe(4);
  });

  it('validate: no problems on 2.2 files and on the mixed directory', async () => {
    const r = await validateFiles([run, ...mixedFiles], { threads: 0 });
    for (const v of r.files) {
      expect(v.problems, `${v.file}: ${JSON.stringify(v.problems)}`).toEqual([]);
      expect(v.events, v.file).toBe(records(v.file).filter(isComplete).length);
    }
  });

  it('validate: a relation naming an entity no EH record defines is a warning at its line (an error under --strict)', async () => {
    const bad = join(dir, 'dangling.pfw');
    const lines = text(run).split('\n');
    const at = lines.findIndex((l) => l.includes('"name":"ER"'));
    lines[at] = lines[at]!.replace(`"object":"${ENTITY_DATA}"`, '"object":"00000000deadbeef"');
    writeFileSync(bad, lines.join('\n'));
    const v = (await validateFiles([bad], { threads: 0 })).files[0]!;
    expect(v.problems).toEqual([]);
    expect(v.warnings).toEqual([`relations name entities no EH record defines (e.g. 00000000deadbeef) (line ${at + 1})`]);
    const strict = (await validateFiles([bad], { threads: 0, strict: true })).files[0]!;
    expect(strict.problems.map((p) => p.kind)).toEqual(['strict']);
  });

  it('validate: a 2.2 end whose num_events is not its id − 1 is a problem', async () => {
    const bad = join(dir, 'bad-end.pfw');
    writeFileSync(bad, text(run).replace(/"num_events":(\d+)/, (_, n: string) => `"num_events":${Number(n) - 1}`));
    const v = (await validateFiles([bad], { threads: 0 })).files[0]!;
    expect(v.problems.map((p) => p.kind)).toEqual(['num-events']);
  });

  for (const [label, files, input] of [
    ['a 2.2 trace', [run], [run]],
    ['a directory mixing 2.2 and our layout', mixedFiles, mixedDir()],
  ] as const) {
    it(`summary counts the calls, times and bytes of ${label} exactly (aggregated records as dft_cnt calls)`, async () => {
      const want = expected([...files]);
      const s = await summarize([...input], { threads: 1 });
      expect(s.warnings).toEqual([]);
      expect([s.events, s.bytes_read, s.bytes_written]).toEqual([want.events, want.read, want.written]);
      const folded = s.by_name.find((x) => x.cat === 'POSIX' && x.name === 'read')!;
      expect([folded.count, folded.total_us]).toEqual([want.byName.get('POSIX/read')!.count, want.byName.get('POSIX/read')!.total_us]);
      for (const x of s.by_name) if (x.cat !== 'dftracer') expect([x.cat, x.name, x.count, x.total_us]).toEqual([x.cat, x.name, want.byName.get(`${x.cat}/${x.name}`)?.count, want.byName.get(`${x.cat}/${x.name}`)?.total_us]);
      expect(s.per_process.reduce((a, p) => a + p.events, 0)).toBe(want.events);
      // counters of either layout are counter samples; aggregated records are not
      const q = await queryTraces('SELECT count(DISTINCT (trace, pid, ts)) FROM counters', [...input], { threads: 1 });
      expect(Number(q.rows[0]![0])).toBe(files.flatMap(records).filter(isCounter).length);
    });
  }

  it('query answers which data a checkpoint came from (ER) and which events used or generated it (args.relations)', async () => {
    const q = await queryTraces(
      `SELECT c.uri AS checkpoint, d.uri AS data FROM entity_relations r JOIN entities c ON c.id = r.subject JOIN entities d ON d.id = r.object WHERE c.type = 'checkpoint'`,
      [run],
      { threads: 1 },
    );
    expect(q.rows).toEqual([['/p/ckpt/model-1.pt', '/p/data/train']]);
    const ev = await queryTraces(`SELECT name, relation, entity FROM event_relations ORDER BY event_id`, [run], { threads: 1 });
    const want = records(run)
      .filter((r) => isComplete(r) && r.args?.relations)
      .flatMap((r) => Object.entries(r.args!.relations as Record<string, string[]>).flatMap(([k, ids]) => ids.map((id) => [r.name, k, id])));
    expect(ev.rows).toEqual(want);
    expect(want).toEqual([
      ['train_step', 'used', ENTITY_DATA],
      ['write', 'generated', ENTITY_CKPT],
    ]);
  });

  it('query: events carry the 2.2 type and its layer name (UNKNOWN past the enum; null in our layout)', async () => {
    const q = await queryTraces(`SELECT name, type, layer FROM events WHERE name IN ('read', 'cudaMemcpy', 'probe', 'train_step') ORDER BY trace, ts`, mixedDir(), { threads: 1 });
    const want = mixedFiles
      .flatMap((f) => records(f))
      .filter((r) => isComplete(r) && ['read', 'cudaMemcpy', 'probe', 'train_step'].includes(r.name))
      .map((r) => {
        const t = (r as { type?: number }).type;
        return [r.name, t ?? null, t === undefined ? null : ({ 3: 'LIBC_IO', 6: 'PYTHON', 14: 'CUDA' } as Record<number, string>)[t] ?? 'UNKNOWN'];
      });
    expect(q.rows.length).toBe(want.length);
    expect(new Set(q.rows.map((r) => JSON.stringify(r)))).toEqual(new Set(want.map((r) => JSON.stringify(r))));
    expect(want.some((r) => r[2] === 'UNKNOWN')).toBe(true);
    expect(want.some((r) => r[1] === null)).toBe(true);
  });

  it('export --perfetto of the mixed directory is one Chrome-trace JSON array with letter phases', async () => {
    const out = join(dir, 'mixed.json');
    expect([...mixedDir()].sort()).toEqual([...mixedFiles].sort());
    const r = await exportPerfetto(mixedDir(), out, { threads: 1 });
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { ph: unknown }[] | { traceEvents: { ph: unknown }[] };
    const evs = Array.isArray(doc) ? doc : doc.traceEvents;
    expect(evs.every((e) => typeof e.ph === 'string' && /^[A-Za-z]$/.test(e.ph))).toBe(true);
    const complete = mixedFiles.flatMap(records).filter(isComplete).length;
    expect(r.events).toBe(complete);
    expect(evs.filter((e) => e.ph === 'X').length).toBe(complete);
  });

  it('merge: a directory mixing layouts becomes one valid trace in our layout with every record', async () => {
    const out = join(dir, 'merged.pfw');
    const m = await mergeTraces(mixedDir(), out, {});
    expect(m.warnings).toEqual([]);
    const v = (await validateFiles([out], { threads: 0 })).files[0]!;
    expect(v.problems, JSON.stringify(v.problems)).toEqual([]);
    const lines = text(out).split('\n');
    expect(lines[0]).toBe('[');
    const merged = records(out);
    expect(merged.every((r) => typeof r.ph === 'string')).toBe(true);
    const src = mixedFiles.flatMap(records);
    expect(merged.filter(isComplete).length).toBe(src.filter(isComplete).length);
    expect(merged.filter(isAggregated).length).toBe(src.filter(isAggregated).length);
    const s = await summarize([out], { threads: 1 });
    const want = expected(mixedFiles);
    expect([s.events, s.bytes_read, s.bytes_written]).toEqual([want.events, want.read, want.written]);
  });
});
