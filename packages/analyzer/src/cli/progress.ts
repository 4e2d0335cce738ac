/**
 * A one-line progress bar on stderr, drawn only when stderr is a terminal (never when piped or
 * redirected) and only once work has run for a moment, so small inputs stay quiet. Forced on
 * (`--progress`) where stderr is not a terminal, it writes a plain line when its note changes,
 * at most once a second.
 */
import { fmtBytes } from '../format/numbers.js';

export interface ProgressOptions {
  /** Force on or off (default: stderr is a TTY and NO_PROGRESS/CI are unset). */
  enabled?: boolean;
  /** Draw only after this many ms (default 500). */
  delayMs?: number;
  stream?: NodeJS.WriteStream;
}

export class Progress {
  /** Whether anything is drawn: without it, callers skip DuckDB's progress tracking (1–2 % of its CPU). */
  readonly enabled: boolean;
  private readonly stream: NodeJS.WriteStream;
  private readonly t0 = Date.now();
  private readonly delayMs: number;
  private last = 0;
  private drawn = false;
  /** Plain lines rather than a redrawn bar (stderr is not a terminal). */
  private readonly lines: boolean;
  private lastNote = '';

  constructor(
    private readonly label: string,
    /** Total units (bytes, or 100 for percentages); 0 when unknown. */
    private readonly total: number,
    private readonly unit: 'bytes' | 'percent' = 'bytes',
    opts: ProgressOptions = {},
  ) {
    this.stream = opts.stream ?? process.stderr;
    this.delayMs = opts.delayMs ?? 500;
    this.enabled = opts.enabled ?? (Boolean(this.stream.isTTY) && !process.env.NO_PROGRESS && !process.env.CI);
    this.lines = !this.stream.isTTY;
  }

  /** `{ onProgress }` for a DuckDB-backed command's options, or nothing when no bar is drawn. */
  percentOption(): { onProgress?: (percent: number) => void } {
    return this.enabled ? { onProgress: (p: number) => this.update(p) } : {};
  }

  update(done: number, note = ''): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (this.lines) {
      if (note === this.lastNote || now - this.last < 1000) return;
      this.last = now;
      this.lastNote = note;
      this.stream.write(`${this.label}: ${note} (${((now - this.t0) / 1000).toFixed(0)} s)\n`);
      return;
    }
    if (now - this.t0 < this.delayMs || now - this.last < 100) return;
    this.last = now;
    const cols = Math.max(40, (this.stream.columns ?? 80) - 1);
    const frac = this.total > 0 ? Math.min(1, done / this.total) : 0;
    const elapsed = (now - this.t0) / 1000;
    if (this.unit === 'percent' && done <= 0) {
      // no estimate (DuckDB gives none for gzip input): a spinner and the time
      const spin = '|/-\\'[Math.floor(elapsed * 5) % 4];
      this.stream.write(`\r${`${this.label} ${spin} ${elapsed.toFixed(0)}s ${note}`.trimEnd().slice(0, cols)}\x1b[K`);
      this.drawn = true;
      return;
    }
    const amount =
      this.unit === 'bytes' ? `${fmtBytes(done)}${this.total ? ` / ${fmtBytes(this.total)}` : ''} ${fmtBytes(done / Math.max(elapsed, 0.001))}/s` : `${Math.round(frac * 100)}%`;
    const text = ` ${amount} ${elapsed.toFixed(0)}s ${note}`.trimEnd();
    const barWidth = Math.max(10, cols - this.label.length - text.length - 4);
    const fill = Math.round(frac * barWidth);
    const line = `${this.label} [${'#'.repeat(fill)}${'.'.repeat(barWidth - fill)}]${text}`;
    this.stream.write(`\r${line.slice(0, cols)}`);
    this.drawn = true;
  }

  /** Erase the bar. */
  done(): void {
    if (this.lines) return;
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}
