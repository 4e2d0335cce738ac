import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportParquet } from '../export/export-parquet.js';
import { formatQueryResult, queryTraces } from './query.js';
import { tempDir, writeSmallTrace } from '../test-util/fixtures.test-util.js';
import { UserError } from '../errors.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

describe('query', () => {
  it('exposes events with file names resolved from FH, metadata and files', async () => {
    const a = writeSmallTrace(join(dir, 'a.pfw.gz'));
    const b = writeSmallTrace(join(dir, 'b.pfw'), 'clean', { pid: 5 });
    const r = await queryTraces(
      `SELECT file, sum(ret) AS bytes, count(*) AS n FROM events WHERE name IN ('read', 'pread') GROUP BY file ORDER BY file`,
      [a.path, b.path],
    );
    expect(r.columns).toEqual(['file', 'bytes', 'n']);
    expect(r.rows).toEqual([
      ['/data/a.bin', 2 * 4196, 4],
      ['/data/b.bin', 2 * 8192, 2],
    ]);
    const m = await queryTraces(`SELECT kind, count(*) FROM metadata GROUP BY kind ORDER BY kind`, [a.path]);
    expect(Object.fromEntries(m.rows as Array<[string, number]>)).toMatchObject({ FH: 4, HH: 1, SH: 2, process_name: 1, thread_name: 2 });
    const j = await queryTraces(`SELECT args->>'cwd' AS cwd, level, p_idx FROM events WHERE name = 'start'`, [a.path]);
    expect(j.rows).toEqual([['1eb3e29d4a5230b4', 1, -1]]);
    expect(formatQueryResult(r, 'csv')).toBe('file,bytes,n\n/data/a.bin,8392,4\n/data/b.bin,16384,2');
    expect(formatQueryResult(r, 'table')).toMatch(/\(2 rows\)$/);
  });

  it('turns SQL errors into one-line user errors', async () => {
    const a = writeSmallTrace(join(dir, 'c.pfw.gz'));
    await expect(queryTraces('SELECT nope FROM events', [a.path])).rejects.toBeInstanceOf(UserError);
  });

  it('exports Parquet that DuckDB reads back', async () => {
    const a = writeSmallTrace(join(dir, 'd.pfw.gz'));
    const out = join(dir, 'events.parquet');
    const r = await exportParquet([a.path], out);
    expect(r.rows).toBe(11);
    const back = await queryTraces(`SELECT count(*) AS n, sum(dur) AS d FROM read_parquet('${out}') WHERE file = '/data/a.bin'`, [a.path]);
    expect(back.rows).toEqual([[4, 24]]);
  });
});
