/**
 * DuckDB's `read_json` over trace files, as SQL text: the one place that knows how the reader
 * handles our layout (the `[` line, gzip detected from content, line-by-line rereads).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { head } from './check.js';
import { isGzipFile } from './lines.js';

/** SQL string literal. */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** SQL identifier. */
export function sqlIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** The first two lines of a trace (decompressed), or fewer. */
async function firstLines(file: string): Promise<string[]> {
  const { text } = await head(file, 1 << 20, 2);
  return text.split('\n').slice(0, 2);
}

/**
 * `read_json` over the files (grouped by compression, detected from content), as one relation
 * with a `filename` column naming the source trace.
 *
 * DuckDB's newline-delimited reader, with `ignore_errors`, drops the line *after* the E2 `[`
 * line together with it (it parses `[` and the next line as one broken value). So line 2 of
 * each trace is read here and fed to DuckDB from a side file in `sideDir`, mapped back to its
 * trace's name.
 */
export async function readJsonSql(files: string[], columns: Record<string, string>, sideDir: string, opts: { lineByLine?: boolean } = {}): Promise<string> {
  const gz: string[] = [];
  const plainFiles: string[] = [];
  const sides: Array<[string, string]> = [];
  if (opts.lineByLine) {
    for (const f of files) ((await isGzipFile(f)) ? gz : plainFiles).push(f);
    const lines = (list: string[], compression: string) =>
      `SELECT unnest(j), filename FROM (SELECT try(json_transform(ltrim(l, '[] '), ${sqlString(jsonStructure(columns))})) AS j, filename FROM read_csv([${list.map(sqlString).join(', ')}], ` +
      `columns = {'l': 'VARCHAR'}, header = false, delim = chr(1), quote = '', escape = '', auto_detect = false, new_line = '\\n', filename = true, compression = '${compression}'))`;
    const parts = [...(gz.length ? [lines(gz, 'gzip')] : []), ...(plainFiles.length ? [lines(plainFiles, 'none')] : [])];
    return parts.map((p) => `(${p})`).join(' UNION ALL BY NAME ');
  }
  for (const f of files) {
    ((await isGzipFile(f)) ? gz : plainFiles).push(f);
    const [l1, l2] = await firstLines(f);
    if (l1?.trim() === '[' && l2 && l2.trim().startsWith('{')) {
      const side = join(sideDir, `line2-${sides.length}.ndjson`);
      writeFileSync(side, `${l2}\n`);
      sides.push([side, f]);
    }
  }
  const cols = `{${Object.entries(columns)
    .map(([k, t]) => `${sqlString(k)}: ${sqlString(t)}`)
    .join(', ')}}`;
  const one = (list: string[], compression: string) =>
    `SELECT * FROM read_json([${list.map(sqlString).join(', ')}], format = 'newline_delimited', ignore_errors = true, ` +
    `compression = '${compression}', maximum_object_size = 1048576, filename = true, columns = ${cols})`;
  const parts: string[] = [];
  if (gz.length) parts.push(one(gz, 'gzip'));
  if (plainFiles.length) parts.push(one(plainFiles, 'uncompressed'));
  if (sides.length) {
    const map = sides.map(([side, f]) => `(${sqlString(side)}, ${sqlString(f)})`).join(', ');
    parts.push(
      `SELECT * REPLACE (m.trace AS filename) FROM (${one(
        sides.map((s) => s[0]),
        'uncompressed',
      )}) j JOIN (VALUES ${map}) m(side, trace) ON m.side = j.filename`,
    );
  }
  return parts.map((p) => `(${p})`).join(' UNION ALL BY NAME ');
}

/**
 * `read_json`'s columns as a `json_transform` structure: `{"id":"BIGINT","args":{"fhash":"VARCHAR",…}}`
 * (a flat STRUCT(…) becomes an object; JSON stays JSON).
 */
function jsonStructure(columns: Record<string, string>): string {
  const type = (t: string): unknown => {
    const m = /^STRUCT\((.*)\)$/s.exec(t.trim());
    if (!m) return t;
    const o: Record<string, unknown> = {};
    for (const field of m[1]!.split(',')) {
      const f = /^\s*"?([^"\s]+)"?\s+(.+?)\s*$/.exec(field);
      if (f) o[f[1]!] = type(f[2]!);
    }
    return o;
  };
  return JSON.stringify(Object.fromEntries(Object.entries(columns).map(([k, t]) => [k, type(t)])));
}
