/**
 * What upstream's `dftracer_merge -d DIR -o OUT.pfw -c` writes (LLNL/dftracer-utils,
 * `src/dftracer/utils/binaries/dftracer_merge.cpp`, snapshot 317b0d8 of 2025-10-21), mimicked
 * line for line because the tool is not built here:
 * - `[` and a newline;
 * - each input's lines in turn, trimmed of spaces, tabs and CRs, each with a newline; dropped are
 *   empty lines, a lone `[`, `{`, `]` or `}`, `][`, and any line of 8 characters or fewer
 *   (`json_trim_and_validate` and its `trimmed_length > 8`);
 * - then `\n]\n`: a blank line before the closing `]`.
 * Ids, pids and p_idx stay as each process wrote them, so ids repeat across processes. With `-c`
 * the whole file is one gzip member at zlib's default level.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';

export function dftracerMergeText(inputs: string[]): string {
  const out: string[] = ['[\n'];
  for (const f of inputs) {
    const raw = readFileSync(f);
    const text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('latin1');
    for (const line of text.split('\n')) {
      const t = line.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
      if (t === '' || (t.length === 1 && '[{]}'.includes(t)) || t === '][' || t.length <= 8) continue;
      out.push(t, '\n');
    }
  }
  out.push('\n]\n');
  return out.join('');
}

/** `dftracer_merge … -c`: the merged text as one gzip member. */
export function dftracerMerge(inputs: string[], output: string): void {
  writeFileSync(output, gzipSync(Buffer.from(dftracerMergeText(inputs), 'latin1'), { level: 6 }));
}
