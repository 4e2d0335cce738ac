/**
 * `dftracer query`: SQL over traces. The traces are scanned once into DuckDB and exposed as
 * `events`, `metadata` and `files` (see `loadEvents`); any DuckDB SQL runs on them.
 */
import { Duck, loadEvents, type DuckOptions } from '../read/duck.js';
import { UserError } from '../errors.js';
import { renderTable } from '../format/table.js';

export interface QueryResult {
  columns: string[];
  rows: unknown[][];
}

/** Run `sql` over the traces. SQL errors become one-line user errors. */
export async function queryTraces(sql: string, files: string[], opts: DuckOptions = {}): Promise<QueryResult> {
  const duck = await Duck.open(opts);
  try {
    await loadEvents(duck, files);
    try {
      return await duck.table(sql);
    } catch (e) {
      throw new UserError(`query failed: ${String((e as Error).message).split('\n')[0]}`);
    }
  } finally {
    duck.close();
  }
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A result as a text table, CSV, or JSON rows. */
export function formatQueryResult(r: QueryResult, format: 'table' | 'csv' | 'json', maxRows = Infinity): string {
  if (format === 'json') return JSON.stringify(r.rows.map((row) => Object.fromEntries(r.columns.map((c, i) => [c, row[i] ?? null]))), null, 2);
  if (format === 'csv') {
    const esc = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    return [r.columns.map(esc).join(','), ...r.rows.map((row) => row.map((v) => esc(cell(v))).join(','))].join('\n');
  }
  const shown = r.rows.slice(0, maxRows);
  const numeric = r.columns.map((_, i) => shown.length > 0 && shown.every((row) => row[i] === null || typeof row[i] === 'number'));
  const text = renderTable(
    r.columns,
    shown.map((row) => row.map((v) => cell(v).slice(0, 80))),
    numeric.map((n) => (n ? 'r' : 'l')),
  );
  const more = r.rows.length > shown.length ? `\n… ${r.rows.length - shown.length} more rows (--limit N, or --csv / --json for all)` : '';
  return `${text}\n(${r.rows.length} row${r.rows.length === 1 ? '' : 's'})${more}`;
}
