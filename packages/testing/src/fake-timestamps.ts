/**
 * Gives a real tfjs WebGPU backend (on Mesa's software renderer, which has no timestamp queries)
 * a `timestamp-query` feature with known timestamps: every compute pass that asks for timestamp
 * writes gets a begin and an end on a fake GPU clock, and a resolve of the query set into a
 * buffer that is then copied to a mappable buffer delivers them. The kernels themselves run for
 * real; only the clock is made up, so tests can check device times exactly.
 */

interface Backend {
  device: object;
  commandEncoder: unknown;
  submitQueue(): void;
}

interface Pass {
  readonly set: object;
  readonly beginIndex: number;
  readonly endIndex: number;
}

export interface FakeTimestamps {
  /** Duration in ns given to each timed pass, in the order the passes were recorded. */
  readonly durationsNs: number[];
  /** Passes recorded with timestamp writes so far. */
  readonly passes: number;
  /** Puts the backend's own device back. */
  restore(): void;
}

const QUERY_RESOLVE = 0x0200;
const GAP_NS = 7_000;

/** `durationNs(k)` is the k-th timed pass's duration (default (k % 7 + 1) µs). */
export function fakeTimestamps(backend: Backend, durationNs: (k: number) => number = (k) => ((k % 7) + 1) * 1000): FakeTimestamps {
  const real = backend.device as Record<string, any>;
  const queue = real.queue as { writeBuffer(buffer: unknown, offset: number, data: ArrayBufferView): void };
  const durations: number[] = [];
  // What each query slot holds, per query set, on the fake GPU clock (ns).
  const values = new Map<object, bigint[]>();
  const resolved = new WeakMap<object, { set: object; first: number; count: number }>();
  let clock = 1_000_000_000n;

  const stamp = (p: Pass) => {
    const d = durationNs(durations.length);
    durations.push(d);
    const slots = values.get(p.set)!;
    clock += BigInt(GAP_NS);
    slots[p.beginIndex] = clock;
    clock += BigInt(d);
    slots[p.endIndex] = clock;
  };

  const wrapEncoder = (enc: Record<string, any>) =>
    new Proxy(enc, {
      get(target, prop) {
        if (prop === 'beginComputePass') {
          return (desc: { timestampWrites?: { querySet: object; beginningOfPassWriteIndex: number; endOfPassWriteIndex: number } } = {}) => {
            const tw = desc.timestampWrites;
            if (tw === undefined) return target.beginComputePass(desc);
            const { timestampWrites: _dropped, ...rest } = desc;
            // Stamped when recorded: pass order is execution order on one queue.
            stamp({ set: tw.querySet, beginIndex: tw.beginningOfPassWriteIndex, endIndex: tw.endOfPassWriteIndex });
            return target.beginComputePass(rest);
          };
        }
        if (prop === 'resolveQuerySet') {
          return (set: object, first: number, count: number, destination: object) => {
            resolved.set(destination, { set, first, count });
          };
        }
        if (prop === 'copyBufferToBuffer') {
          return (src: object, srcOffset: number, dst: object, dstOffset: number, size: number) => {
            const r = resolved.get(src);
            if (r === undefined) return target.copyBufferToBuffer(src, srcOffset, dst, dstOffset, size);
            const slots = values.get(r.set)!;
            const out = new BigUint64Array(size / 8);
            for (let i = 0; i < out.length; i++) out[i] = slots[r.first + srcOffset / 8 + i] ?? 0n;
            queue.writeBuffer(dst, dstOffset, out);
          };
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });

  const overrides: Record<string, unknown> = {
    features: new Set([...(real.features as Iterable<string>), 'timestamp-query']),
    createQuerySet: (d: { count: number }) => {
      const set = { destroy() {} };
      values.set(set, new Array<bigint>(d.count).fill(0n));
      return set;
    },
    // Dawn refuses QUERY_RESOLVE without the feature: the resolve target is never used by the GPU.
    createBuffer: (d: { size: number; usage: number }) => real.createBuffer({ ...d, usage: d.usage & ~QUERY_RESOLVE || 0x0008 }),
    createCommandEncoder: (d?: object) => wrapEncoder(real.createCommandEncoder(d)),
  };
  const proxy = new Proxy(real, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in overrides) return overrides[prop];
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  if (backend.commandEncoder != null) backend.submitQueue();
  backend.device = proxy;
  return {
    durationsNs: durations,
    get passes() {
      return durations.length;
    },
    restore() {
      if (backend.commandEncoder != null) backend.submitQueue();
      backend.device = real;
    },
  };
}
