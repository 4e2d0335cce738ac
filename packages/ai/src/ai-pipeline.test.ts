// A port of pydftracer's AI pipeline test (tests/test_ai_logging.py, train()): 3 epochs × 2 files
// through every kind of tracer, with the same expected events, per-category disable deltas and
// epoch-as-metadata variant; plus the forms pydftracer's Python cannot have (TC39, async, using).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { finalize, getTime, initializeLog } from '@dftracer/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ai as globalAi, createAI, type AI } from './index.js';
import { countBy, multiset, readTrace, tempDir, within, type Trace, type TraceEvent } from '@dftracer/testing';

let file = '';
let dir = '';
const checks: ((t: Trace) => void)[] = [];
const later = (f: (t: Trace) => void) => checks.push(f);

beforeAll(() => {
  dir = tempDir();
  file = initializeLog({ enable: true, logFile: join(dir, 'pipeline'), dataDir: join(dir, 'data'), compression: false, disableIo: true }).file!;
});

afterAll(() => {
  finalize();
  const t = readTrace(file);
  for (const c of checks) c(t);
});

interface Args {
  dataDir: string;
  numFiles: number;
  niter: number;
  epochAsMetadata: boolean;
}

/** The Python test's program, decorators and all, on one taxonomy tree; returns `train`. */
function program(ai: AI) {
  class IOHandler {
    @ai.data.item
    read(filename: string): Buffer {
      return readFileSync(filename);
    }
    write(filename: string, a: Buffer): void {
      writeFileSync(filename, a);
    }
  }
  const readData = ai.dataloader.fetch(function* readData(args: Args, io: IOHandler, epoch: number) {
    void epoch; // recorded as an arg, as pydftracer records parameters named epoch
    for (let i = 0; i < args.numFiles; i++) yield io.read(`${args.dataDir}/${i}-of-${args.numFiles}.bin`);
  });
  const collate = ai.data.preprocess.derive('collate')((data: Buffer) => data);
  const transfer = ai.device.transfer((data: Buffer) => Buffer.from(data));
  const forward = ai.compute.forward((data: Buffer) => data.reduce((s, b) => s + b, 0));
  const backward = ai.compute.backward(() => ai.comm.all_reduce({ enable: false }).run(() => 1));
  const compute = ai.compute((data: Buffer) => {
    const f = forward(data);
    return f + backward();
  });
  @ai.checkpoint.init
  class Checkpoint {
    @ai.checkpoint.capture
    capture<T>(x: T): T {
      return x;
    }
    @ai.checkpoint.restart
    restart<T>(x: T): T {
      return x;
    }
  }
  const hook = { beforeStep: () => ai.compute.step.start(), afterStep: () => ai.compute.step.stop() };

  return ai.pipeline.train(function train(args: Args): number {
    const io = new IOHandler();
    mkdirSync(args.dataDir, { recursive: true });
    for (let i = 0; i < args.numFiles; i++) io.write(`${args.dataDir}/${i}-of-${args.numFiles}.bin`, Buffer.alloc(1024, i + 1));
    const checkpoint = new Checkpoint();
    checkpoint.restart({});
    let total = 0;
    const steps = (epoch: number) => {
      let step = 0;
      for (const data of ai.dataloader.fetch.iter(readData(args, io, epoch))) {
        hook.beforeStep();
        const d = collate(data);
        transfer(d);
        total += compute(d);
        hook.afterStep();
        ai.update({ step: step++, epoch });
      }
    };
    if (args.epochAsMetadata) {
      for (let epoch = 0; epoch < args.niter; epoch++) {
        ai.pipeline.epoch.start({ metadata: true });
        steps(epoch);
        ai.pipeline.epoch.stop({ metadata: true });
      }
    } else {
      for (const epoch of ai.pipeline.epoch.iter([...Array(args.niter).keys()])) steps(epoch);
    }
    checkpoint.capture({});
    return total;
  });
}

type Disable = 'all' | 'dataloader' | 'device' | 'compute' | 'comm' | 'checkpoint' | null;

/** Runs one configuration on a fresh tree; its events are those that start inside its window. */
function scenario(name: string, disable: Disable, epochAsMetadata = false): { result: number; events: (t: Trace) => TraceEvent[]; window: [number, number] } {
  const ai = createAI();
  const train = program(ai); // decorated first, disabled after: as in the Python test
  if (disable === 'all') ai.disable();
  else if (disable !== null) ai[disable].disable();
  const t0 = getTime();
  const result = train({ dataDir: join(dir, 'data', name), numFiles: 2, niter: 3, epochAsMetadata });
  const t1 = getTime();
  return { result, events: (t) => within(t.program, t0, t1), window: [t0, t1] };
}

const PER_STEP = ['dataloader/fetch.iter', 'data/item', 'compute/step', 'data/preprocess.collate', 'device/transfer', 'compute/compute', 'compute/forward', 'compute/backward', 'dataloader/fetch.block'];
const PER_EPOCH = ['pipeline/epoch.iter', 'dataloader/fetch', 'pipeline/epoch.block'];
const ONCE = ['pipeline/train', 'checkpoint/checkpoint.init', 'checkpoint/restart', 'checkpoint/capture'];

function expected(without: string | null, epochAsMetadata = false): Record<string, number> {
  const m: Record<string, number> = {};
  const add = (k: string, n: number) => {
    if (without !== null && k.startsWith(`${without}/`)) return;
    if (epochAsMetadata && k.startsWith('pipeline/epoch.')) return;
    m[k] = (m[k] ?? 0) + n;
  };
  for (const k of PER_STEP) add(k, 6);
  for (const k of PER_EPOCH) add(k, 3);
  for (const k of ONCE) add(k, 1);
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => a.localeCompare(b)));
}

describe('pydftracer AI pipeline (2 files × 3 epochs)', () => {
  it('writes the 67 events of the Python test, per category and in total, and deltas when a category is disabled', () => {
    const normal = scenario('normal', null);
    const runs = (['dataloader', 'device', 'compute', 'checkpoint', 'comm'] as const).map((c) => [c, scenario(`no-${c}`, c)] as const);
    const all = scenario('all', 'all');
    for (const [, r] of runs) expect(r.result).toBe(normal.result);
    expect(all.result).toBe(normal.result);
    later((t) => {
      const evs = normal.events(t);
      expect(evs).toHaveLength(67);
      expect(multiset(evs)).toEqual(expected(null));
      expect(countBy(evs, (e) => e.cat)).toEqual({ dataloader: 15, data: 12, compute: 24, device: 6, checkpoint: 3, pipeline: 7 });
      // The Python test's expected line counts are 76 total and 61/70/52/73 with a category off.
      const deltas = Object.fromEntries(runs.map(([c, r]) => [c, 67 - r.events(t).length]));
      expect(deltas).toEqual({ dataloader: 15, device: 6, compute: 24, checkpoint: 3, comm: 0 });
      for (const [c, r] of runs) expect(multiset(r.events(t))).toEqual(expected(c));
      expect(all.events(t)).toEqual([]);
    });
  });

  it('with epochs as metadata: 6 CM records epoch.start/epoch.end replace the 6 epoch events', () => {
    const r = scenario('metadata', null, true);
    const [t0, t1] = r.window;
    later((t) => {
      expect(multiset(r.events(t))).toEqual(expected(null, true));
      const cm = t.meta.filter((m) => m.name === 'CM' && String(m.args.name).startsWith('epoch.') && Number(m.args.value) >= t0 && Number(m.args.value) <= t1);
      expect(cm.map((m) => m.args.name)).toEqual(['epoch.start', 'epoch.end', 'epoch.start', 'epoch.end', 'epoch.start', 'epoch.end']);
    });
  });

  it('carries epoch/step from ai.update into every later event, nests steps under fetch.block and epoch.block', () => {
    const r = scenario('args', null);
    later((t) => {
      const evs = r.events(t);
      const fw = evs.filter((e) => e.name === 'forward').map((e) => [e.args.epoch, e.args.step]);
      expect(fw).toEqual([
        [undefined, undefined],
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
        [2, 0],
      ]);
      const byId = new Map(evs.map((e) => [e.id, e]));
      const parent = (e: TraceEvent) => byId.get(e.args.p_idx)?.name;
      for (const e of evs.filter((x) => x.name === 'forward')) expect(parent(e)).toBe('compute');
      for (const e of evs.filter((x) => x.name === 'compute' || x.name === 'transfer' || x.name === 'preprocess.collate')) expect(parent(e)).toBe('step');
      for (const e of evs.filter((x) => x.name === 'step')) expect(parent(e)).toBe('fetch.block');
      for (const e of evs.filter((x) => x.name === 'item')) expect(parent(e)).toBe('fetch.iter');
      for (const e of evs.filter((x) => x.name === 'fetch.block')) expect(parent(e)).toBe('epoch.block');
      for (const e of evs.filter((x) => x.name === 'epoch.block')) expect(parent(e)).toBe('train');
      expect(evs.filter((e) => e.name === 'fetch.block').map((e) => e.args.count)).toEqual([1, 2, 1, 2, 1, 2]);
      expect(evs.filter((e) => e.name === 'epoch.iter').map((e) => e.args.count)).toEqual([1, 2, 3]);
      expect(evs.filter((e) => e.name === 'fetch').map((e) => e.args.epoch)).toEqual([0, 1, 2]);
    });
  });
});

describe('the ai taxonomy', () => {
  it('names every tracer as pydftracer does, with camelCase aliases, io children, init and cached derive', () => {
    const ai = globalAi;
    const names = (o: Record<string, unknown>, keys: string[]) => keys.map((k) => `${(o[k] as { cat: string }).cat}/${(o[k] as { name: string }).name}`);
    expect([ai.cat, ai.name]).toEqual(['ai_root', 'ai_root']);
    expect(names(ai as never, ['compute', 'data', 'dataloader', 'comm', 'device', 'checkpoint', 'pipeline', 'other'])).toEqual(['compute/compute', 'data/data', 'dataloader/dataloader', 'comm/comm', 'device/device', 'checkpoint/checkpoint', 'pipeline/pipeline', 'other/other']);
    expect(names(ai.compute as never, ['forward', 'backward', 'step'])).toEqual(['compute/forward', 'compute/backward', 'compute/step']);
    expect(names(ai.comm as never, ['send', 'receive', 'barrier', 'bcast', 'reduce', 'all_reduce', 'gather', 'all_gather', 'scatter', 'reduce_scatter', 'all_to_all'])).toEqual(
      ['send', 'receive', 'barrier', 'bcast', 'reduce', 'all_reduce', 'gather', 'all_gather', 'scatter', 'reduce_scatter', 'all_to_all'].map((n) => `comm/${n}`),
    );
    expect([ai.comm.allReduce, ai.comm.allGather, ai.comm.reduceScatter, ai.comm.allToAll]).toEqual([ai.comm.all_reduce, ai.comm.all_gather, ai.comm.reduce_scatter, ai.comm.all_to_all]);
    expect(names(ai.pipeline as never, ['epoch', 'train', 'evaluate', 'test'])).toEqual(['pipeline/epoch', 'pipeline/train', 'pipeline/evaluate', 'pipeline/test']);
    expect(names(ai.data.io as never, ['open', 'read', 'write', 'close'])).toEqual(['data/data.io.open', 'data/data.io.read', 'data/data.io.write', 'data/data.io.close']);
    expect(names(ai.checkpoint.io as never, ['read'])).toEqual(['checkpoint/checkpoint.io.read']);
    expect(names(ai.other as never, ['log'])).toEqual(['other/other.log']);
    expect(names(ai.other.io as never, ['write'])).toEqual(['other/other.io.write']);
    expect([ai.checkpoint.init.cat, ai.checkpoint.init.name]).toEqual(['checkpoint', 'checkpoint.init']);
    expect(ai.checkpoint.init).toBe(ai.checkpoint.init);
    expect(ai.data.preprocess.derive('collate')).toBe(ai.data.preprocess.derive('collate'));
    expect(ai.data.preprocess.derive('collate').name).toBe('preprocess.collate');
    expect(ai.derive('x')).toBe(ai.derive('x'));
    expect(() => ai.compute.forward({ epoch: 1, bogus: 2 } as never)).toThrow(/unknown option "bogus"/);
  });

  it('propagates update to every tracer, ignores it on disabled ones, and lets enable: true override a disabled category', async () => {
    const ai = createAI();
    const forced = ai.compute.forward({ enable: true })(function forcedForward() {
      return 1;
    });
    const back = ai.compute.backward(() => 2);
    const item = ai.data.item(() => 3);
    const deep = ai.data.preprocess.derive('collate')(() => 4);
    ai.compute.disable();
    const t0 = getTime();
    ai.update({ epoch: 5, step: 100, args: { run: 'x' } });
    expect(forced() + back() + item() + deep()).toBe(10);
    ai.compute.enable();
    back();
    const t1 = getTime();
    later((t) => {
      const evs = within(t.program, t0, t1);
      expect(evs.map((e) => [e.cat, e.name, e.args.epoch, e.args.step, e.args.run])).toEqual([
        ['compute', 'forward', 5, 100, 'x'],
        ['data', 'item', 5, 100, 'x'],
        ['data', 'preprocess.collate', 5, 100, 'x'],
        ['compute', 'backward', undefined, undefined, undefined], // disabled at the update
      ]);
    });
  });

  it('works as TC39 decorator with options, function wrapper, async (timed to settlement), region (start/stop, using, run) and over async iterables', async () => {
    const ai = createAI();
    const inner = ai.data.preprocess(() => 0);
    class Model {
      @ai.compute.forward({ epoch: 1, enable: true })
      forward(x: number) {
        return x + inner();
      }
      @ai.data.item
      async load(i: number) {
        await new Promise((r) => setTimeout(r, 5));
        return i + inner();
      }
    }
    const m = new Model();
    const t0 = getTime();
    expect(m.forward(2)).toBe(2);
    expect(await Promise.all([m.load(1), m.load(2)])).toEqual([1, 2]);
    const region = ai.pipeline.evaluate.start();
    inner();
    region.stop();
    {
      using _r = ai.pipeline.test.start();
      inner();
    }
    expect(await ai.pipeline.train.run(async () => inner() + 7)).toBe(7);
    async function* batches() {
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 2));
        yield i;
      }
    }
    const got: number[] = [];
    for await (const b of ai.dataloader.fetch.iter(batches())) got.push(b);
    expect(got).toEqual([0, 1, 2]);
    for (const _ of ai.dataloader.fetch.iter([1], { includeBlock: false })) inner();
    const t1 = getTime();
    later((t) => {
      const evs = within(t.program, t0, t1);
      const ids = new Map(evs.map((e) => [e.id, e]));
      const parent = (e: TraceEvent) => ids.get(e.args.p_idx)?.name;
      const fw = evs.find((e) => e.name === 'forward')!;
      expect(fw.args.epoch).toBe(1);
      const loads = evs.filter((e) => e.name === 'item');
      expect(loads).toHaveLength(2);
      for (const l of loads) expect(l.dur).toBeGreaterThanOrEqual(4000);
      const pre = evs.filter((e) => e.name === 'preprocess').map(parent);
      expect(pre).toEqual(['forward', 'item', 'item', 'evaluate', 'test', 'train', undefined]);
      expect(multiset(evs.filter((e) => e.cat === 'dataloader'))).toEqual({ 'dataloader/fetch.block': 3, 'dataloader/fetch.iter': 4 });
    });
  });
});
