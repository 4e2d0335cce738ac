import { jsonArg, type JsonArg } from '@dftracer/core';
import { dtypeBytes } from '@dftracer/tfjs/internal';

export type Tensor = { shape: number[]; dtype: string; size: number; isDisposed: boolean; data(): Promise<unknown> };
type IsTensor = (x: unknown) => x is Tensor;

/**
 * The tensor test of a tfjs namespace: `instanceof tf.Tensor`, whose `Symbol.hasInstance` is a
 * function reading three properties, asked only of objects that are not plain `tf.Tensor`s by
 * prototype (what ops return): the same answers, at the cost of one load on every call.
 */
export function tensorTest(TensorClass: abstract new (...args: never[]) => unknown): IsTensor {
  // tf.Tensor read once by the caller: on a bundled namespace each read is a getter call.
  const proto: unknown = TensorClass.prototype;
  return (x: unknown): x is Tensor => (typeof x === 'object' && x !== null && Object.getPrototypeOf(x) === proto) || x instanceof TensorClass;
}

/** The tensors a call returned: one, an array of them, or an object's tensor values. */
export function tensorsIn(v: unknown, isTensor: IsTensor): Tensor[] {
  if (isTensor(v)) return [v];
  if (Array.isArray(v)) return v.filter(isTensor);
  if (isPlainObject(v)) return Object.values(v).filter(isTensor);
  return [];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

const CACHE_LIMIT = 4096;

interface ShapesEntry {
  readonly hash: number;
  /** The tensor count, then the flattened shapes. */
  readonly key: readonly number[];
  readonly arg: JsonArg;
}

/**
 * What a call's returned tensors add to its event (`out_shape`, `out_bytes`), read without
 * allocating: the shapes' JSON is made once per distinct shapes (by content: tfjs gives each
 * tensor its own shape array) and reused by every later event with the same shapes.
 */
export class OutputFacts {
  /** Tensors found by the last `read`, their bytes, and their shapes as the event's arg. */
  count = 0;
  bytes = 0;
  shapes: JsonArg | undefined = undefined;
  private readonly cache = new Map<number, ShapesEntry>();
  private last: ShapesEntry | undefined = undefined;
  /** The shapes just read, flattened (rank, dims, rank, dims…), in `key[0…n)`. */
  private key: Float64Array = new Float64Array(64);
  private n = 0;
  /** The last dtype seen and its bytes per element. */
  private dtype = '';
  private dtypeSize = 0;

  constructor(private readonly isTensor: IsTensor) {}

  /** Reads the tensors of `v` (see tensorsIn); false when it holds none. `shapes` false: count and bytes only. */
  read(v: unknown, shapes = true): boolean {
    this.count = 0;
    this.bytes = 0;
    this.n = 0;
    if (this.isTensor(v)) this.add(v);
    else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) this.addIf(v[i]);
    else if (isPlainObject(v)) for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) this.addIf(v[k]);
    if (this.count === 0) {
      this.shapes = undefined;
      return false;
    }
    this.shapes = shapes ? this.intern(v) : undefined;
    return true;
  }

  private addIf(x: unknown): void {
    if (this.isTensor(x)) this.add(x);
  }

  private add(t: Tensor): void {
    this.count++;
    // Calls see one dtype after another: the table is asked again only when it changes.
    const d = t.dtype;
    if (d !== this.dtype) {
      this.dtype = d;
      this.dtypeSize = dtypeBytes(d);
    }
    this.bytes += t.size * this.dtypeSize;
    const s = t.shape;
    if (this.n + s.length + 1 > this.key.length) {
      const k = new Float64Array((this.n + s.length + 1) * 2);
      k.set(this.key);
      this.key = k;
    }
    const key = this.key;
    key[this.n++] = s.length;
    for (let i = 0; i < s.length; i++) key[this.n++] = s[i]!;
  }

  private intern(v: unknown): JsonArg {
    const key = this.key;
    const n = this.n;
    let h = 0x811c9dc5 ^ this.count;
    for (let i = 0; i < n; i++) h = Math.imul(h ^ key[i]!, 0x01000193);
    // Most calls repeat the last shapes: no Map lookup then.
    const last = this.last;
    if (last !== undefined && last.hash === h && sameNumbers(last.key, key, n, this.count)) return last.arg;
    const e = this.cache.get(h);
    if (e !== undefined && sameNumbers(e.key, key, n, this.count)) {
      this.last = e;
      return e.arg;
    }
    // First time for these shapes: the value as the event has always written it.
    const ts = tensorsIn(v, this.isTensor);
    const arg = jsonArg(ts.length === 1 ? ts[0]!.shape.slice() : ts.map((t) => t.shape.slice()));
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    const entry = { hash: h, key: [this.count, ...key.subarray(0, n)], arg };
    this.cache.set(h, entry);
    this.last = entry;
    return arg;
  }
}

function sameNumbers(stored: readonly number[], key: Float64Array, n: number, count: number): boolean {
  if (stored.length !== n + 1 || stored[0] !== count) return false;
  for (let i = 0; i < n; i++) if (stored[i + 1] !== key[i]) return false;
  return true;
}
