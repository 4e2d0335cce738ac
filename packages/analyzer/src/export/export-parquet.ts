/**
 * `dftracer export --parquet`: the `events` table (see `loadEvents`) as one Parquet file, zstd
 * compressed, streamed by DuckDB straight from the JSON traces (memory stays bounded), ready for
 * Spark, Dask, pandas or DuckDB at scale.
 */
import { Duck, loadEvents, type DuckOptions } from '../read/duck.js';
import { sqlString } from '../read/read-json.js';
import { UserError } from '../errors.js';
import { checkOutputTarget, writeOutput } from '../output/output-file.js';

export interface ParquetResult {
  output: string;
  rows: number;
}

/** Write `output` (written safely: a temporary file beside it, renamed when complete). */
export async function exportParquet(files: string[], output: string, opts: DuckOptions = {}): Promise<ParquetResult> {
  const label = 'export --parquet';
  checkOutputTarget(label, output, files, true);
  return writeOutput(label, output, async (file) => {
    await file.closeHandle(); // DuckDB writes the temporary file itself
    const duck = await Duck.open(opts);
    try {
      await loadEvents(duck, files);
      try {
        await duck.run(`COPY (SELECT * FROM events) TO ${sqlString(file.path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`);
      } catch (e) {
        // DuckDB's own write error (a full disk): one line, naming the output rather than the temporary file
        const msg = String((e as Error).message ?? e).split('\n')[0]!.split(file.path).join(output);
        throw new UserError(`${label}: cannot write ${output}: ${msg}`);
      }
      const [r] = await duck.all(`SELECT count(*) AS n FROM read_parquet(${sqlString(file.path)})`);
      return { output, rows: Number(r?.n ?? 0) };
    } finally {
      duck.close();
    }
  });
}
