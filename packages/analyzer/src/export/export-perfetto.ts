/**
 * `dftracer export --perfetto`: a JSON array (`[…]` with commas, the shape both Perfetto and
 * chrome://tracing load) of the traces' complete events, with
 * - process and thread names from `process_name`/`HH`/`thread_name` metadata;
 * - slices that partially overlap others on their pid/tid (concurrent async work) moved to extra
 *   "lane" threads next to their own, so every track is disjoint-or-nested as the viewers require;
 * - args kept, plus the event's `id` and the resolved `file` path of its `fhash`.
 * Events stream out of DuckDB sorted by track and start time; memory stays bounded. The file is
 * written safely (a temporary file beside it, renamed when complete).
 */
import { Duck, loadEvents, type DuckOptions } from '../read/duck.js';
import { LaneAssigner } from './lanes.js';
import { writePerfettoCounters } from '../counters/perfetto-counters.js';
import { checkOutputTarget, writeOutput, type GzipWriter, type OutputFile } from '../output/output-file.js';

export { LaneAssigner };

export interface PerfettoResult {
  output: string;
  events: number;
  /** Counter samples (`"ph":"C"`) written, one per record. */
  counters: number;
  processes: number;
  /** Tracks in the output (threads, lanes included). */
  tracks: number;
  /** Lane threads added for overlapping slices. */
  lanes: number;
}

function q(s: string): string {
  return JSON.stringify(s);
}

/** The JSON array, buffered about 1 MiB at a time, into the output (through gzip for `.gz`). */
class Out {
  private readonly gz: GzipWriter | null;
  private buf: string[] = [];
  private len = 0;
  private first = true;

  constructor(
    private readonly file: OutputFile,
    gzip: boolean,
  ) {
    this.gz = gzip ? file.gzip(6) : null;
    this.buf.push('[\n');
  }

  async event(json: string): Promise<void> {
    this.buf.push(this.first ? json : `,\n${json}`);
    this.first = false;
    this.len += json.length;
    if (this.len > 1 << 20) await this.flush();
  }

  private async flush(): Promise<void> {
    const text = this.buf.join('');
    this.buf = [];
    this.len = 0;
    if (this.gz) await this.gz.write(text);
    else await this.file.write(text);
  }

  async close(): Promise<void> {
    this.buf.push('\n]\n');
    await this.flush();
    await this.gz?.end();
  }

  destroy(): void {
    this.gz?.destroy();
  }
}

/** Write `output` (written safely: see `OutputFile`; gzip when it ends with `.gz`). */
export async function exportPerfetto(files: string[], output: string, opts: DuckOptions = {}): Promise<PerfettoResult> {
  checkOutputTarget('export --perfetto', output, files, true);
  return writeOutput('export --perfetto', output, async (file) => {
    const duck = await Duck.open(opts);
    const out = new Out(file, output.endsWith('.gz'));
    try {
      return await perfettoEvents(duck, files, output, out);
    } catch (e) {
      out.destroy();
      throw e;
    } finally {
      duck.close();
    }
  });
}

async function perfettoEvents(duck: Duck, files: string[], output: string, out: Out): Promise<PerfettoResult> {
  await loadEvents(duck, files);
  const procNames = new Map<number, string>();
  const hosts = new Map<number, string>();
  const threadNames = new Map<string, string>();
  for (const r of await duck.all(`SELECT kind, pid, tid, name, value FROM metadata WHERE kind IN ('process_name', 'HH', 'thread_name')`)) {
    const pid = Number(r.pid);
    if (r.kind === 'process_name' && r.name != null) procNames.set(pid, String(r.name));
    else if (r.kind === 'HH' && r.name != null) hosts.set(pid, String(r.name));
    // upstream DFTracer swaps name and value (name = the tid, value "thread_name"): no name there
    else if (r.kind === 'thread_name' && r.name != null && String(r.value) !== 'thread_name') {
      // args.value names the thread's tid; the line's own tid is the writer's
      const tid = r.value != null && /^\d+$/.test(String(r.value)) ? Number(r.value) : Number(r.tid);
      threadNames.set(`${pid}:${tid}`, String(r.name));
    }
  }
  const maxTid = new Map<number, number>();
  const tracks: Array<[number, number]> = [];
  for (const r of await duck.all(`SELECT DISTINCT pid, tid FROM raw WHERE ph = 'X' ORDER BY pid, tid`)) {
    const pid = Number(r.pid);
    const tid = Number(r.tid);
    tracks.push([pid, tid]);
    maxTid.set(pid, Math.max(maxTid.get(pid) ?? 0, tid));
  }
  for (const tid of threadNames.keys()) {
    const [p, t] = tid.split(':').map(Number) as [number, number];
    maxTid.set(p, Math.max(maxTid.get(p) ?? 0, t));
  }

  // names first: processes, then threads with a sort index that keeps lanes next to their thread
  const pids = [...new Set(tracks.map(([p]) => p))];
  for (const pid of pids) {
    const name = procNames.get(pid) ?? `pid ${pid}`;
    const host = hosts.get(pid);
    await out.event(`{"name":"process_name","ph":"M","pid":${pid},"tid":0,"args":{"name":${q(host ? `${name} @ ${host}` : name)}}}`);
  }
  const sortIndex = new Map<string, number>();
  tracks.forEach(([pid, tid], i) => {
    sortIndex.set(`${pid}:${tid}`, (i + 1) * 1000);
  });
  for (const [pid, tid] of tracks) {
    const name = threadNames.get(`${pid}:${tid}`) ?? (tid === pid ? 'main' : `tid ${tid}`);
    await out.event(`{"name":"thread_name","ph":"M","pid":${pid},"tid":${tid},"args":{"name":${q(name)}}}`);
    await out.event(`{"name":"thread_sort_index","ph":"M","pid":${pid},"tid":${tid},"args":{"sort_index":${sortIndex.get(`${pid}:${tid}`)}}}`);
  }

  const result = await duck.conn.stream(
    `SELECT pid::DOUBLE, tid::DOUBLE, ts::DOUBLE, dur::DOUBLE, name, cat, id::DOUBLE, args::VARCHAR, file FROM events ORDER BY pid, tid, ts, dur DESC, id`,
  );
  let events = 0;
  let lanesAdded = 0;
  let curKey = '';
  let assigner = new LaneAssigner();
  let laneTids: number[] = [];
  let curPid = -1;
  let curTid = -1;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    for (const row of chunk.getRows()) {
      const pid = row[0] as number;
      const tid = row[1] as number;
      const ts = row[2] as number;
      const dur = row[3] as number;
      const key = `${pid}:${tid}`;
      if (key !== curKey) {
        curKey = key;
        curPid = pid;
        curTid = tid;
        assigner = new LaneAssigner();
        laneTids = [tid];
      }
      const lane = assigner.place(ts, ts + dur);
      if (lane >= laneTids.length) {
        // a new lane thread, named after its track and sorted right after it
        const ltid = (maxTid.get(curPid) ?? curTid) + 1;
        maxTid.set(curPid, ltid);
        laneTids.push(ltid);
        lanesAdded++;
        const base = threadNames.get(curKey) ?? (curTid === curPid ? 'main' : `tid ${curTid}`);
        await out.event(`{"name":"thread_name","ph":"M","pid":${curPid},"tid":${ltid},"args":{"name":${q(`${base} (lane ${lane})`)}}}`);
        await out.event(`{"name":"thread_sort_index","ph":"M","pid":${curPid},"tid":${ltid},"args":{"sort_index":${(sortIndex.get(curKey) ?? 0) + lane}}}`);
      }
      const outTid = laneTids[lane]!;
      const id = row[6] as number | null;
      const argsText = (row[7] as string | null) ?? '{}';
      const file = row[8] as string | null;
      let extra = id != null ? `"id":${id}` : '';
      if (file != null) extra += `${extra ? ',' : ''}"file":${q(file)}`;
      if (lane > 0) extra += `${extra ? ',' : ''}"orig_tid":${tid}`;
      const args = extra ? (argsText.length > 2 ? `{${extra},${argsText.slice(1)}` : `{${extra}}`) : argsText;
      await out.event(`{"name":${q(String(row[4]))},"cat":${q(String(row[5]))},"ph":"X","pid":${pid},"tid":${outTid},"ts":${ts},"dur":${dur},"args":${args}}`);
      events++;
    }
  }
  const counters = await writePerfettoCounters(duck, (line) => out.event(line));
  await out.close();
  return { output, events, counters, processes: pids.length, tracks: tracks.length + lanesAdded, lanes: lanesAdded };
}
