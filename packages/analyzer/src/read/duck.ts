/**
 * The query engine: DuckDB (`@duckdb/node-api`, binaries inside the npm package). It reads the
 * traces staged as plain NDJSON (`staging.ts`: decompressed in Node, every record counted) with
 * `read_json(…, format='newline_delimited', ignore_errors=true)`, in parallel and with a memory
 * limit, spilling to a temporary directory beyond it; every load is checked against the count.
 *
 * `loadTraces()` scans the inputs once into a temporary table; every command then queries that.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBDoubleVector, DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readJsonSql, sqlString } from './read-json.js';
import { countersFromRaw } from '../counters/counter-table.js';
import { TRACE_TYPES } from './layout22.js';
import { assertAllRead, ReadShortError, stageTraces, type StagedTrace } from './staging.js';

export interface DuckOptions {
  /** Worker threads (default: one per core). */
  threads?: number;
  /** DuckDB memory limit, e.g. "1GB" (default `defaultMemoryLimit(threads)`); beyond it DuckDB spills to a temp directory. */
  memoryLimit?: string;
  /** Called with 0–100 while a long query runs. */
  onProgress?: (percent: number) => void;
}

export type Row = Record<string, unknown>;

/** The typed arrays `Duck.numbers` fills. */
export type NumberArray = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array;

/**
 * DuckDB's memory limit unless one is given (`defaultMemoryLimit`): small, so that DuckDB's share
 * of memory stays nearly flat as traces grow (loading 10 M events: 330–440 MiB RSS at 256MB,
 * 650–820 MiB at 1GB, for no gain in time). Table data lives in a database file in a private temp
 * directory, so DuckDB can evict it (a temporary table loads faster but is slower to read back,
 * and past a few million events it spills uncompressed: slower and larger than the file's table).
 * The JSON scan takes buffers of 32 MiB per thread (128MB with two threads ran out); 160MB rather
 * than 256MB took the peak RSS of summary at 10 M events from 504 to 452 MiB at no cost in time.
 */
export function defaultMemoryLimit(threads: number): string {
  return `${Math.max(160, 64 + 48 * threads)}MB`;
}

/**
 * The default limit once the traces are loaded (`Duck.loaded`): the JSON scan's buffers are no
 * longer needed, and the sorts and groupings that follow spill rather than hold the table's pages
 * (2 M events, two threads: peak RSS 318–370 → 278–302 MiB at 96MB, the same CPU).
 */
export function loadedMemoryLimit(threads: number): string {
  return `${Math.max(96, 32 + 32 * threads)}MB`;
}

/** Plain JS value: BIGINT and HUGEINT become numbers, lists and structs are walked. */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = plain(x);
    return o;
  }
  return v;
}

/** A DuckDB database in memory, with its own spill directory. */
export class Duck {
  /** Traces staged for DuckDB (`stage`), by input path; shared with `connect()`ed handles. */
  private staged = new Map<string, StagedTrace>();

  private constructor(
    private readonly instance: DuckDBInstance,
    readonly conn: DuckDBConnection,
    /** A private temporary directory (DuckDB spills here; removed by `close()`). */
    readonly tempDir: string,
    private readonly onProgress?: (percent: number) => void,
    /** A second connection of `connect()`: closing it leaves the database alone. */
    private readonly borrowed = false,
    /** DuckDB's threads, and whether the memory limit is the default one (else the user's, left alone). */
    private readonly limits = { threads: 1, byDefault: false },
  ) {}

  /** The traces are loaded: a default memory limit goes down to `loadedMemoryLimit`. */
  async loaded(): Promise<void> {
    if (this.limits.byDefault) await this.conn.run(`SET memory_limit = '${loadedMemoryLimit(this.limits.threads)}'`);
  }

  /**
   * Give DuckDB's freed memory back to the system now: setting the memory limit (to the one in
   * force) flushes its allocator, which otherwise keeps tens of MiB after each big query.
   */
  async release(): Promise<void> {
    const [{ m } = {}] = await this.all(`SELECT current_setting('memory_limit') AS m`);
    await this.conn.run(`SET memory_limit = ${sqlString(String(m))}`);
  }

  /** Run `scan` (another read of the staged traces) with the default limit of a load: the JSON scan's buffers need it. */
  async scanning<T>(scan: () => Promise<T>): Promise<T> {
    if (!this.limits.byDefault) return scan();
    await this.conn.run(`SET memory_limit = '${defaultMemoryLimit(this.limits.threads)}'`);
    try {
      return await scan();
    } finally {
      await this.loaded();
    }
  }

  /**
   * Another connection to the same database, for a query that should run while this one is busy
   * (DuckDB runs one statement per connection at a time). Close it before this one.
   */
  async connect(): Promise<Duck> {
    const conn = await this.instance.connect();
    const other = new Duck(this.instance, conn, this.tempDir, undefined, true, this.limits);
    other.staged = this.staged;
    return other;
  }

  /**
   * Stage the traces for DuckDB (`staging.ts`): decompressed into this database's temp directory,
   * records counted. Files staged before are not read again.
   */
  async stage(files: readonly string[]): Promise<StagedTrace[]> {
    const todo = [...new Set(files.filter((f) => !this.staged.has(f)))];
    if (todo.length > 0) {
      const base = this.staged.size;
      const done = await stageTraces(todo, this.tempDir, base);
      for (const t of done) this.staged.set(t.file, t);
    }
    return this.stagedFor(files);
  }

  /** The staged traces of `files`, with `index` their position in `files`. */
  stagedFor(files: readonly string[]): StagedTrace[] {
    return files.map((f, index) => {
      const t = this.staged.get(f);
      if (!t) throw new TypeError(`Duck: ${f} was not staged (call stage() first)`);
      return { ...t, index };
    });
  }

  static async open(opts: DuckOptions = {}): Promise<Duck> {
    const tempDir = mkdtempSync(join(tmpdir(), 'dftracer-duck-'));
    // A database file in the private temp directory rather than ':memory:': its table data is
    // buffer-managed and can be evicted to disk, which keeps memory flat as traces grow.
    const dbPath = join(tempDir, 'traces.duckdb');
    const threads = Math.max(1, opts.threads ?? availableParallelism());
    const instance = await DuckDBInstance.create(dbPath, {
      threads: String(threads),
      memory_limit: opts.memoryLimit ?? defaultMemoryLimit(threads),
      temp_directory: tempDir,
      preserve_insertion_order: 'false',
      // freed memory goes back to the system as the scan runs, not at its end: 40–60 MiB less peak RSS
      allocator_background_threads: 'true',
      enable_external_access: 'true',
    });
    const conn = await instance.connect();
    // the database goes with its temp directory at close: a checkpoint then would write its tables
    // out for nothing (at 10 M events, 55 MiB of RSS above the last statement's)
    await conn.run('PRAGMA disable_checkpoint_on_shutdown');
    // DuckDB tracks query progress only with its progress bar on; it must not print it itself
    if (opts.onProgress) await conn.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
    return new Duck(instance, conn, tempDir, opts.onProgress, false, { threads, byDefault: opts.memoryLimit === undefined });
  }

  /** Run a statement, reporting progress while it runs. */
  async run(sql: string): Promise<void> {
    await this.withProgress(() => this.conn.run(sql));
  }

  /** Run a query; rows as plain objects (numbers instead of bigints). */
  async all(sql: string): Promise<Row[]> {
    const reader = await this.withProgress(() => this.conn.runAndReadAll(sql));
    return (reader.getRowObjectsJS() as Row[]).map((r) => plain(r) as Row);
  }

  /** A query's rows as arrays, with column names. */
  async table(sql: string): Promise<{ columns: string[]; rows: unknown[][] }> {
    const reader = await this.withProgress(() => this.conn.runAndReadAll(sql));
    return { columns: reader.columnNames(), rows: reader.getRowsJS().map((r) => r.map(plain)) };
  }

  /**
   * A query's columns as typed arrays, streamed chunk by chunk: every column must be DOUBLE and
   * never NULL; `arrays` gives each column's array type (values convert as `TypedArray.set`
   * does, so a small integer column can be a Uint8Array). For tens of millions of values, where
   * row objects would cost seconds. `expectedRows` sizes the arrays up front (they grow if short).
   */
  async numbers<T extends NumberArray[]>(sql: string, arrays: { [K in keyof T]: new (length: number) => T[K] }, expectedRows = 0): Promise<{ rows: number; columns: T }> {
    return this.withProgress(async () => {
      const result = await this.conn.stream(sql);
      if (result.columnCount !== arrays.length) throw new TypeError(`Duck.numbers: ${result.columnCount} columns for ${arrays.length} arrays`);
      let capacity = Math.max(2048, expectedRows);
      const columns = arrays.map((A) => new A(capacity)) as NumberArray[];
      let rows = 0;
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        const n = chunk.rowCount;
        if (rows + n > capacity) {
          capacity = Math.max(capacity * 2, rows + n);
          columns.forEach((a, j) => {
            const b = new arrays[j]!(capacity);
            b.set(a.subarray(0, rows));
            columns[j] = b;
          });
        }
        for (let j = 0; j < columns.length; j++) copyDoubles(chunk.getColumnVector(j), columns[j]!, rows, n);
        rows += n;
      }
      return { rows, columns: columns.map((a) => a.subarray(0, rows)) as T };
    });
  }

  /**
   * A query's rows streamed chunk by chunk (DuckDB's, 2048 rows) as `columns` Float64Arrays (every
   * column DOUBLE and never NULL), reused between calls: memory stays one chunk however many rows.
   */
  async chunks(sql: string, columns: number, onChunk: (cols: Float64Array[], rows: number) => void): Promise<number> {
    return this.withProgress(async () => {
      const result = await this.conn.stream(sql);
      if (result.columnCount !== columns) throw new TypeError(`Duck.chunks: ${result.columnCount} columns for ${columns}`);
      let cols: Float64Array[] = [];
      let total = 0;
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        const n = chunk.rowCount;
        if (cols.length === 0 || cols[0]!.length < n) cols = Array.from({ length: columns }, () => new Float64Array(Math.max(n, 2048)));
        for (let j = 0; j < columns; j++) copyDoubles(chunk.getColumnVector(j), cols[j]!, 0, n);
        onChunk(cols, n);
        total += n;
      }
      return total;
    });
  }

  /**
   * A one-column query's values as strings (NULL as null), streamed chunk by chunk: for a hundred
   * thousand values, where `all`'s row objects would cost tens of MiB on the way.
   */
  async strings(sql: string): Promise<Array<string | null>> {
    return this.withProgress(async () => {
      const result = await this.conn.stream(sql);
      if (result.columnCount !== 1) throw new TypeError(`Duck.strings: ${result.columnCount} columns for 1`);
      const out: Array<string | null> = [];
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        const v = chunk.getColumnVector(0);
        for (let i = 0; i < chunk.rowCount; i++) {
          const x = v.getItem(i);
          out.push(x === null || x === undefined ? null : String(x));
        }
      }
      return out;
    });
  }

  private async withProgress<T>(f: () => Promise<T>): Promise<T> {
    if (process.env.DFTRACER_TIMING) {
      // DFTRACER_TIMING=1: each statement's time on stderr
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const stack = new Error().stack?.split('\n')[3]?.trim() ?? '';
      try {
        return await this.timed(f);
      } finally {
        const c = process.cpuUsage(c0);
        const m = process.memoryUsage();
        const mib = (b: number) => `${Math.round(b / 1048576)} MiB`;
        process.stderr.write(`[duckdb ${((performance.now() - t0) / 1000).toFixed(3)} s, cpu ${((c.user + c.system) / 1e6).toFixed(3)} s, rss ${Math.round(process.memoryUsage.rss() / 1048576)} MiB (JS heap ${mib(m.heapUsed)}, buffers ${mib(m.external)}), peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB] ${stack}\n`);
        // DFTRACER_TIMING=2: and DuckDB's buffer-managed memory by tag (what its memory limit counts)
        if (process.env.DFTRACER_TIMING === '2') {
          const tags = (await this.conn.runAndReadAll(`SELECT tag, memory_usage_bytes AS m, temporary_storage_bytes AS t FROM duckdb_memory() WHERE m + t > 0 ORDER BY m DESC`)).getRowObjectsJS();
          process.stderr.write(`  duckdb memory: ${tags.map((r) => `${String(r.tag)} ${mib(Number(r.m))}${Number(r.t) > 0 ? ` (+${mib(Number(r.t))} spilled)` : ''}`).join(', ')}\n`);
        }
      }
    }
    return this.timed(f);
  }

  private async timed<T>(f: () => Promise<T>): Promise<T> {
    if (!this.onProgress) return f();
    const timer = setInterval(() => {
      const p = this.conn.progress;
      if (p.percentage >= 0) this.onProgress!(p.percentage);
    }, 200);
    try {
      return await f();
    } finally {
      clearInterval(timer);
    }
  }

  close(): void {
    if (this.borrowed) {
      this.conn.closeSync();
      return;
    }
    try {
      this.conn.closeSync();
      this.instance.closeSync();
    } finally {
      rmSync(this.tempDir, { recursive: true, force: true });
    }
  }
}

/**
 * Copy a DOUBLE vector's n values into `out` at `at`. The vector's values are a Float64Array over
 * DuckDB's own memory (the `items` field, not in the typings): one copy instead of n calls.
 */
function copyDoubles(v: unknown, out: NumberArray, at: number, n: number): void {
  if (!(v instanceof DuckDBDoubleVector)) throw new TypeError('Duck.numbers: every column must be DOUBLE');
  const items = (v as unknown as { items?: unknown }).items;
  if (items instanceof Float64Array && items.length >= n) out.set(items.subarray(0, n), at);
  else for (let i = 0; i < n; i++) out[at + i] = v.getItem(i) ?? NaN;
}

/** Something reading left out of the analysis, about one input file. */
export interface ReadWarning {
  file: string;
  message: string;
}

/** What loading found that the analysis leaves out. */
export interface LoadReport {
  warnings: ReadWarning[];
}

/**
 * After `table` was filled from `readJsonSql(staged, …)` with every row (a `trace` column, all-null
 * rows for lines DuckDB could not read): check that every record has its row (`ReadShortError`
 * otherwise), then delete the rows without `ph` or `name`, counted in a warning per file.
 */
async function checkLoaded(duck: Duck, table: string, staged: readonly StagedTrace[], stage: string): Promise<LoadReport> {
  const rows = await duck.all(`SELECT trace, count(*) AS n, count(*) FILTER (WHERE ph IS NULL OR name IS NULL) AS unread FROM ${table} GROUP BY trace`);
  await assertAllRead(staged, new Map(rows.map((r) => [Number(r.trace), Number(r.n)])), stage);
  const warnings: ReadWarning[] = [];
  for (const t of staged) if (t.gzipError) warnings.push({ file: t.file, message: `${t.gzipError}; only its complete part was read` });
  const unread = rows.filter((r) => Number(r.unread) > 0);
  if (unread.length > 0) {
    await duck.run(`DELETE FROM ${table} WHERE ph IS NULL OR name IS NULL`);
    for (const r of unread) {
      const n = Number(r.unread);
      warnings.push({
        file: staged.find((t) => t.index === Number(r.trace))!.file,
        message: `${n.toLocaleString('en-US')} record${n === 1 ? '' : 's'} left out: not JSON, a field of the wrong type, or no "ph"/"name" (dftracer validate names them)`,
      });
    }
  }
  return { warnings };
}

/** Longest time an event may take, and farthest it may lie from its process's median start: a year, in µs. */
export const IMPOSSIBLE_US = 366 * 24 * 3600 * 1e6;

/**
 * Delete from `ev` the complete events whose times cannot be true — no or negative `ts` or `dur`,
 * a `dur` over a year, a `ts` over a year from the median of its process's events (a zero or a
 * garbled timestamp that would make the wall time decades) — and say how many in a warning.
 */
async function excludeImpossibleTimes(duck: Duck, files: readonly string[]): Promise<ReadWarning[]> {
  // one cheap pass first: in the usual trace no time is missing or negative and every process's
  // events lie within a year of each other, so none can be a year from the median
  const simple = `ts IS NULL OR dur IS NULL OR ts < 0 OR dur < 0 OR dur > ${IMPOSSIBLE_US}`;
  const [probe] = await duck.all(`SELECT coalesce(sum(bad), 0) AS bad, coalesce(max(span), 0) AS span FROM (
      SELECT count(*) FILTER (WHERE ${simple}) AS bad, max(ts) FILTER (WHERE ts >= 0) - min(ts) FILTER (WHERE ts >= 0) AS span
      FROM ev WHERE ph = 'X' GROUP BY trace, pid
    )`);
  if (!probe || (Number(probe.bad) === 0 && Number(probe.span) <= IMPOSSIBLE_US)) return [];
  await duck.run(`CREATE OR REPLACE TEMP TABLE ev_mid AS
    SELECT trace, pid, approx_quantile(ts, 0.5) AS mid FROM ev WHERE ph = 'X' AND ts >= 0 AND dur >= 0 GROUP BY trace, pid`);
  const bad = `ev.ph = 'X' AND (ev.ts IS NULL OR ev.dur IS NULL OR ev.ts < 0 OR ev.dur < 0 OR ev.dur > ${IMPOSSIBLE_US}
    OR abs(ev.ts - m.mid) > ${IMPOSSIBLE_US})`;
  const join = `FROM ev LEFT JOIN ev_mid m ON m.trace = ev.trace AND m.pid IS NOT DISTINCT FROM ev.pid`;
  const rows = await duck.all(`SELECT ev.trace, count(*) AS n ${join} WHERE ${bad} GROUP BY ev.trace ORDER BY ev.trace`);
  if (rows.length > 0) await duck.run(`DELETE FROM ev WHERE rowid IN (SELECT ev.rowid ${join} WHERE ${bad})`);
  return rows.map((r) => {
    const n = Number(r.n);
    return { file: files[Number(r.trace)]!, message: `${n.toLocaleString('en-US')} event${n === 1 ? '' : 's'} with impossible times (no, negative or absurd ts or dur) left out of the analysis` };
  });
}

/** The tracer's `end` events, whose description (used, app, cfg) the load keeps in `run_args`. */
export const END_ROWS_SQL = "(ph = 'X' AND name = 'end' AND cat = 'dftracer')";

/** Names of read-like and write-like calls whose `ret` counts bytes moved. */
export const READ_CALLS = ['read', 'pread', 'pread64', 'readv', 'preadv', 'preadv2', 'fread'];
export const WRITE_CALLS = ['write', 'pwrite', 'pwrite64', 'writev', 'pwritev', 'pwritev2', 'fwrite'];

/** Categories whose events are compute (dfanalyzer's rule, extended for our integrations). */
export const COMPUTE_CATS = ['compute', 'dynamo', 'PP'];

/**
 * SQL expression: the event's kind, as dfanalyzer splits time, extended for our integrations:
 * 1 = I/O (cat POSIX/STDIO, and `io` children of the ai categories: `io`, `io.*`, `*.io`,
 * `*.io.*`); 2 = compute (cat compute, dynamo, PP or one of `computeCats`, or name compute, cpu or
 * `*.compute`, as DLIO's TorchFramework.compute); 0 = the tracer's own (cat dftracer); 3 = other
 * (loop waits, pipeline and epoch spans, readers…).
 */
export function kindSql(computeCats: readonly string[] = []): string {
  const cats = [...new Set([...COMPUTE_CATS, ...computeCats])];
  return `CASE WHEN cat = 'dftracer' THEN 0
    WHEN cat IN ('POSIX', 'STDIO') OR name = 'io' OR name LIKE 'io.%' OR name LIKE '%.io' OR name LIKE '%.io.%' THEN 1
    WHEN cat IN (${cats.map(sqlString).join(', ')}) OR name IN ('compute', 'cpu') OR name LIKE '%.compute' THEN 2
    ELSE 3 END`;
}

/** The default split (`kindSql()`). */
export const KIND_SQL = kindSql();

const list = (xs: string[]) => xs.map(sqlString).join(', ');

/**
 * Scan the traces once into the temporary table `ev` (complete events and metadata):
 * trace (the source file's index in `traces` and in `files`), ph, id, name, cat, pid, tid, ts,
 * dur, kind, p_idx, fhash, bytes (for reads/writes), op (1 read, 2 write, 0 other), step
 * and epoch (the args, as integers), dev (an event on a GPU device track: args.device_track),
 * device_us, and for metadata aname/avalue; plus `fh` (hash → path) and `traces` (trace → path).
 *
 * The source file is a small integer rather than its path: every grouping, window and join is by
 * (trace, pid), and keying those on a long string made the time split twice as slow.
 */
export async function loadTraces(duck: Duck, files: string[], opts: { computeCats?: readonly string[] } = {}): Promise<LoadReport> {
  const columns = {
    id: 'BIGINT',
    name: 'VARCHAR',
    cat: 'VARCHAR',
    pid: 'BIGINT',
    tid: 'BIGINT',
    ts: 'BIGINT',
    dur: 'BIGINT',
    ph: 'VARCHAR',
    // step/epoch as text: DLIO writes them as strings ("epoch":"0"), and a line whose value does not
    // convert would be dropped by ignore_errors
    // dft_cnt and the *_sum/_min fields: aggregated records (DFTracer 2.2's ph 3, our "C" with dft_cnt);
    // as text, cast below: a value that does not convert must not drop its line
    args: 'STRUCT(fhash VARCHAR, fname VARCHAR, ret BIGINT, "size" BIGINT, "count" BIGINT, p_idx BIGINT, "name" VARCHAR, "value" VARCHAR, step VARCHAR, epoch VARCHAR, device_track VARCHAR, device_us VARCHAR, dft_cnt VARCHAR, dur VARCHAR, dur_sum VARCHAR, ret_sum VARCHAR, count_sum VARCHAR, size_min VARCHAR, size_max VARCHAR, used JSON, app JSON, cfg JSON)',
  };
  const staged = await duck.stage(files);
  const src = readJsonSql(staged, columns);
  const paths = files.map((f, i) => `(${i}, ${sqlString(f)})`).join(', ');
  await duck.run(`CREATE OR REPLACE TABLE traces AS SELECT trace::UINTEGER AS trace, path FROM (VALUES ${paths}) t(trace, path)`);
  // every row is kept (those DuckDB could not read all null) until checkLoaded has counted them
  const select = (src: string) => `
    SELECT trace, ph, id, name, cat, pid, tid, ts, dur,
      (CASE WHEN args.device_track IS NOT NULL THEN 2 ELSE ${kindSql(opts.computeCats)} END)::UTINYINT AS kind,
      -- the 2023 layout names the file itself (args.fname) where later ones give its hash
      args.p_idx AS p_idx, coalesce(args.fhash, args.fname) AS fhash,
      (CASE WHEN name IN (${list(READ_CALLS)}) THEN 1 WHEN name IN (${list(WRITE_CALLS)}) THEN 2 ELSE 0 END)::UTINYINT AS op,
      CASE WHEN name IN (${list([...READ_CALLS, ...WRITE_CALLS])})
        THEN greatest(coalesce(TRY_CAST(args.ret_sum AS BIGINT), args.ret, TRY_CAST(args.count_sum AS BIGINT), args.count, 0), 0)
          * (CASE WHEN name IN ('fread', 'fwrite') THEN coalesce(args.size, CASE WHEN args.size_min = args.size_max THEN TRY_CAST(args.size_min AS BIGINT) END, 1) ELSE 1 END)
        ELSE 0 END AS bytes,
      -- an aggregated record: its calls and their summed time (the plain dur when it folded one call)
      CASE WHEN ph = 'C' THEN TRY_CAST(args.dft_cnt AS BIGINT) END AS cnt,
      CASE WHEN ph = 'C' AND args.dft_cnt IS NOT NULL THEN coalesce(TRY_CAST(args.dur_sum AS BIGINT), TRY_CAST(args.dur AS BIGINT), 0) END AS cnt_dur,
      args.name AS aname, args.value AS avalue,
      TRY_CAST(args.step AS BIGINT) AS step, TRY_CAST(args.epoch AS BIGINT) AS epoch,
      -- GPU work on a device track: compute, never host time
      args.device_track IS NOT NULL AS dev, args.device_track AS device_track, TRY_CAST(args.device_us AS BIGINT) AS device_us,
      -- what the \`end\` event says about the run (run-info.ts), kept here rather than read again
      CASE WHEN ${END_ROWS_SQL} THEN json_object('used', args.used, 'app', args.app, 'cfg', args.cfg)::VARCHAR END AS run_args
    FROM (${src}) s`;
  await duck.run(`CREATE OR REPLACE TABLE ev AS ${select(src)}`);
  const report = await checkLoaded(duck, 'ev', staged, 'DuckDB\'s read of the trace');
  report.warnings.push(...(await excludeImpossibleTimes(duck, files)));
  await duck.run(`CREATE OR REPLACE TABLE fh AS
    SELECT avalue AS hash, any_value(aname) AS path FROM ev WHERE ph = 'M' AND name = 'FH' AND avalue IS NOT NULL GROUP BY avalue`);
  await duck.loaded();
  return report;
}

/**
 * Check that a later read of the staged traces (the counter scans) returned every counter record
 * that `ev` holds: `counts` gives that read's counter rows per input path.
 */
export async function assertCountersRead(duck: Duck, files: readonly string[], counts: string): Promise<void> {
  const rows = await duck.all(`SELECT t.trace, coalesce(e.n, 0) AS expected, coalesce(c.n, 0) AS n FROM traces t
    LEFT JOIN (SELECT trace, count(*) AS n FROM ev WHERE ph = 'C' GROUP BY trace) e ON e.trace = t.trace
    LEFT JOIN (${counts}) c(path, n) ON c.path = t.path`);
  for (const r of rows) {
    if (Number(r.n) !== Number(r.expected)) {
      const f = files[Number(r.trace)]!;
      throw new ReadShortError(f, Number(r.n), Number(r.expected), null, 'the counter scan');
    }
  }
}

/** Args fields lifted into columns of `events` (the rest stay in the `args` JSON column). */
export const EVENT_ARG_COLUMNS: Record<string, string> = {
  level: 'BIGINT',
  p_idx: 'BIGINT',
  hhash: 'VARCHAR',
  fhash: 'VARCHAR',
  fname: 'VARCHAR',
  count: 'BIGINT',
  offset: 'BIGINT',
  ret: 'BIGINT',
  size: 'BIGINT',
};

/**
 * The SQL-facing tables over the traces:
 * - `events`: id, name, cat, pid, tid, ts, dur, te (= ts + dur), level, p_idx, hhash, fhash, file
 *   (the path from FH metadata), count, offset, ret, size, args (all args, JSON), trace (source file),
 *   type and layer (DFTracer 2.2's integer `type` and its name, UNKNOWN past the enum; null in ours);
 * - `metadata`: trace, kind (HH, FH, SH, thread_name, process_name, CM, …), pid, tid, name, value;
 * - `files`: fhash, path.
 * Scanned once into a temporary table (the staged files are checked as they load).
 */
export async function loadEvents(duck: Duck, files: string[]): Promise<LoadReport> {
  // type: DFTracer 2.2's layer (absent in ours); as text, so that a value of another kind drops no line
  const columns = { id: 'BIGINT', name: 'VARCHAR', cat: 'VARCHAR', type: 'VARCHAR', pid: 'BIGINT', tid: 'BIGINT', ts: 'BIGINT', dur: 'BIGINT', ph: 'VARCHAR', args: 'JSON' };
  const staged = await duck.stage(files);
  // always a table: the staged files are checked once, as they are loaded
  await duck.run(`CREATE OR REPLACE TEMP TABLE raw_rows AS SELECT trace, id, name, cat, TRY_CAST(type AS INTEGER) AS type, pid, tid, ts, dur, ph, args FROM (${readJsonSql(staged, columns)})`);
  const report = await checkLoaded(duck, 'raw_rows', staged, 'DuckDB\'s read of the trace');
  const paths = files.map((f, i) => `(${i}, ${sqlString(f)})`).join(', ');
  await duck.run(`CREATE OR REPLACE TEMP TABLE trace_paths AS SELECT i::UINTEGER AS i, path FROM (VALUES ${paths}) t(i, path)`);
  await duck.run(`CREATE OR REPLACE TEMP VIEW raw AS SELECT p.path AS trace, id, name, cat, type, pid, tid, ts, dur, ph, args FROM raw_rows r JOIN trace_paths p ON p.i = r.trace`);
  await duck.run(`CREATE OR REPLACE TEMP VIEW metadata AS
    SELECT trace, name AS kind, pid, tid, args ->> 'name' AS name, args ->> 'value' AS value FROM raw WHERE ph = 'M'`);
  await duck.run(`CREATE OR REPLACE TEMP TABLE files AS
    SELECT value AS fhash, any_value(name) AS path FROM metadata WHERE kind = 'FH' AND value IS NOT NULL GROUP BY value`);
  const struct = `{${Object.entries(EVENT_ARG_COLUMNS)
    .map(([k, t]) => `"${k}":"${t}"`)
    .join(',')}}`;
  await duck.run(`CREATE OR REPLACE TEMP VIEW events AS
    SELECT s.id, s.name, s.cat, s.pid, s.tid, s.ts, s.dur, s.ts + s.dur AS te,
      s.a.level AS level, s.a.p_idx AS p_idx, s.a.hhash AS hhash, s.a.fhash AS fhash, coalesce(f.path, s.a.fname) AS file,
      s.a.count AS count, s.a.offset AS "offset", s.a.ret AS ret, s.a.size AS size, s.args, s.trace,
      s.type, CASE WHEN s.type IS NULL THEN NULL ${TRACE_TYPES.map((t, i) => `WHEN s.type = ${i} THEN '${t}'`).join(' ')} ELSE 'UNKNOWN' END AS layer
    FROM (SELECT *, json_transform(args, ${sqlString(struct)}) AS a FROM raw WHERE ph = 'X') s
    LEFT JOIN files f ON s.a.fhash = f.fhash`);
  await entityViews(duck);
  await countersFromRaw(duck, true);
  return report;
}

/** The `relations` keys of an event's args (DFTracer 2.2): how the event touched the entities named. */
export const EVENT_RELATION_KINDS = ['used', 'generated', 'invalidated', 'updated'] as const;

/**
 * DFTracer 2.2's provenance as tables: `entities` (EH: id, type, store, uri), `entity_types` (ET),
 * `entity_relations` (ER: subject, relation, object), `event_relations` (an event's
 * `args.relations`: a row per entity it used, generated, invalidated or updated), and
 * `aggregated` (folded calls: `calls` = dft_cnt, `dur_sum`, all args as JSON).
 */
async function entityViews(duck: Duck): Promise<void> {
  const meta = (kind: string) => `FROM raw WHERE ph = 'M' AND name = '${kind}'`;
  await duck.run(`CREATE OR REPLACE TEMP VIEW entities AS
    SELECT trace, args ->> 'id' AS id, args ->> 'type' AS type, TRY_CAST(args ->> 'store' AS BIGINT) AS store, args ->> 'uri' AS uri, pid ${meta('EH')}`);
  await duck.run(`CREATE OR REPLACE TEMP VIEW entity_types AS
    SELECT trace, args ->> 'type' AS type, TRY_CAST(args ->> 'role' AS BIGINT) AS role, args ->> 'description' AS description ${meta('ET')}`);
  await duck.run(`CREATE OR REPLACE TEMP VIEW entity_relations AS
    SELECT trace, args ->> 'subject' AS subject, TRY_CAST(args ->> 'relation' AS BIGINT) AS relation, args ->> 'object' AS object, pid ${meta('ER')}`);
  const per = EVENT_RELATION_KINDS.map(
    (k) => `SELECT trace, id AS event_id, name, cat, pid, tid, ts, '${k}' AS relation, unnest(json_extract_string(args, '$.relations.${k}[*]')) AS entity
      FROM raw WHERE ph = 'X' AND json_exists(args, '$.relations.${k}')`,
  );
  await duck.run(`CREATE OR REPLACE TEMP VIEW event_relations AS ${per.join(' UNION ALL ')}`);
  await duck.run(`CREATE OR REPLACE TEMP VIEW aggregated AS
    SELECT trace, name, cat, pid, tid, ts, TRY_CAST(args ->> 'dft_cnt' AS BIGINT) AS calls,
      coalesce(TRY_CAST(args ->> 'dur_sum' AS BIGINT), TRY_CAST(args ->> 'dur' AS BIGINT)) AS dur_sum, args
    FROM raw WHERE ph = 'C' AND json_exists(args, '$.dft_cnt')`);
}
