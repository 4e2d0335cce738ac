import { nowUs } from '../recording/clock.js';
import { ID_BLOCK, ID_SLOT, type TraceFile } from '../writer/trace-file.js';
import { counterLine, type CounterValues } from './counter-line.js';
import { ProcessSampler } from './process-sampler.js';
import { SYS_CAT } from './sys-cat.js';
import { jsDeflate } from '../gzip/index.js';

/** What the writer thread needs to write the process-wide counters of a session. */
export interface WriterCounterInit {
  readonly intervalMs: number;
  readonly pid: number;
  /** The main thread's tid: process-wide counters sit beside its track. */
  readonly tid: number;
  readonly hhash: string;
}

/**
 * rss and CPU sampled on the writer thread's own timer: it runs while the program's thread is held
 * in a loop that never yields (and right up to a crash, each sample being written at once as its
 * own gzip member, or plain lines). Ids come from a block of the file's one sequence, so they
 * never collide with the threads' ids.
 */
export class WriterCounters {
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly sampler: ProcessSampler;
  private idNext = 0;
  private idEnd = 0;
  private text = '';
  private lines = 0;

  constructor(
    private readonly init: WriterCounterInit,
    private readonly file: TraceFile,
  ) {
    this.sampler = new ProcessSampler(nowUs());
    this.timer = setInterval(() => this.tick(), init.intervalMs);
    this.timer.unref();
  }

  private nextId(): number {
    if (this.idNext === this.idEnd) {
      this.idNext = this.file.add(ID_SLOT, 1) * ID_BLOCK + 1;
      this.idEnd = this.idNext + ID_BLOCK;
    }
    return this.idNext++;
  }

  private put = (name: string, values: CounterValues): void => {
    const line = counterLine(this.nextId(), name, SYS_CAT, this.init.pid, this.init.tid, this.at, this.init.hhash, values);
    if (line === null) return;
    this.text += line;
    this.lines++;
  };

  private at = 0;

  private tick(): void {
    if (this.file.closed || this.file.failed !== null) {
      this.stop();
      return;
    }
    this.at = nowUs();
    this.text = '';
    this.lines = 0;
    this.sampler.sample(this.at, this.put);
    if (this.lines === 0) return;
    const enc = this.file.shared.encoding;
    const bytes = Buffer.from(this.text);
    // A sealed file (finalize writing its last events) refuses the write: nothing after `end`.
    // JavaScript gzip: this timer fires whenever it likes, also while Node stops the writer thread at exit.
    this.file.write(enc.compression ? jsDeflate(bytes, enc.level) : bytes, this.lines);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
