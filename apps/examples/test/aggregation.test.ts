import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readTrace, type TraceEvent } from '@dftracer/testing';
import { expectValid, runExample } from './harness.js';

interface Totals {
  count: number;
  bytes: number;
}

/** Per cat/name of the folded kinds: calls and bytes read or written, from events (1 each) and aggregated records (dft_cnt, ret_sum). */
function totals(records: TraceEvent[]): Map<string, Totals> {
  const out = new Map<string, Totals>();
  for (const e of records) {
    if (!(e.cat === 'POSIX' || (e.cat === 'dynamo' && e.name.startsWith('function.')))) continue;
    const a = (e.args ?? {}) as Record<string, number>;
    const folded = e.ph === 'C';
    const t = out.get(`${e.cat}/${e.name}`) ?? { count: 0, bytes: 0 };
    t.count += folded ? a.dft_cnt! : 1;
    if (e.name === 'read' || e.name === 'write') t.bytes += folded ? (a.ret_sum ?? a.ret!) : a.ret!;
    out.set(`${e.cat}/${e.name}`, t);
  }
  return out;
}

describe('aggregation in a training run', () => {
  it('training-run folded: a fraction of the size, the same calls and bytes per name as unfolded', async () => {
    const plain = await runExample('training-run');
    const folded = await runExample('training-run', { env: { DFTRACER_ENABLE_AGGREGATION: '1' } });
    await expectValid([...plain.files, ...folded.files]);
    const p = readTrace(plain.files[0]!);
    const f = readTrace(folded.files[0]!);
    const a = totals([...p.complete, ...p.counters]);
    const b = totals([...f.complete, ...f.counters]);
    expect(a.get('POSIX/read')!.count).toBeGreaterThanOrEqual(2 * 256);
    expect(a.get('dynamo/function.Conv2D')!.count).toBeGreaterThan(0);
    expect(Object.fromEntries(b)).toEqual(Object.fromEntries(a));
    // the folded kinds left no event behind, and the end event says aggregation was on
    expect(f.complete.filter((e) => e.cat === 'POSIX' || e.name.startsWith('function.'))).toEqual([]);
    expect((f.complete.find((e) => e.name === 'end')!.args as { cfg: Record<string, unknown> }).cfg).toMatchObject({ aggregation_enable: true, trace_interval_ms: 1000 });
    const ratio = statSync(folded.files[0]!).size / statSync(plain.files[0]!).size;
    console.log(`training-run trace: ${statSync(plain.files[0]!).size} B unfolded, ${statSync(folded.files[0]!).size} B folded (${ratio.toFixed(2)}×); ${p.lines.length} → ${f.lines.length} lines`);
    expect(ratio).toBeLessThan(0.75);
  });
});
