/**
 * A small training run with known per-epoch and per-step figures, written in our layout (ai
 * events: pipeline epoch spans, dataloader fetch.iter waits on lanes, compute forward/backward
 * with epoch and step args) or in DLIO's (DLIOBenchmark._train spans with an epoch arg,
 * loop.iter waits, TorchFramework.compute spans, integer hashes and numbers as strings).
 *
 * Times in µs from t0. Epoch 1 [0, 500): step 1 waits [0, 100) while an item reads [10, 60)
 * (4096 B), computes [100, 250); step 2 waits [250, 270), computes [270, 400) while a prefetch
 * read runs [380, 420) (1000 B); preprocessing [420, 450); nothing [450, 500). Epoch 2
 * [500, 1000): one step stalled on data: waits [500, 500 + stall), computes to 1000.
 */
import { TraceWriter } from './trace-writer.test-util.js';

export interface TrainingOptions {
  path: string;
  layout: 'ours' | 'dlio';
  /** The wait of epoch 2's step (default 400). */
  stall?: number;
  t0?: number;
  pid?: number;
}

export function writeTrainingTrace(opts: TrainingOptions): void {
  const t0 = opts.t0 ?? 1_760_000_000_000_000;
  const stall = opts.stall ?? 400;
  const dlio = opts.layout === 'dlio';
  const pid = opts.pid ?? 100;
  const w = new TraceWriter({ path: opts.path, pid, ...(dlio ? { hashes: 'int' as const, stringNumbers: true } : {}) });
  const [lane1, lane2, lane3] = [pid * 10 + 1, pid * 10 + 2, pid * 10 + 3];
  w.header();
  w.start(t0);
  const f1 = w.fileHash('/data/train/a.bin');
  const f2 = w.fileHash('/data/train/b.bin');
  const T = (us: number) => t0 + us;
  const train = w.begin(dlio ? 'DLIOBenchmark.run' : 'train', dlio ? 'dlio_benchmark' : 'pipeline', T(0));

  const epoch = (n: number, ts: number) =>
    w.begin(dlio ? 'DLIOBenchmark._train' : 'epoch', dlio ? 'dlio_benchmark' : 'pipeline', T(ts), { args: { epoch: n } });
  const wait = (ep: ReturnType<typeof epoch>, n: number, ts: number, dur: number, step: number) =>
    w.complete(dlio ? 'loop.iter' : 'fetch.iter', dlio ? 'data_loader' : 'dataloader', T(ts), dur, { tid: lane1, parent: ep, args: dlio ? { step } : { epoch: n, count: step } });
  const compute = (n: number, step: number, ts: number, te: number, split: number) => {
    if (dlio) w.complete('TorchFramework.compute', 'ai_framework', T(ts), te - ts, { args: { epoch: 0, image_size: step } });
    else {
      w.complete('forward', 'compute', T(ts), split - ts, { args: { epoch: n, step } });
      w.complete('backward', 'compute', T(split), te - split, { args: { epoch: n, step } });
    }
  };

  const e1 = epoch(1, 0);
  wait(e1, 1, 0, 100, 1);
  const item = w.begin(dlio ? 'TorchDataset.__getitem__' : 'item', dlio ? 'data_loader' : 'data', T(5), { tid: lane2, parent: e1 });
  w.complete('read', 'POSIX', T(10), 50, { tid: lane3, parent: item, args: { fhash: f1, count: 4096, ret: 4096 } });
  w.exit(item, T(95));
  compute(1, 1, 100, 250, 200);
  wait(e1, 1, 250, 20, 2);
  compute(1, 2, 270, 400, 370);
  w.complete('read', 'POSIX', T(380), 40, { tid: lane3, parent: e1, args: { fhash: f2, count: 1000, ret: 1000 } });
  w.complete(dlio ? 'FormatReader.preprocess' : 'preprocess', dlio ? 'reader' : 'data', T(420), 30);
  w.exit(e1, T(500));

  const e2 = epoch(2, 500);
  wait(e2, 2, 500, stall, 1);
  compute(2, 1, 500 + stall, 1000, 500 + stall + (500 - stall) / 2);
  w.exit(e2, T(1000));
  w.exit(train, T(1000));
  w.end(T(1000));
  w.close();
}
