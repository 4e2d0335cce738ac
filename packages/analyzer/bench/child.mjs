// One measured run in a fresh process: prints {seconds, events, maxRssMiB, cpuSeconds} as JSON.
// usage: node bench/child.mjs validate|summary|readline|duckdb FILE
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';

const [what, file] = process.argv.slice(2);
const t0 = performance.now();
let events = 0;
if (what === 'validate') {
  const { validateFiles } = await import('../dist/validate.js');
  const r = await validateFiles([file]);
  const problems = r.files[0].problems;
  if (problems.length) throw new Error(`the bench trace should be valid: ${JSON.stringify(problems)}`);
  events = r.events;
} else if (what === 'summary') {
  const { summarize } = await import('../dist/index.js');
  events = (await summarize([file])).events;
} else if (what === 'readline') {
  // the reference point of the issue: a Node readline + JSON.parse stream
  const rl = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.length < 2) continue;
    if (JSON.parse(line).ph === 'X') events++;
  }
} else if (what === 'duckdb') {
  // DuckDB's JSON scan alone: the ceiling for anything built on it
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:', { memory_limit: '256MB' });
  const conn = await db.connect();
  try {
    const cols = "{name: 'VARCHAR', cat: 'VARCHAR', pid: 'BIGINT', tid: 'BIGINT', ts: 'BIGINT', dur: 'BIGINT', ph: 'VARCHAR'}";
    const sql = `SELECT count(*) FILTER (WHERE ph = 'X') AS n, sum(dur) AS d FROM read_json('${file.replace(/'/g, "''")}', format = 'newline_delimited', ignore_errors = true, columns = ${cols})`;
    const [r] = (await conn.runAndReadAll(sql)).getRowObjectsJS();
    events = Number(r.n);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
} else throw new Error(`unknown measurement ${what}`);
const seconds = (performance.now() - t0) / 1000;
const ru = process.resourceUsage();
// CPU time of all threads (DuckDB's included): steadier than wall time on a shared machine
process.stdout.write(`${JSON.stringify({ seconds, events, maxRssMiB: ru.maxRSS / 1024, cpuSeconds: (ru.userCPUTime + ru.systemCPUTime) / 1e6 })}\n`);
