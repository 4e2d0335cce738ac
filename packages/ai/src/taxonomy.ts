import { instrument, type Instrument } from '@dftracer/core';
import { tracerOf, type AITracer } from './ai-tracer.js';
import { withLineage } from './lineage.js';
import { BLOCK_NAME, INIT_NAME, ITER_COUNT_NAME, ITER_NAME, ROOT_CAT, ROOT_NAME } from './names.js';

export { BLOCK_NAME, INIT_NAME, ITER_COUNT_NAME, ITER_NAME, ROOT_CAT, ROOT_NAME };

/** `open`, `read`, `write`, `close` under `<category>.io` (pydftracer's explicit I/O tags). */
export interface AIIo extends AITracer {
  readonly open: AITracer;
  readonly read: AITracer;
  readonly write: AITracer;
  readonly close: AITracer;
}

export interface AICompute extends AITracer {
  readonly forward: AITracer;
  readonly backward: AITracer;
  readonly step: AITracer;
}

export interface AIData extends AITracer {
  readonly preprocess: AITracer;
  readonly item: AITracer;
  readonly io: AIIo;
}

export interface AIDataLoader extends AITracer {
  readonly fetch: AITracer;
}

export interface AIComm extends AITracer {
  readonly send: AITracer;
  readonly receive: AITracer;
  readonly barrier: AITracer;
  readonly bcast: AITracer;
  readonly reduce: AITracer;
  readonly all_reduce: AITracer;
  readonly gather: AITracer;
  readonly all_gather: AITracer;
  readonly scatter: AITracer;
  readonly reduce_scatter: AITracer;
  readonly all_to_all: AITracer;
  readonly allReduce: AITracer;
  readonly allGather: AITracer;
  readonly reduceScatter: AITracer;
  readonly allToAll: AITracer;
}

export interface AIDevice extends AITracer {
  readonly transfer: AITracer;
}

export interface AICheckpoint extends AITracer {
  readonly capture: AITracer;
  readonly restart: AITracer;
  readonly io: AIIo;
}

export interface AIPipeline extends AITracer {
  readonly epoch: AITracer;
  readonly train: AITracer;
  readonly evaluate: AITracer;
  readonly test: AITracer;
}

export interface AIOther extends AITracer {
  readonly log: AITracer;
  readonly io: AIIo;
}

export interface AI extends AITracer {
  readonly compute: AICompute;
  readonly data: AIData;
  readonly dataloader: AIDataLoader;
  readonly comm: AIComm;
  readonly device: AIDevice;
  readonly checkpoint: AICheckpoint;
  readonly pipeline: AIPipeline;
  readonly other: AIOther;
}

/** pydftracer's categories and the event names of their children. */
const TAXONOMY = {
  compute: ['forward', 'backward', 'step'],
  data: ['preprocess', 'item'],
  dataloader: ['fetch'],
  comm: ['send', 'receive', 'barrier', 'bcast', 'reduce', 'all_reduce', 'gather', 'all_gather', 'scatter', 'reduce_scatter', 'all_to_all'],
  device: ['transfer'],
  checkpoint: ['capture', 'restart'],
  pipeline: ['epoch', 'train', 'evaluate', 'test'],
  other: [],
} as const;
/** Categories with explicit I/O children (`data.io.read`, …). */
const WITH_IO = new Set(['data', 'checkpoint', 'other']);
/** Derived (dotted) children: `other.log`. */
const DERIVED: Record<string, readonly string[]> = { other: ['log'] };
const IO_OPS = ['open', 'read', 'write', 'close'] as const;

function attach(target: AITracer, key: string, child: AITracer): void {
  Object.defineProperty(target, key, { value: child, enumerable: true });
}

function io(parent: Instrument): AIIo {
  const ioIns = parent.derive('io');
  const t = tracerOf(ioIns) as AIIo;
  for (const op of IO_OPS) attach(t, op, tracerOf(ioIns.derive(op)));
  return t;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** A fresh taxonomy tree (the package's `ai` is one; tests may build their own). */
export function createAI(): AI {
  const root = instrument(ROOT_CAT, ROOT_NAME, { iter: { wait: ITER_NAME, hold: BLOCK_NAME, counter: ITER_COUNT_NAME }, used: 'ai' });
  const ai = tracerOf(root) as AI;
  for (const [cat, names] of Object.entries(TAXONOMY)) {
    const catIns = root.child(cat, { cat });
    const catTracer = tracerOf(catIns);
    for (const name of names) {
      const child = tracerOf(catIns.child(name));
      attach(catTracer, name, child);
      if (camel(name) !== name) attach(catTracer, camel(name), child);
    }
    for (const name of DERIVED[cat] ?? []) attach(catTracer, name, tracerOf(catIns.derive(name)));
    if (WITH_IO.has(cat)) attach(catTracer, 'io', io(catIns));
    attach(ai, cat, catTracer);
  }
  // A checkpoint written says which data it came from (entities and relations).
  withLineage((ai as unknown as { checkpoint: { capture: AITracer } }).checkpoint.capture);
  return ai;
}

/** pydftracer's `ai`: every tracer of the taxonomy, one tree. */
export const ai: AI = createAI();
