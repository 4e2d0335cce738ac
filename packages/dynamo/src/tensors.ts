import type { TensorInfoLike, TensorMeta } from '@dftracer/tfjs/internal';

export { numel, tensorBytes } from '@dftracer/tfjs/internal';
export type { TensorMeta };

/** A tensor's type as the graph and the events show it: `float32[1,32,32,3]`. */
export function typeText(t: TensorMeta): string {
  return `${t.dtype}[${t.shape.join(',')}]`;
}

const DTYPE_CODES: Readonly<Record<string, number>> = { float32: 1, int32: 2, bool: 3, complex64: 4, string: 5, float16: 6, int64: 7 };
const CACHE_LIMIT = 4096;

/**
 * Type strings by content, so a kernel called again with the same types gets the same string
 * object: building and hashing a fresh string per kernel is most of an event's cost, and the
 * tracer interns strings by value (an old string's hash is cached in it, a new one's is not).
 */
class TypesTextCache {
  private readonly entries = new Map<number, { readonly key: Int32Array; readonly text: string }>();
  private scratch = new Int32Array(64);
  private n = 0;

  private push(v: number): void {
    if (this.n === this.scratch.length) {
      const grown = new Int32Array(this.scratch.length * 2);
      grown.set(this.scratch);
      this.scratch = grown;
    }
    this.scratch[this.n++] = v;
  }

  private add(t: TensorInfoLike): void {
    const code = DTYPE_CODES[t.dtype];
    // A dtype without a code is written out in the text; keyed by its length it could collide.
    this.push(code ?? -t.dtype.length - 100);
    this.push(t.shape.length);
    for (let i = 0; i < t.shape.length; i++) this.push(t.shape[i]!);
  }

  text(ts: readonly TensorInfoLike[] | Readonly<Record<string, TensorInfoLike | undefined>>): string {
    this.n = 0;
    let unknown = false;
    if (Array.isArray(ts)) {
      for (let i = 0; i < ts.length; i++) {
        const t = ts[i] as TensorInfoLike;
        if (DTYPE_CODES[t.dtype] === undefined) unknown = true;
        this.add(t);
      }
    } else {
      for (const k in ts) {
        const t = (ts as Record<string, TensorInfoLike | undefined>)[k];
        if (t == null) continue;
        if (DTYPE_CODES[t.dtype] === undefined) unknown = true;
        this.add(t);
      }
    }
    if (unknown) return buildTypesText(ts);
    let h = 0x811c9dc5;
    for (let i = 0; i < this.n; i++) h = Math.imul(h ^ this.scratch[i]!, 0x01000193);
    const e = this.entries.get(h);
    if (e !== undefined && e.key.length === this.n) {
      let same = true;
      for (let i = 0; i < this.n && same; i++) same = e.key[i] === this.scratch[i];
      if (same) return e.text;
    }
    const text = buildTypesText(ts);
    if (this.entries.size >= CACHE_LIMIT) this.entries.clear();
    this.entries.set(h, { key: this.scratch.slice(0, this.n), text });
    return text;
  }
}

const cache = new TypesTextCache();

/** Kernel inputs or outputs as one short string, e.g. `float32[1,30,30,16], float32[16]`. */
export function typesText(ts: readonly TensorInfoLike[] | Readonly<Record<string, TensorInfoLike | undefined>>): string {
  return cache.text(ts);
}

type Tensors = readonly TensorInfoLike[] | Readonly<Record<string, TensorInfoLike | undefined>>;

/** One remembered set of types: dtypes, flattened dims (rank, dims, rank, dims…) and their text. */
class TypesEntry {
  dtypes: string[] = [];
  dims: Float64Array = new Float64Array(16);
  n = 0;
  count = -1;
  text = '';

  same(ts: Tensors): boolean {
    if (this.count < 0) return false;
    let k = 0;
    let d = 0;
    if (Array.isArray(ts)) {
      for (let i = 0; i < ts.length; i++) {
        const t = ts[i] as TensorInfoLike | undefined;
        if (t == null) continue;
        if (k === this.count || t.dtype !== this.dtypes[k]) return false;
        d = this.sameDims(t.shape, d);
        if (d < 0) return false;
        k++;
      }
    } else {
      for (const key in ts) {
        const t = (ts as Record<string, TensorInfoLike | undefined>)[key];
        if (t == null) continue;
        if (k === this.count || t.dtype !== this.dtypes[k]) return false;
        d = this.sameDims(t.shape, d);
        if (d < 0) return false;
        k++;
      }
    }
    return k === this.count && d === this.n;
  }

  /** Where the next tensor's dims start if `shape` matches the remembered dims at `d`, else -1. */
  private sameDims(shape: readonly number[], d: number): number {
    const dims = this.dims;
    if (d >= this.n || dims[d] !== shape.length) return -1;
    for (let i = 0; i < shape.length; i++) if (dims[d + 1 + i] !== shape[i]) return -1;
    return d + 1 + shape.length;
  }

  private add(t: TensorInfoLike | undefined): void {
    if (t == null) return;
    const s = t.shape;
    if (this.n + 1 + s.length > this.dims.length) {
      const grown = new Float64Array((this.n + 1 + s.length) * 2);
      grown.set(this.dims);
      this.dims = grown;
    }
    this.dtypes[this.count++] = t.dtype;
    this.dims[this.n++] = s.length;
    for (let i = 0; i < s.length; i++) this.dims[this.n++] = s[i]!;
  }

  remember(ts: Tensors, text: string): void {
    this.n = 0;
    this.count = 0;
    if (Array.isArray(ts)) for (let i = 0; i < ts.length; i++) this.add(ts[i] as TensorInfoLike | undefined);
    else for (const key in ts) this.add((ts as Record<string, TensorInfoLike | undefined>)[key]);
    this.dtypes.length = this.count;
    this.text = text;
  }
}

/**
 * Sets of types a call site keeps: a kernel runs with a few (forward, backward, other layers);
 * Reshape runs with one per layer that flattens or adds a batch dim (7 in a small CNN's forward).
 */
const MEMO_ENTRIES = 8;
/** Misses before a memo that misses more often than it hits gives up for the shared cache. */
const MEMO_TRIAL = 32;

/**
 * The types text of one call site's tensors (a kernel's inputs, or its outputs), remembered from
 * its last few calls: a kernel is mostly called again with types it had, and comparing dtypes and
 * dims with those costs less than hashing them into the shared cache.
 */
export class TypesMemo {
  private readonly entries: TypesEntry[] = [];
  private next = 0;
  /** Where the search starts: after the entry that matched last, as a pass runs a kernel's calls in the same order each time. */
  private from = 0;
  private hits = 0;
  private misses = 0;

  text(ts: Tensors): string {
    // A kernel run with many types (Identity, Reshape in a train step) would only thrash the memo.
    if (this.misses > MEMO_TRIAL && this.misses * 2 > this.hits) return cache.text(ts);
    const es = this.entries;
    const n = es.length;
    for (let k = 0, i = this.from; k < n; k++) {
      const e = es[i]!;
      if (e.same(ts)) {
        this.hits++;
        this.from = i + 1 === n ? 0 : i + 1;
        return e.text;
      }
      i = i + 1 === n ? 0 : i + 1;
    }
    this.misses++;
    const text = cache.text(ts);
    let e = es[this.next];
    if (e === undefined) es.push((e = new TypesEntry()));
    this.next = (this.next + 1) % MEMO_ENTRIES;
    e.remember(ts, text);
    return text;
  }
}

function buildTypesText(ts: readonly TensorInfoLike[] | Readonly<Record<string, TensorInfoLike | undefined>>): string {
  let s = '';
  const list = Array.isArray(ts) ? ts : Object.values(ts);
  for (const t of list) {
    if (t == null) continue;
    s += (s === '' ? '' : ', ') + t.dtype + '[' + t.shape.join(',') + ']';
  }
  return s;
}

/** A tfjs Tensor (or anything shaped like one), without importing tfjs's class. */
export function isTensor(v: unknown): v is TensorInfoLike & { readonly id: number } {
  if (v === null || typeof v !== 'object') return false;
  const t = v as { dataId?: unknown; shape?: unknown; dtype?: unknown };
  return t.dataId != null && Array.isArray(t.shape) && typeof t.dtype === 'string';
}

/** Every tensor in a value (a tensor, arrays and plain objects of them), in order, with its path. */
export function flattenTensors(v: unknown, path: string, out: { path: string; tensor: TensorInfoLike }[] = [], depth = 0): { path: string; tensor: TensorInfoLike }[] {
  if (isTensor(v)) out.push({ path, tensor: v });
  else if (depth < 4 && Array.isArray(v)) v.forEach((x, i) => flattenTensors(x, `${path}_${i}`, out, depth + 1));
  else if (depth < 4 && v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    for (const [k, x] of Object.entries(v)) flattenTensors(x, `${path}_${k}`, out, depth + 1);
  }
  return out;
}

/**
 * The guard of a compiled call, as Dynamo's: tensors by dtype and shape, other arguments by value
 * (a new batch size or a different flag is a new graph). Kept short: only what changes a graph.
 */
export function inputSignature(args: readonly unknown[]): string {
  // The common call, one tensor: the cached string itself, so the guard lookup hashes nothing new.
  if (args.length === 1 && isTensor(args[0])) return cache.text(args as readonly TensorInfoLike[]);
  let s = '';
  for (let i = 0; i < args.length; i++) s += (i === 0 ? '' : '|') + valueSignature(args[i], 0);
  return s;
}

function valueSignature(v: unknown, depth: number): string {
  if (isTensor(v)) return cache.text([v]);
  if (v === null || v === undefined) return String(v);
  const t = typeof v;
  if (t === 'number' || t === 'boolean' || t === 'bigint') return String(v);
  if (t === 'string') return JSON.stringify(v);
  if (t === 'function') return 'fn';
  if (depth >= 3) return '…';
  if (Array.isArray(v)) return `[${v.map((x) => valueSignature(x, depth + 1)).join(',')}]`;
  if (Object.getPrototypeOf(v) === Object.prototype) {
    return `{${Object.entries(v as object)
      .map(([k, x]) => `${k}:${valueSignature(x, depth + 1)}`)
      .join(',')}}`;
  }
  return (v as object).constructor?.name ?? 'object';
}
