import type { KernelClass, NamedMeta } from './flops.js';
import { tensorBytes, typeText, type TensorMeta } from './tensors.js';

/** What a node does, with torch.fx's vocabulary. */
export type NodeOp = 'placeholder' | 'get_attr' | 'call_function' | 'call_module' | 'output';

export interface GraphNode {
  readonly op: NodeOp;
  /** Unique within its graph (`fused_conv2d`, `relu_1`, `conv2d_Conv2D1_kernel`). */
  readonly name: string;
  /** The kernel (`Conv2D`), the layer's name, the variable's name, or the input's name. */
  readonly target: string;
  /** The nodes whose outputs this node reads, in the kernel's input order. */
  readonly args: readonly GraphNode[];
  /** Kernel attributes (strides, pad, transposeA, …); a module's class. */
  readonly kwargs: Readonly<Record<string, unknown>>;
  /** The types of the inputs, with the kernel's own input names (`x`, `filter`, `bias`). */
  readonly inputs: readonly NamedMeta[];
  readonly outputs: readonly TensorMeta[];
  /** The innermost layer (call_module node name) a kernel ran in; null outside layers. */
  readonly module: string | null;
  /** Whether autograd was recording (a taped forward or a backward kernel). */
  readonly gradEnabled: boolean;
  /** A backward kernel of tf.grad / variableGrads / optimizer.minimize run inside the call. */
  readonly backward: boolean;
  /** Estimated FLOPs: a kernel's own, a module's kernels' sum, 0 for other nodes. */
  readonly flops: number;
  /** The kernel's class for FLOP accounting; null for nodes that are not kernels. */
  readonly kind: KernelClass | null;
}

export interface MemoryEstimate {
  /** Bytes of the graph's inputs (placeholders). */
  readonly inputs: number;
  /** Bytes of weights, variables and constants (get_attr). */
  readonly params: number;
  /** Bytes of every kernel output (call_function). */
  readonly activations: number;
  readonly total: number;
}

export interface FlopsEstimate {
  readonly total: number;
  /** FLOPs per kernel name. */
  readonly byTarget: Readonly<Record<string, number>>;
  /** FLOPs per kernel class (conv, matmul, elementwise, pooling, reduction, …). */
  readonly byKind: Readonly<Record<string, number>>;
}

export interface NodeIntensity {
  readonly name: string;
  readonly target: string;
  readonly flops: number;
  /** Bytes read and written: the inputs' and outputs' sizes. */
  readonly bytes: number;
  /** FLOPs per byte. */
  readonly intensity: number;
  readonly bound: 'memory' | 'compute';
}

const sum = (ts: readonly TensorMeta[]): number => ts.reduce((n, t) => n + tensorBytes(t), 0);

function valueText(v: unknown): string {
  if (typeof v === 'string') return `'${v}'`;
  if (Array.isArray(v)) return `[${v.map(valueText).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${k}: ${valueText(x)}`).join(', ')}}`;
  return String(v);
}

function kwargsText(kw: Readonly<Record<string, unknown>>): string {
  const parts = Object.entries(kw)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}: ${valueText(v)}`);
  return `{${parts.join(', ')}}`;
}

/** Python's tuple text, as torch.fx prints args: `()`, `(x,)`, `(x, w)`. */
function argsText(args: readonly GraphNode[]): string {
  if (args.length === 1) return `(${args[0]!.name},)`;
  return `(${args.map((a) => a.name).join(', ')})`;
}

/**
 * One captured graph: what a compiled call ran for one input signature (or one stretch of it
 * between graph breaks), as a torch.compile backend receives an FX graph.
 */
export class Graph {
  constructor(
    /** The compiled function's name (`forward`, `sequential_1.predict`). */
    readonly fn: string,
    /** Position in `backend.graphs`. */
    readonly index: number,
    /** The input guard this graph was captured for (`float32[1,32,32,3]`). */
    readonly signature: string,
    readonly nodes: readonly GraphNode[],
    /** Which stretch of the call: 0, or 1, 2, … after data-dependent reads (graph breaks). */
    readonly partition: number,
  ) {}

  get name(): string {
    return `${this.fn}_graph_${this.index}`;
  }

  /** Nodes of one kind. */
  select(op: NodeOp): GraphNode[] {
    return this.nodes.filter((n) => n.op === op);
  }

  /** The structure (ops, targets, types) that tells two captures apart. */
  fingerprint(): string {
    return this.nodes.map((n) => `${n.op}:${n.target}:${n.args.map((a) => a.name).join(',')}:${n.outputs.map(typeText).join(',')}`).join(';');
  }

  /** The node table, with torch.fx's `print_tabular` columns. */
  tabular(): string {
    const header = ['opcode', 'name', 'target', 'args', 'kwargs'];
    const rows = this.nodes.map((n) => [n.op, n.name, n.target, argsText(n.args), kwargsText(n.kwargs)]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
    return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
  }

  /** Prints `tabular()` to stdout and returns it. */
  printTabular(): string {
    const t = this.tabular();
    console.log(t);
    return t;
  }

  /** How many times each kernel runs in the graph. */
  opCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const n of this.nodes) if (n.op === 'call_function') counts[n.target] = (counts[n.target] ?? 0) + 1;
    return counts;
  }

  /** Tensor bytes: inputs, parameters and constants, and every kernel output. */
  estimateMemory(): MemoryEstimate {
    let inputs = 0;
    let params = 0;
    let activations = 0;
    for (const n of this.nodes) {
      if (n.op === 'placeholder') inputs += sum(n.outputs);
      else if (n.op === 'get_attr') params += sum(n.outputs);
      else if (n.op === 'call_function') activations += sum(n.outputs);
    }
    return { inputs, params, activations, total: inputs + params + activations };
  }

  /** FLOPs of the graph's kernels (see `kernelCost` for what each kernel counts). */
  estimateFlops(): FlopsEstimate {
    let total = 0;
    const byTarget: Record<string, number> = {};
    const byKind: Record<string, number> = {};
    for (const n of this.nodes) {
      if (n.op !== 'call_function') continue;
      total += n.flops;
      byTarget[n.target] = (byTarget[n.target] ?? 0) + n.flops;
      byKind[n.kind!] = (byKind[n.kind!] ?? 0) + n.flops;
    }
    return { total, byTarget, byKind };
  }

  /**
   * Arithmetic intensity of each kernel: FLOPs per byte moved. At or above `ridge` FLOPs/byte a
   * kernel is compute-bound, below it memory-bound; the default 1.0 is the usual rule of thumb,
   * a machine's own ridge is its peak FLOP/s over its memory bandwidth.
   */
  intensity(options: { ridge?: number } = {}): NodeIntensity[] {
    const ridge = options.ridge ?? 1;
    if (!(typeof ridge === 'number' && ridge > 0)) throw new TypeError(`intensity: options.ridge must be a positive number of FLOPs per byte; got ${String(ridge)}`);
    return this.nodes
      .filter((n) => n.op === 'call_function')
      .map((n) => {
        const bytes = sum(n.inputs) + sum(n.outputs);
        const ai = bytes > 0 ? n.flops / bytes : 0;
        return { name: n.name, target: n.target, flops: n.flops, bytes, intensity: ai, bound: ai >= ridge ? 'compute' : 'memory' };
      });
  }

  /** The graph as readable TypeScript-like code: one statement per kernel, typed by comments. */
  code(): string {
    const lines: string[] = [];
    const inputs = this.select('placeholder');
    lines.push(`function ${this.fn.replace(/[^A-Za-z0-9_$]/g, '_')}(${inputs.map((p) => `${p.name} /* ${p.outputs.map(typeText).join(', ')} */`).join(', ')}) {`);
    let module: string | null = null;
    for (const n of this.nodes) {
      const type = n.outputs.map(typeText).join(', ');
      if (n.op === 'get_attr') lines.push(`  const ${n.name} = this[${JSON.stringify(n.target)}]; // ${type}`);
      else if (n.op === 'call_module') lines.push(`  // ${n.name}: ${String(n.kwargs.class ?? 'module')}(${n.args.map((a) => a.name).join(', ')}) -> ${type}`);
      else if (n.op === 'call_function') {
        if (n.module !== module && n.module === null && module !== null) lines.push('  // (outside layers)');
        module = n.module;
        const ins = n.args.map((a, i) => `${n.inputs[i]?.key ?? i}: ${a.name}`).join(', ');
        const attrs = Object.keys(n.kwargs).length > 0 ? `, ${kwargsText(n.kwargs)}` : '';
        const tag = n.backward ? ' [backward]' : '';
        lines.push(`  const ${n.name} = ${n.target}({ ${ins} }${attrs}); // ${type}${tag}`);
      } else if (n.op === 'output') lines.push(`  return ${n.args.length === 1 ? n.args[0]!.name : `[${n.args.map((a) => a.name).join(', ')}]`};`);
    }
    lines.push('}');
    return lines.join('\n');
  }
}
