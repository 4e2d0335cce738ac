/** The epoch and step views as text tables. */
import { fmtBytes, fmtDuration, fmtPct } from '../format/numbers.js';
import { renderTable } from '../format/table.js';
import type { Phase, PhaseFigures, Phases } from './phases.js';
import { verdict } from './verdict.js';

const cell = (us: number, wall: number) => `${fmtDuration(us)} ${fmtPct(us, wall, 0).padStart(4)}`;

const HEAD = ['wall', 'compute', 'data wait', 'I/O only', 'other', 'idle', 'I/O (all)', 'overlap', 'read'];
const ALIGN = HEAD.map(() => 'r' as const);

function figureCells(f: PhaseFigures): string[] {
  const w = f.wall_us;
  return [fmtDuration(w), cell(f.compute_us, w), cell(f.wait_us, w), cell(f.io_only_us, w), cell(f.other_us, w), cell(f.idle_us, w), fmtDuration(f.io_us), fmtDuration(f.overlap_us), fmtBytes(f.bytes_read)];
}

/** Rows of several processes with the same label (epoch 1 of every rank) summed. */
export function acrossProcesses(rows: Phase[]): Array<PhaseFigures & { label: string; processes: number; verdict: string }> {
  const by = new Map<string, PhaseFigures & { label: string; processes: number; verdict: string }>();
  for (const r of rows) {
    const o = by.get(r.label) ?? { label: r.label, processes: 0, wall_us: 0, compute_us: 0, io_us: 0, wait_us: 0, overlap_us: 0, io_only_us: 0, other_us: 0, idle_us: 0, bytes_read: 0, verdict: '' };
    o.processes++;
    for (const k of ['wall_us', 'compute_us', 'io_us', 'wait_us', 'overlap_us', 'io_only_us', 'other_us', 'idle_us', 'bytes_read'] as const) o[k] += r[k];
    by.set(r.label, o);
  }
  for (const o of by.values()) o.verdict = verdict(o);
  return [...by.values()];
}

/** A table of windows (epochs or steps); with several processes, per process unless `merged`. */
export function phaseTable(rows: Phase[], opts: { processes: number; merged?: boolean; limit?: number }): string {
  const limit = opts.limit ?? Infinity;
  if (opts.processes > 1 && opts.merged) {
    const merged = acrossProcesses(rows);
    const body = merged.slice(0, limit).map((r) => [r.label, String(r.processes), ...figureCells(r), r.verdict]);
    return renderTable(['', 'procs', ...HEAD.map((h) => (h === 'wall' ? 'time (sum)' : h)), 'verdict'], body, ['l', 'r', ...ALIGN, 'l']);
  }
  const multi = opts.processes > 1;
  const body = rows.slice(0, limit).map((r) => [r.label, ...(multi ? [String(r.pid)] : []), ...figureCells(r), r.verdict]);
  return renderTable(['', ...(multi ? ['pid'] : []), ...HEAD, 'verdict'], body, ['l', ...(multi ? ['r' as const] : []), ...ALIGN, 'l']);
}

/** Every step, listed or not. */
const stepCount = (p: Phases): number => p.steps.length + (p.steps_left_out ?? 0);

/** The epoch view, the step statistics and the slowest steps. */
export function formatPhases(p: Phases, opts: { by?: 'epoch' | 'step' | 'auto'; processes: number; top?: number }): string {
  const by = opts.by ?? 'auto';
  const out: string[] = [];
  const note = 'compute + data wait + I/O only + other + idle = wall; data wait = loader waits not overlapped by compute';
  if (by === 'epoch' || (by === 'auto' && p.epochs.length > 0)) {
    out.push(`By epoch (${p.epochs.length} epoch${p.epochs.length === 1 ? '' : 's'}${p.epoch_source === 'args' ? ', from DLIO _train spans' : ''}; ${note})`);
    out.push(p.epochs.length ? phaseTable(p.epochs, { processes: opts.processes, merged: by === 'auto' }) : 'no epochs: no pipeline epoch* spans and no DLIO _train spans');
  }
  if (by === 'step') {
    out.push(`By step (${stepCount(p)} step${stepCount(p) === 1 ? '' : 's'}, from ${p.step_source ?? 'nothing'}; ${note})`);
    out.push(p.steps.length ? phaseTable(p.steps, { processes: opts.processes }) : 'no steps: no compute events with a step arg, ProfilerStep#N, compute step or *.compute spans');
    if (p.steps_left_out > 0) out.push(`… ${p.steps_left_out} more steps not listed (the first ${p.steps.length} are)`);
  }
  if (p.steps.length > 0 && p.median_step) {
    if (out.length) out.push('');
    const m = p.median_step;
    // each median is over all steps, figure by figure: not one step's split, so each is named
    out.push(
      `Steps: ${stepCount(p)} (from ${p.step_source}); median of a step: wall ${fmtDuration(m.wall_us)}, compute ${fmtDuration(m.compute_us)}, data wait ${fmtDuration(m.wait_us)}, I/O only ${fmtDuration(m.io_only_us)}, idle ${fmtDuration(m.idle_us)} (each figure's median over the steps)`,
    );
    const slow = p.slowest_steps.slice(0, opts.top ?? 5);
    out.push(
      renderTable(
        ['slowest steps (most wall first)', ...(opts.processes > 1 ? ['pid'] : []), 'wall', 'at', 'what made it slow'],
        slow.map((s) => [s.label, ...(opts.processes > 1 ? [String(s.pid)] : []), fmtDuration(s.wall_us), `+${fmtDuration(s.start_us - Math.min(...p.processes.map((x) => x.start_us)))}`, s.reason]),
        ['l', ...(opts.processes > 1 ? ['r' as const] : []), 'r', 'r', 'l'],
      ),
    );
  }
  return out.join('\n');
}

