/** Plain-text tables for the CLI, and cells that fit them. */
import { terminalSafe } from './terminal-safe.js';

/** Shorten from the left: "…/dir/file.bin". */
export function ellipsizeLeft(s: string, max: number): string {
  if (s.length <= max) return s;
  return `…${s.slice(s.length - max + 1)}`;
}

export type Align = 'l' | 'r';

/** A plain-text table with a header rule; `align` per column (default: left); cells `terminalSafe` on one line. */
export function renderTable(rawHeaders: string[], rawRows: string[][], align: Align[] = []): string {
  // one line per row, whatever a cell holds
  const safe = (c: string | undefined) => terminalSafe(c ?? '', { oneLine: true });
  const headers = rawHeaders.map(safe);
  const rows = rawRows.map((r) => r.map(safe));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const cell = (s: string, i: number) => (align[i] === 'r' ? s.padStart(widths[i]!) : s.padEnd(widths[i]!));
  const line = (cells: string[]) => cells.map(cell).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
