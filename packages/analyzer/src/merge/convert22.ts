/**
 * A trace holding DFTracer 2.2 records, rewritten in our layout for `merge`: `[` first, each 2.2
 * record made ours (`fromLayout22`), records already in our layout kept as they are, the records
 * upstream writes after `end` (the last interval's aggregated records) moved before it, as our
 * writer places them, and `end.num_events` set to the records before it (our layout's count;
 * upstream's counts the ids folded calls took). Only files that hold a 2.2 record are rewritten.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../errors.js';
import { fromLayout22 } from '../read/layout22.js';
import { TraceReader } from '../read/lines.js';

const INT_PH = /"ph":\s*\d/;

/** Whether the file's first record is in the 2.2 layout (integer `ph`). */
export async function holdsLayout22(file: string): Promise<boolean> {
  const reader = new TraceReader(file);
  let head = '';
  for await (const chunk of reader.chunks()) {
    head += chunk.toString('utf8');
    const lines = head.split('\n');
    for (let i = 0; i < lines.length - 1; i++) {
      const l = lines[i]!.trim();
      if (l.startsWith('{')) return INT_PH.test(l);
    }
    if (head.length > 1 << 20) return false;
  }
  return INT_PH.test(head);
}

/** Rewrite `file` in our layout as `<dir>/<index>.pfw`; returns its path. Throws on a line that is not a valid record. */
export async function convertLayout22(file: string, dir: string, index: number): Promise<string> {
  const out = join(dir, `${index}-2.2.pfw`);
  const fd = openSync(out, 'w');
  let pending = '';
  const put = (s: string) => {
    pending += s;
    if (pending.length > 1 << 20) flush();
  };
  const flush = () => {
    if (pending) writeSync(fd, pending);
    pending = '';
  };
  let lineNo = 0;
  let before = 0;
  let end: Record<string, unknown> | null = null;
  const afterEnd: string[] = [];
  const line = (raw: string) => {
    lineNo++;
    const l = raw.trim();
    if (l === '' || l === '[' || l === ']' || l === '],') return;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(l) as Record<string, unknown>;
    } catch (e) {
      throw new UserError(`${file}:${lineNo}: not valid JSON: ${(e as Error).message.split('\n')[0]}`);
    }
    let text = l;
    if (typeof o.ph === 'number') {
      const r = fromLayout22(o);
      if ('error' in r) throw new UserError(`${file}:${lineNo}: ${r.error}`);
      o = r.record;
      text = JSON.stringify(o);
    }
    if (o.name === 'end' && o.cat === 'dftracer' && o.ph === 'X' && end === null) {
      end = o;
      return;
    }
    if (end) afterEnd.push(text);
    else {
      before++;
      put(`${text}\n`);
    }
  };
  try {
    put('[\n');
    let carry = '';
    const reader = new TraceReader(file);
    for await (const chunk of reader.chunks()) {
      const lines = (carry + chunk.toString('utf8')).split('\n');
      carry = lines.pop()!;
      for (const l of lines) line(l);
    }
    if (reader.outcome.gzipError) throw new UserError(`${file}: ${reader.outcome.gzipError.message}`);
    if (carry) line(carry);
    for (const t of afterEnd) put(`${t}\n`);
    if (end) {
      const e = end as Record<string, unknown>;
      const args = (e.args && typeof e.args === 'object' ? e.args : {}) as Record<string, unknown>;
      if ('num_events' in args) e.args = { ...args, num_events: before + afterEnd.length };
      put(`${JSON.stringify(e)}\n`);
    }
    put(']\n');
    flush();
  } finally {
    closeSync(fd);
  }
  return out;
}

/**
 * `inputs` with each file that holds DFTracer 2.2 records rewritten in our layout (in a private
 * temporary directory, removed after `fn`), for the commands that read our layout byte by byte.
 */
export async function withLayout22Converted<T>(inputs: string[], fn: (files: string[]) => Promise<T>): Promise<T> {
  const flags = await Promise.all(inputs.map(holdsLayout22));
  if (!flags.some(Boolean)) return fn(inputs);
  const dir = mkdtempSync(join(tmpdir(), 'dftracer-22-'));
  try {
    const files = await Promise.all(inputs.map((f, i) => (flags[i] ? convertLayout22(f, dir, i) : f)));
    return await fn(files);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
