/**
 * Upstream's own merge output reads as valid: `dftracer_merge` keeps each process's ids (every
 * process numbers its events from 1) and writes a blank line before `]`. The committed fixture
 * `fixtures/upstream-merge/dftracer-merge-cm1-dlio.pfw.gz` is what `dftracer_merge -c` writes for
 * a directory holding two genuine upstream traces (an HPC code's LD_PRELOAD trace, then a DLIO
 * trace with fork children and parents open at finalize): see `upstream-merge.test-util.ts`.
 * Regenerate it with DFTRACER_REGENERATE=1 (needs ../shared/data/upstream-samples).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { dftracerMerge, dftracerMergeText } from './upstream-merge.test-util.js';
import { validateFiles } from '../validate/validate.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURE = resolve(HERE, '..', '..', 'fixtures', 'upstream-merge', 'dftracer-merge-cm1-dlio.pfw.gz');
const SAMPLES = resolve(HERE, '..', '..', '..', '..', '..', 'shared', 'data', 'upstream-samples');
const CM1 = ['cm1-DEFAULT-3537784-preload.pfw.gz', 'cm1-DEFAULT-3537785-preload.pfw.gz'].map((f) => join(SAMPLES, f));
const DLIO = ['dlio-trace-2-of-8.pfw.gz', 'dlio-trace-3-of-8.pfw.gz'].map((f) => join(SAMPLES, f));

const { dir, cleanup } = tempDir();
afterAll(cleanup);

if (process.env.DFTRACER_REGENERATE && existsSync(SAMPLES)) dftracerMerge([CM1[0]!, DLIO[0]!], FIXTURE);

interface Rec {
  id?: number;
  pid: number;
  tid: number;
  ph: string;
  ts?: number;
  dur?: number;
  args?: { p_idx?: number; level?: number };
}

/** The file's own records, read with JSON.parse line by line (no analyzer code). */
function records(text: string): Rec[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Rec);
}

describe('dftracer_merge output (ids per process, a blank line before "]")', () => {
  const text = gunzipSync(readFileSync(FIXTURE)).toString('latin1');
  const recs = records(text);

  it('the fixture has the layout upstream writes: ids repeating across processes, a blank line before "]"', () => {
    expect(text.startsWith('[\n{')).toBe(true);
    expect(text.endsWith('}\n\n]\n')).toBe(true);
    const pids = [...new Set(recs.map((r) => r.pid))];
    expect(pids).toHaveLength(2);
    const idsOf = (pid: number) => new Set(recs.filter((r) => r.pid === pid && r.id !== undefined).map((r) => r.id));
    const shared = [...idsOf(pids[0]!)].filter((id) => idsOf(pids[1]!).has(id));
    expect(shared.length).toBeGreaterThan(2000); // each process numbers its events from 1
  });

  it('validate: valid, with the blank line as a warning, every record of the file counted; --strict fails it', async () => {
    const r = await validateFiles([FIXTURE], { threads: 0 });
    const f = r.files[0]!;
    expect(f.problems).toEqual([]);
    expect(f.events).toBe(recs.filter((x) => x.ph === 'X').length);
    expect(f.metadata).toBe(recs.filter((x) => x.ph === 'M').length);
    expect(f.pids).toBe(2);
    expect(f.runs).toBe(1);
    expect(f.finished).toBe(true);
    expect(f.warnings.join('\n')).toMatch(/empty lines \(DFTracer's dftracer_merge writes one before the closing "\]"\) \(line \d+\)/);
    expect(f.warnings.join('\n')).toMatch(/ids used twice by different threads of one process/); // DLIO's fork children
    const strict = await validateFiles([FIXTURE], { threads: 0, strict: true });
    expect(strict.files[0]!.problems.map((g) => g.kind)).toEqual(['strict']);
  });

  it("a p_idx naming another process's event is a problem, not a match", async () => {
    // a DLIO child pointed at an id that only the cm1 process has: no parent of its own process
    const dlioPid = recs[recs.length - 1]!.pid;
    const dlioMax = Math.max(...recs.filter((r) => r.pid === dlioPid && r.id !== undefined).map((r) => r.id!));
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.includes(`"pid":${dlioPid},`) && /"p_idx":\d+,/.test(l) && l.includes('"ph":"X"'));
    const foreign = dlioMax + 100; // an id of the cm1 process only
    expect(recs.some((r) => r.pid !== dlioPid && r.id === foreign)).toBe(true);
    lines[at] = lines[at]!.replace(/"p_idx":\d+,/, `"p_idx":${foreign},`);
    const broken = join(dir, 'foreign-parent.pfw.gz');
    writeFileSync(broken, gzipSync(lines.join('\n')));
    const f = (await validateFiles([broken], { threads: 0 })).files[0]!;
    expect(f.problems.map((g) => g.kind)).toEqual(['parent']);
    expect(f.problems[0]!.examples[0]).toEqual({ line: at + 1, message: `p_idx ${foreign} names no event of pid ${dlioPid} in the file` });
  });

  describe.skipIf(!existsSync(SAMPLES))('from the genuine traces in ../shared/data/upstream-samples', () => {
    it('the committed fixture is what dftracer_merge writes for them', () => {
      expect(text).toBe(dftracerMergeText([CM1[0]!, DLIO[0]!]));
    });

    it('all four merged, processes interleaved by kind: valid, every record counted', async () => {
      const out = join(dir, 'four.pfw.gz');
      const inputs = [CM1[0]!, DLIO[0]!, CM1[1]!, DLIO[1]!];
      dftracerMerge(inputs, out);
      const all = records(dftracerMergeText(inputs));
      const f = (await validateFiles([out], { threads: 0 })).files[0]!;
      expect(f.problems).toEqual([]);
      expect(f.pids).toBe(4);
      expect(f.events).toBe(all.filter((x) => x.ph === 'X').length);
      expect(f.metadata).toBe(all.filter((x) => x.ph === 'M').length);
    });
  });
});
