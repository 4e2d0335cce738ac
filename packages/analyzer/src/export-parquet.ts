/**
 * `dftracer export --parquet`: the `events` table (see `loadEvents`) as one Parquet file, zstd
 * compressed, streamed by DuckDB straight from the JSON traces (memory stays bounded), ready for
 * Spark, Dask, pandas or DuckDB at scale.
 */
import { Duck, loadEvents, sqlString, type DuckOptions } from './duck.js';

export interface ParquetResult {
  output: string;
  rows: number;
}

export async function exportParquet(files: string[], output: string, opts: DuckOptions = {}): Promise<ParquetResult> {
  const duck = await Duck.open(opts);
  try {
    await loadEvents(duck, files);
    await duck.run(`COPY (SELECT * FROM events) TO ${sqlString(output)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`);
    const [r] = await duck.all(`SELECT count(*) AS n FROM read_parquet(${sqlString(output)})`);
    return { output, rows: Number(r?.n ?? 0) };
  } finally {
    duck.close();
  }
}
