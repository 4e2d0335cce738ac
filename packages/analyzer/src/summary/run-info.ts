import { END_ROWS_SQL, type Duck } from '../read/duck.js';

/**
 * What each process's `end` event says about its run (DFTracer 2.2's `end` args): the integrations
 * that produced events (`used`), the user's metadata (`app`) and the effective settings (`cfg`).
 * Traces written before these args existed give empty ones.
 */
export interface RunInfo {
  pid: number;
  used: string[];
  app: Record<string, unknown>;
  cfg: Record<string, unknown>;
}

const object = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * The `end` events' descriptions, one per process, from the `run_args` that `loadTraces` keeps in
 * `ev` (their used, app and cfg args).
 */
export async function readRunInfo(duck: Duck): Promise<RunInfo[]> {
  const rows = await duck.all(`SELECT pid, run_args AS args FROM ev WHERE ${END_ROWS_SQL} ORDER BY pid`);
  return rows.map((r) => {
    const args = object(JSON.parse(String(r.args ?? '{}')));
    return {
      pid: Number(r.pid),
      used: Array.isArray(args.used) ? args.used.map(String) : [],
      app: object(args.app),
      cfg: object(args.cfg),
    };
  });
}

const shown = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * One line: the integrations used (all processes), the app metadata (a key whose processes
 * disagree shows each value, `|`-separated) and whether aggregation folded events.
 */
export function formatRunInfo(all: readonly RunInfo[]): string | null {
  // traces written before `end` described the run say nothing here
  const runs = all.filter((r) => r.used.length > 0 || Object.keys(r.app).length > 0 || Object.keys(r.cfg).length > 0);
  if (runs.length === 0) return null;
  const used = [...new Set(runs.flatMap((r) => r.used))].sort();
  const app = new Map<string, Set<string>>();
  for (const r of runs) for (const [k, v] of Object.entries(r.app)) (app.get(k) ?? app.set(k, new Set()).get(k)!).add(shown(v));
  const aggregated = runs.filter((r) => r.cfg.aggregation_enable === true);
  const parts = [`used ${used.length ? used.join(', ') : 'none recorded'}`];
  if (app.size) parts.push(`app ${[...app].map(([k, vs]) => `${k}=${[...vs].join('|')}`).join(', ')}`);
  if (aggregated.length) parts.push(`aggregation on (${[...new Set(aggregated.map((r) => `${shown(r.cfg.trace_interval_ms)} ms`))].join('|')} intervals)`);
  return `run: ${parts.join('; ')}`;
}
