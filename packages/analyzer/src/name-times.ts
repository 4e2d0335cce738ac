/**
 * Self and busy time per category and per name, beside the plain sums (which add up overlapping
 * and nested spans, and so exceed the wall time):
 * - busy: the length of the union of the spans' intervals, per process (then summed over
 *   processes): the wall time during which at least one of them ran;
 * - self: the same union over their *self segments* (each span minus its children), so a span
 *   that waits on nested calls is not also charged for them.
 * Both are at most the process' wall time for every row. Events on GPU device tracks are device
 * time, not host time: they are left out here (see `device.ts`).
 */
import type { Duck } from './duck.js';
import { unionLengthSql } from './intervals-sql.js';

export interface NameTimes {
  self_us: number;
  busy_us: number;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : v == null ? 0 : Number(v));
export const HOST_EVENTS = `ph = 'X' AND NOT coalesce(dev, false) AND cat <> 'dftracer'`;

/**
 * Self and busy µs by `cat` and by `cat\u0000name`, from the loaded `ev` table and the `selfseg`
 * table of self segments (see `summary.ts`).
 */
export async function nameTimes(duck: Duck): Promise<{ byCat: Map<string, NameTimes>; byName: Map<string, NameTimes> }> {
  const spans = `SELECT trace, pid, cat, name, ts, ts + dur AS te FROM ev WHERE ${HOST_EVENTS}`;
  const selfs = `SELECT trace, pid, cat, name, ts, te FROM selfseg WHERE NOT coalesce(dev, false) AND cat <> 'dftracer'`;
  const byCat = new Map<string, NameTimes>();
  const byName = new Map<string, NameTimes>();
  const add = (m: Map<string, NameTimes>, k: string, f: keyof NameTimes, v: number) => {
    const o = m.get(k) ?? { self_us: 0, busy_us: 0 };
    o[f] += v;
    m.set(k, o);
  };
  const per = (src: string, keys: string[]) => `SELECT ${keys.slice(2).join(', ')}, sum(len) AS len FROM (${unionLengthSql(src, keys)}) GROUP BY ALL`;
  // one connection runs one statement at a time; DuckDB parallelises each
  const bn = await duck.all(per(spans, ['trace', 'pid', 'cat', 'name']));
  const sn = await duck.all(per(selfs, ['trace', 'pid', 'cat', 'name']));
  const bc = await duck.all(per(spans, ['trace', 'pid', 'cat']));
  const sc = await duck.all(per(selfs, ['trace', 'pid', 'cat']));
  for (const r of bn) add(byName, `${String(r.cat)}\u0000${String(r.name)}`, 'busy_us', num(r.len));
  for (const r of sn) add(byName, `${String(r.cat)}\u0000${String(r.name)}`, 'self_us', num(r.len));
  for (const r of bc) add(byCat, String(r.cat), 'busy_us', num(r.len));
  for (const r of sc) add(byCat, String(r.cat), 'self_us', num(r.len));
  return { byCat, byName };
}
