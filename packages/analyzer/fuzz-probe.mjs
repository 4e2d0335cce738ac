import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
const lines = gunzipSync(readFileSync(process.argv[2])).toString().split('\n').slice(0, -1);
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const c = await inst.connect();
let bad = 0;
for (let t = 0; t < Number(process.argv[3] ?? 50); t++) {
  const parts = []; let i = 0;
  const maxPer = [1, 2, 3, 6][t % 4];
  while (i < lines.length) { const k = 1 + Math.floor(Math.random() * maxPer); parts.push(gzipSync(lines.slice(i, i + k).join('\n') + '\n', { level: 1 + (t % 9) })); i += k; }
  const f = `/tmp/rd/fz.pfw.gz`; writeFileSync(f, Buffer.concat(parts));
  const r = await c.runAndReadAll(`SELECT count(*) AS n FROM read_json('${f}', format='newline_delimited', ignore_errors=true, compression='gzip', maximum_object_size=1048576, columns={id:'BIGINT', name:'VARCHAR', ph:'VARCHAR'})`);
  const n = Number(r.getRowsJS()[0][0]);
  if (n !== lines.length) { bad++; console.log('trial', t, 'members', parts.length, 'read', n, 'of', lines.length); writeFileSync(`/tmp/rd/bad${t}.pfw.gz`, Buffer.concat(parts)); }
}
console.log('bad', bad);
