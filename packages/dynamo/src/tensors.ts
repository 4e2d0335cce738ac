import type { TensorInfoLike, TensorMeta } from '@dftracer/tfjs';

export { numel, tensorBytes } from '@dftracer/tfjs';
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
