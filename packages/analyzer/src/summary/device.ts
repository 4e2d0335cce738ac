/**
 * GPU device time: events with an `args.device_track` are kernels as the GPU ran them, on a track
 * of their own (`webgpu:0`), with `dur` = device time. They count as compute (a union, so the
 * CPU-side dispatch of the same kernel is not counted twice) and never as host time. The device
 * line: busy time (the union of their intervals) as a share of wall time, and the kernels with
 * the most device time (`device_us`, else `dur`). A trace with `device_us` only on thread-track
 * kernel events (no device track) still gets its top kernels.
 */
import type { Duck } from '../read/duck.js';
import { num } from '../read/numbers.js';
import { unionLengthSql } from './intervals-sql.js';

export interface DeviceKernel {
  cat: string;
  name: string;
  count: number;
  device_us: number;
}

export interface DeviceStats {
  /** Device track names (`webgpu:0`). */
  tracks: string[];
  /** Events on device tracks. */
  events: number;
  /** Union of device-track intervals, summed over processes. */
  busy_us: number;
  /** Where the kernel figures came from. */
  source: 'device-track' | 'device_us';
  kernels: DeviceKernel[];
}

/** The device figures, or null when the trace has no device time. */
export async function deviceStats(duck: Duck, top = 10): Promise<DeviceStats | null> {
  const [o] = await duck.all(`SELECT count(*) FILTER (WHERE dev) AS dev, count(*) FILTER (WHERE device_us IS NOT NULL AND NOT dev) AS thr FROM ev WHERE ph = 'X'`);
  const devEvents = num(o?.dev);
  if (devEvents === 0 && num(o?.thr) === 0) return null;
  const source: DeviceStats['source'] = devEvents > 0 ? 'device-track' : 'device_us';
  const [b] = devEvents
    ? await duck.all(`SELECT coalesce(sum(len), 0) AS busy FROM (${unionLengthSql(`SELECT trace, pid, ts, ts + dur AS te FROM ev WHERE ph = 'X' AND dev`, ['trace', 'pid'])})`)
    : [{ busy: 0 }];
  const where = devEvents ? 'dev' : 'device_us IS NOT NULL';
  const kernels = (
    await duck.all(`SELECT cat, name, count(*) AS count, sum(coalesce(device_us, dur)) AS device_us FROM ev
      WHERE ph = 'X' AND ${where} GROUP BY cat, name ORDER BY device_us DESC, name LIMIT ${Math.max(0, Math.floor(top))}`)
  ).map((r): DeviceKernel => ({ cat: String(r.cat), name: String(r.name), count: num(r.count), device_us: num(r.device_us) }));
  const tracks = (await duck.all(`SELECT DISTINCT device_track AS t FROM ev WHERE ph = 'X' AND dev ORDER BY t`)).map((r) => String(r.t));
  return { tracks, events: devEvents, busy_us: num(b?.busy), source, kernels };
}
