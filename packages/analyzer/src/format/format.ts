/** Human-readable numbers and plain-text tables for the CLI. */

/** 1,234,567 */
export function fmtCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Microseconds as µs / ms / s / min / h, three significant digits. */
export function fmtDuration(us: number): string {
  // not known (a percentile of calls that all came folded in aggregated records)
  if (Number.isNaN(us)) return '–';
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

// ANSI/VT escape sequences (CSI, OSC, and the rest of ESC sequences), then any other C0/C1 control or DEL
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?|\u009b[0-?]*[ -/]*[@-~]/g;
// C0 (but the line feed), DEL, C1, and the bidirectional overrides that reorder what a line shows
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as it may reach a terminal: escape sequences and control characters (from event names, file
 * paths, process names) removed, so a trace cannot move the cursor, recolour or retitle it; line
 * breaks kept unless `oneLine`, where they (and tabs) become spaces.
 */
export function terminalSafe(s: string, opts: { oneLine?: boolean } = {}): string {
  let t = s.replace(ESCAPES, '');
  if (opts.oneLine) t = t.replace(/[\t\n\r]/g, ' ');
  return t.replace(CONTROLS, (c) => (c === '\t' ? ' ' : ''));
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
