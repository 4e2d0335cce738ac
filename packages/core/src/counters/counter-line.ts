import { jsonString } from '../format/line-format.js';

/** A counter sample's series: arg name → number (non-finite values are left out). */
export type CounterValues = Readonly<Record<string, number>>;

/**
 * One counter record (`"ph":"C"`) in DFTracer's field order, as COMMON's agreed format says:
 * `{"id":N,"name":"memory","cat":"sys","pid":P,"tid":T,"ts":US,"ph":"C","args":{"hhash":"…","rss":…}}`.
 * No `dur`, `level` or `p_idx`: a counter is a point in time, not a span. Null when no value is a
 * finite number (a record without series would draw nothing).
 */
export function counterLine(id: number, name: string, cat: string, pid: number, tid: number, ts: number, hhash: string, values: CounterValues): string | null {
  let args = '';
  for (const key in values) {
    const v = values[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    args += `,${jsonString(key)}:${valueText(v)}`;
  }
  if (args === '') return null;
  return `{"id":${id},"name":${jsonString(name)},"cat":${jsonString(cat)},"pid":${pid},"tid":${tid},"ts":${Math.floor(ts)},"ph":"C","args":{"hhash":"${hhash}"${args}}}\n`;
}

/** Integers as they are; fractions (percentages, utilization) to 3 decimals, which is all they carry. */
function valueText(v: number): string {
  if (Number.isInteger(v)) return v === 0 ? '0' : String(v);
  const r = Math.round(v * 1000) / 1000;
  return r === 0 ? '0' : String(r);
}
