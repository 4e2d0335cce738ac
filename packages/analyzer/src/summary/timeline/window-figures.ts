/**
 * The table `win_fig` (wid, level: 0 process, 1 epoch, 2 step, wall = we − ws, then the
 * WINDOW_FIGURES; all DOUBLE): the sweep's figures of every window, appended a chunk at a time as
 * the sweep passes them. A long run has millions of steps; held in JS their figures grew the peak
 * RSS with the trace, while DuckDB's table is buffer-managed (evicted to its database file) and
 * the epoch and step views read back only what they show (`phases.ts`).
 */
import { DuckDBAppender, DuckDBDataChunk, DuckDBDoubleType, DuckDBDoubleVector } from '@duckdb/node-api';
import type { Duck } from '../../read/duck.js';
import { WINDOW_FIGURES } from './timeline-sweep.js';

/** The table the figures go to. */
export const WINDOW_FIGURES_TABLE = 'win_fig';

/** DuckDB's rows per chunk. */
const CHUNK = 2048;
/** Columns before the figures. */
const LEAD = ['wid', 'level', 'wall'];

export class WindowFigureWriter {
  private readonly cols: Float64Array[];
  private rows = 0;
  private readonly types = Array.from({ length: LEAD.length + WINDOW_FIGURES.length }, () => DuckDBDoubleType.instance);

  private constructor(
    /** A connection of its own: the sweep's query streams on the main one. */
    private readonly duck: Duck,
    private readonly appender: DuckDBAppender,
  ) {
    this.cols = this.types.map(() => new Float64Array(CHUNK));
  }

  /** (Re)creates `win_fig`, empty, and a writer to it. */
  static async open(duck: Duck): Promise<WindowFigureWriter> {
    await duck.run(`CREATE OR REPLACE TABLE ${WINDOW_FIGURES_TABLE} (${[...LEAD, ...WINDOW_FIGURES].map((c) => `${c} DOUBLE`).join(', ')})`);
    const other = await duck.connect();
    try {
      return new WindowFigureWriter(other, await other.conn.createAppender(WINDOW_FIGURES_TABLE));
    } catch (e) {
      other.close();
      throw e;
    }
  }

  /** A window's figures: `TimelineSweep`'s `windowDone`. */
  readonly add = (wid: number, level: number, wall: number, figures: Float64Array): void => {
    const r = this.rows;
    const c = this.cols;
    c[0]![r] = wid;
    c[1]![r] = level;
    c[2]![r] = wall;
    for (let f = 0; f < WINDOW_FIGURES.length; f++) c[LEAD.length + f]![r] = figures[f]!;
    if (++this.rows === CHUNK) this.flush();
  };

  private flush(): void {
    if (this.rows === 0) return;
    const chunk = DuckDBDataChunk.create(this.types, this.rows);
    this.cols.forEach((col, c) => {
      const v = chunk.getColumnVector(c);
      // the vector's values as a Float64Array (the \`items\` field, not in the typings: see duck.ts' copyDoubles), then written back once
      const items = (v as unknown as { items?: unknown }).items;
      if (!(v instanceof DuckDBDoubleVector) || !(items instanceof Float64Array)) throw new TypeError('WindowFigureWriter: a column is not DOUBLE');
      items.set(col.subarray(0, this.rows));
      v.flush();
    });
    this.appender.appendDataChunk(chunk);
    this.rows = 0;
  }

  /** Append what is left and commit (then the main connection sees every row). */
  close(): void {
    try {
      this.flush();
      this.appender.closeSync();
    } finally {
      this.duck.close();
    }
  }
}
