/** Human-readable numbers for the CLI: counts, durations, bytes, rates and shares. */

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

/** Share as a percentage, with one decimal unless `digits` says otherwise. */
export function fmtPct(part: number, whole: number, digits = 1): string {
  if (!whole) return '–';
  return `${((100 * part) / whole).toFixed(digits)}%`;
}

function round3(x: number): string {
  if (x === 0) return '0';
  const a = Math.abs(x);
  const d = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return x.toFixed(d).replace(/\.0+$|(\.\d*?)0+$/, '$1');
}
