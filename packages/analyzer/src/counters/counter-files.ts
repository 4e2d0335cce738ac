import { assertCountersRead, type Duck } from '../read/duck.js';
import { readJsonSql } from '../read/read-json.js';
import { createCounters } from './counter-table.js';

/**
 * `counters` from the files, for commands whose scan keeps only some args (summary, report): one more scan,
 * for all its lines, but only counter records kept.
 */
export async function countersFromFiles(duck: Duck, files: string[]): Promise<void> {
  const src = readJsonSql(duck.stagedFor(files), { name: 'VARCHAR', cat: 'VARCHAR', pid: 'BIGINT', tid: 'BIGINT', ts: 'BIGINT', ph: 'VARCHAR', args: 'JSON' });
  await duck.scanning(() => duck.run(`CREATE OR REPLACE TEMP TABLE counter_records AS SELECT filename AS trace, pid, tid, ts, cat, name, args FROM (${src}) WHERE ph = 'C' AND name IS NOT NULL`));
  await assertCountersRead(duck, files, 'SELECT trace, count(*) FROM counter_records GROUP BY trace');
  // aggregated records (args.dft_cnt) are calls, not counter samples
  await createCounters(duck, "SELECT * FROM counter_records WHERE NOT coalesce(json_exists(args, '$.dft_cnt'), false)", true);
}
