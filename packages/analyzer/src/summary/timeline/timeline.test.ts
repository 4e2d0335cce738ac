/**
 * The summary's one pass against the plain SQL statement of each figure (unions of intervals and
 * of self segments, by window sorts), on traces with lanes, nesting across threads, events
 * without p_idx (nested by time), appended runs and duplicate ids.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Duck, loadTraces } from '../../read/duck.js';
import { num } from '../../read/numbers.js';
import { tempDir } from '../../test-util/fixtures.test-util.js';
import { unionLengthSql } from '../intervals-sql.js';
import { selfSegmentsSql } from '../intervals-sql.test-util.js';
import { computeSegmentsSql, summarize } from '../summary.js';
import { writeSyntheticTrace } from '../../test-util/synthetic.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);
const fixtures = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'upstream');

/** busy/self per `cat\0name` and per cat, and the I/O and compute unions per process, by SQL. */
async function bySql(file: string): Promise<{ names: Map<string, [number, number]>; cats: Map<string, [number, number]>; split: Map<number, [number, number]> }> {
  const duck = await Duck.open({ threads: 2 });
  try {
    await loadTraces(duck, [file]);
    const [np] = await duck.all(`SELECT count(*) FILTER (WHERE p_idx IS NULL) AS n FROM ev WHERE ph = 'X'`);
    await duck.run(`CREATE TABLE selfseg AS ${selfSegmentsSql({ where: "cat <> 'dftracer'", nestByTime: num(np?.n) > 0 })}`);
    const spans = `SELECT trace, pid, cat, name, ts, ts + dur AS te FROM ev WHERE ph = 'X' AND NOT coalesce(dev, false) AND cat <> 'dftracer'`;
    const selfs = `SELECT trace, pid, cat, name, ts, te FROM selfseg WHERE NOT coalesce(dev, false) AND cat <> 'dftracer'`;
    const per = async (src: string, keys: string[]) =>
      duck.all(`SELECT ${keys.slice(2).join(', ')}, sum(len) AS len FROM (${unionLengthSql(src, keys)}) GROUP BY ALL`);
    const names = new Map<string, [number, number]>();
    const cats = new Map<string, [number, number]>();
    for (const r of await per(spans, ['trace', 'pid', 'cat', 'name'])) names.set(`${r.cat}\u0000${r.name}`, [num(r.len), 0]);
    for (const r of await per(selfs, ['trace', 'pid', 'cat', 'name'])) names.get(`${r.cat}\u0000${r.name}`)![1] = num(r.len);
    for (const r of await per(spans, ['trace', 'pid', 'cat'])) cats.set(String(r.cat), [num(r.len), 0]);
    for (const r of await per(selfs, ['trace', 'pid', 'cat'])) cats.get(String(r.cat))![1] = num(r.len);
    const split = new Map<number, [number, number]>();
    const io = await duck.all(unionLengthSql(`SELECT trace, pid, ts, ts + dur AS te FROM ev WHERE ph = 'X' AND kind = 1`, ['trace', 'pid']));
    const comp = await duck.all(unionLengthSql(`SELECT trace, pid, ts, te FROM (${computeSegmentsSql()})`, ['trace', 'pid']));
    for (const r of await duck.all(`SELECT DISTINCT coalesce(pid, -1) AS pid FROM ev WHERE ph = 'X'`)) split.set(num(r.pid), [0, 0]);
    // (one trace: pid alone names the process)
    for (const r of io) split.get(num(r.pid ?? -1))![0] = num(r.len);
    for (const r of comp) split.get(num(r.pid ?? -1))![1] = num(r.len);
    return { names, cats, split };
  } finally {
    duck.close();
  }
}

async function expectSameAsSql(file: string): Promise<void> {
  const s = await summarize([file], { threads: 2 });
  const want = await bySql(file);
  let checked = 0;
  for (const r of s.by_name) {
    const w = want.names.get(`${r.cat}\u0000${r.name}`) ?? [0, 0];
    expect([r.busy_us, r.self_us], `${r.cat}/${r.name}`).toEqual(w);
    checked += w[0] > 0 ? 1 : 0;
  }
  for (const c of s.by_cat) expect([c.busy_us, c.self_us], c.cat).toEqual(want.cats.get(c.cat) ?? [0, 0]);
  for (const p of s.per_process) expect([p.io_us, p.compute_us], `pid ${p.pid}`).toEqual(want.split.get(p.pid) ?? [0, 0]);
  expect(checked).toBeGreaterThan(0);
}

describe('the one pass gives what the SQL definitions give', () => {
  it('on a synthetic training trace (lanes, nesting across threads)', async () => {
    const path = join(dir, 'synth.pfw.gz');
    writeSyntheticTrace({ path, events: 30_000, seed: 11 });
    await expectSameAsSql(path);
  });

  it('on the same trace without p_idx: children found by nesting on their thread', async () => {
    const path = join(dir, 'synth.pfw');
    writeSyntheticTrace({ path, events: 20_000, seed: 12 });
    const bare = join(dir, 'synth-no-pidx.pfw');
    writeFileSync(bare, readFileSync(path, 'utf8').replace(/,"p_idx":-?\d+/g, ''));
    await expectSameAsSql(bare);
  });

  for (const f of ['2023-appended-runs.pfw', '2024-appended-runs.pfw.gz', '2025-concatenated.pfw.gz', '2023-string-numbers.pfw', 'seed-v1.0.15-dynamo.pfw', 'unterminated-parents.pfw', 'fork-duplicate-ids.pfw', '2025-e2-no-metadata-ids.pfw', '2024-integer-hashes.pfw.gz']) {
    it(`on ${f}`, async () => expectSameAsSql(join(fixtures, f)));
  }
});
