import { writeFileSync } from 'node:fs';

const HH = '0123456789abcdef';

/**
 * A trace as the core writes it: 2 epochs of `steps` training steps (10 ms each, events with epoch
 * and step args), with `sys` counters and `tfjs` memory samples 4 per step that rise and fall
 * inside a step and keep `leak` tensors (of 1 KiB each) per step after a 2-step warm-up.
 */
export function trainingTrace(path: string, leak: number, pid = 4242, steps = 25): string {
  const lines = ['['];
  let id = 0;
  const rec = (o: object) => lines.push(JSON.stringify(o));
  const t0 = 1_700_000_000_000_000;
  rec({ id: ++id, name: 'HH', cat: 'dftracer', pid, tid: pid, ph: 'M', args: { hhash: HH, name: 'host', value: HH } });
  rec({ id: ++id, name: 'start', cat: 'dftracer', pid, tid: pid, ts: t0, dur: 0, ph: 'X', args: { hhash: HH, level: 1, p_idx: -1 } });
  let ts = t0 + 1000;
  let live = 100;
  for (let epoch = 1; epoch <= 2; epoch++) {
    for (let step = 1; step <= steps; step++) {
      rec({ id: ++id, name: 'step', cat: 'compute', pid, tid: pid, ts, dur: 9000, ph: 'X', args: { hhash: HH, level: 1, p_idx: -1, epoch, step } });
      if (epoch === 1 && step <= 2) live += 20; // the optimizer's state
      else live += leak;
      for (let k = 0; k < 4; k++) {
        const inside = k === 0 ? 0 : 7 + k; // temporaries of the step
        const at = ts + 500 + k * 2500;
        rec({ id: ++id, name: 'memory', cat: 'tfjs', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, num_tensors: live + inside, num_data_buffers: live + inside, num_bytes: (live + inside) * 1024 } });
        rec({ id: ++id, name: 'memory', cat: 'sys', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, rss: 100_000_000 + k * 1000, heap_used: 20_000_000 + k * 10 } });
        rec({ id: ++id, name: 'cpu', cat: 'sys', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, user_pct: 90, system_pct: 10 } });
        rec({ id: ++id, name: 'gc', cat: 'sys', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, pause_us: 100, count: 1 } });
        rec({ id: ++id, name: 'event_loop', cat: 'sys', pid, tid: pid, ts: at, ph: 'C', args: { hhash: HH, utilization: 1, delay_p50_us: 2000, delay_max_us: 9000 } });
      }
      ts += 10_000;
    }
  }
  rec({ id: ++id, name: 'end', cat: 'dftracer', pid, tid: pid, ts, dur: 0, ph: 'X', args: { hhash: HH, level: 1, p_idx: -1, num_events: lines.length - 1 } });
  lines.push(']');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
