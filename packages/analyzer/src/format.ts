/** Human-readable numbers and plain-text tables for the CLI. */

/** 1,234,567 */
export function fmtCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Microseconds as µs / ms / s / min / h, three significant digits. */
export function fmtDuration(us: number): string {
  const a = Math.abs(us);
  if (a < 1000) return `${round3(us)} µs`;
  if (a < 1e6) return `${round3(us / 1e3)} ms`;
  if (a < 60e6) return `${round3(us / 1e6)} s`;
  if (a < 3600e6) return `${round3(us / 60e6)} min`;
  return `${round3(us / 3600e6)} h`;
}

/** Bytes in binary units. */
export function fmtBytes(b: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = b;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${round3(v)} ${units[i]}`;
}

/** Bytes per second. */
export function fmtRate(bytesPerSecond: number): string {
  if (!Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0) return '–';
  return `${fmtBytes(bytesPerSecond)}/s`;
}

/** Share as a percentage with one decimal. */
export function fmtPct(part: number, whole: number): string {
  if (!whole) return '–';
  return `${((100 * part) / whole).toFixed(1)}%`;
}

function round3(x: number): string {
  if (x === 0) return '0';
  const a = Math.abs(x);
  const d = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return x.toFixed(d).replace(/\.0+$|(\.\d*?)0+$/, '$1');
}

/** Shorten from the left: "…/dir/file.bin". */
export function ellipsizeLeft(s: string, max: number): string {
  if (s.length <= max) return s;
  return `…${s.slice(s.length - max + 1)}`;
}

export type Align = 'l' | 'r';

/** A plain-text table with a header rule; `align` per column (default: left). */
export function renderTable(headers: string[], rows: string[][], align: Align[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const cell = (s: string, i: number) => (align[i] === 'r' ? s.padStart(widths[i]!) : s.padEnd(widths[i]!));
  const line = (cells: string[]) => cells.map(cell).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
