import { readJsonSql, type Duck } from '../duck.js';
import { createCounters } from './counter-table.js';

/**
 * `counters` from the files, for commands whose scan keeps only some args (summary, report): one more scan,
 * for all its lines, but only counter records kept.
 */
export async function countersFromFiles(duck: Duck, files: string[]): Promise<void> {
  const src = await readJsonSql(files, { name: 'VARCHAR', cat: 'VARCHAR', pid: 'BIGINT', tid: 'BIGINT', ts: 'BIGINT', ph: 'VARCHAR', args: 'JSON' }, duck.tempDir);
  await createCounters(duck, `SELECT filename AS trace, pid, tid, ts, cat, name, args FROM (${src}) WHERE ph = 'C'`, true);
}
