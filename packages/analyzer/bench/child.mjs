// One measured run in a fresh process; writes {seconds, cpuSeconds, maxRssMiB, events?} as JSON to OUT.
// usage: node bench/child.mjs OUT cli ARGS…   (the built CLI, as a user runs it: start-up included)
//        node bench/child.mjs OUT duckdb FILE (DuckDB's bare read_json scan of the .gz: the reference)
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const [out, what, ...rest] = process.argv.slice(2);
let events;
process.on('exit', (code) => {
  const ru = process.resourceUsage();
  // CPU time of all threads (DuckDB's and zlib's included): steadier than wall time on a shared machine
  writeFileSync(out, JSON.stringify({ code, seconds: performance.now() / 1000, cpuSeconds: (ru.userCPUTime + ru.systemCPUTime) / 1e6, maxRssMiB: ru.maxRSS / 1024, events }));
});
if (what === 'cli') {
  process.argv = [process.argv[0], join(here, '..', 'dist', 'cli.js'), ...rest];
  await import('../dist/cli.js');
} else if (what === 'duckdb') {
  // DuckDB's JSON scan alone, of the columns summary reads: the ceiling for anything built on it
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:', { memory_limit: '256MB' });
  const conn = await db.connect();
  try {
    const cols = "{name: 'VARCHAR', cat: 'VARCHAR', pid: 'BIGINT', tid: 'BIGINT', ts: 'BIGINT', dur: 'BIGINT', ph: 'VARCHAR', args: 'STRUCT(fhash VARCHAR, ret BIGINT, p_idx BIGINT, step VARCHAR)'}";
    const sql = `SELECT count(*) FILTER (WHERE ph = 'X') AS n, sum(dur) AS d, count(args.fhash) AS f FROM read_json('${rest[0].replace(/'/g, "''")}', format = 'newline_delimited', ignore_errors = true, columns = ${cols})`;
    const [r] = (await conn.runAndReadAll(sql)).getRowObjectsJS();
    events = Number(r.n);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
} else throw new Error(`unknown measurement ${what}`);
