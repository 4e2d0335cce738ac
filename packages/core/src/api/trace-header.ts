import { basename, dirname, resolve } from 'node:path';
import { nowUs } from '../recording/clock.js';
import { dftHash } from '../recording/hash.js';
import type { ThreadTracer } from '../recording/tracer.js';
import { VERSION } from './version.js';

/** How a trace file is named and how it opens: upstream's naming, preamble records and `start` event. */

export function execName(): string {
  const script = process.argv[1];
  return script ? basename(script) : 'DEFAULT';
}

/** `<prefix>-<H(exec-host-pid)>-app.pfw[.gz]`, with .pfw/.pfw.gz or another extension stripped. */
export function traceFilePath(prefix: string, compression: boolean, identity: string): string {
  const abs = resolve(prefix);
  let stem = basename(abs);
  if (stem.endsWith('.pfw.gz')) stem = stem.slice(0, -7);
  else if (stem.endsWith('.pfw')) stem = stem.slice(0, -4);
  else if (stem.lastIndexOf('.') > 0) stem = stem.slice(0, stem.lastIndexOf('.'));
  return `${dirname(abs)}/${stem}-${dftHash(identity)}-app.pfw${compression ? '.gz' : ''}`;
}

function asctime(d: Date): string {
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getDay()]!;
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getMonth()]!;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${day} ${mon} ${String(d.getDate()).padStart(2, ' ')} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${d.getFullYear()}`;
}

/**
 * The `[` line, then upstream's preamble (HH, thread_name, FH of the cwd, SH of the command and of
 * the executable) and `start`, each record with the next id. The `[` goes first even when a tiny
 * DFTRACER_WRITE_BUFFER_SIZE flushes after every record.
 */
export function writeHeader(t: ThreadTracer, hostname: string): void {
  const pid = t.identity.pid;
  const exec = execName();
  const cmd = process.argv.join(';');
  t.prepend('[\n');
  t.meta('HH', t.identity.tid, hostname, t.hostHash);
  t.meta('process_name', t.identity.tid, `${exec} (${pid})`, 'process_name');
  t.announceThread();
  const cwd = t.hashFile(currentDir());
  const cmdHash = t.hashString(cmd);
  const execHash = t.hashString(exec);
  const ts = nowUs();
  t.record(t.interner.kind('start', 'dftracer'), t.nextId(), t.identity.tid, ts, 0, 1, -1, {
    cmd_hash: cmdHash,
    exec_hash: execHash,
    cwd,
    version: VERSION,
    date: asctime(new Date(ts / 1000)),
    ppid: process.ppid,
  });
}

/** process.cwd() throws when the directory was removed: fall back to what the shell said. */
function currentDir(): string {
  try {
    return process.cwd();
  } catch {
    return process.env.PWD ?? '';
  }
}
