import { DuckDBInstance } from '@duckdb/node-api';
const files = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await inst.connect();
for (const f of files) {
  for (let i = 0; i < 5; i++) {
    const r = await c.runAndReadAll(`SELECT count(*) AS n, count(*) FILTER (WHERE ph IS NULL) AS nulls FROM read_json('${f}', format='newline_delimited', ignore_errors=true, compression='gzip', maximum_object_size=1048576, columns={id:'BIGINT', name:'VARCHAR', ph:'VARCHAR'})`);
    console.log(f.slice(-30), r.getRowsJS()[0].map(Number).join(' '));
  }
}
