import type { KernelCall, TensorInfoLike } from '@dftracer/tfjs/internal';
import { kernelCost, type KernelClass, type NamedMeta } from './flops.js';
import type { GraphNode, NodeOp } from './graph.js';
import type { TensorMeta } from './tensors.js';

interface MutableNode {
  op: NodeOp;
  name: string;
  target: string;
  args: GraphNode[];
  kwargs: Record<string, unknown>;
  inputs: NamedMeta[];
  outputs: TensorMeta[];
  module: string | null;
  gradEnabled: boolean;
  backward: boolean;
  flops: number;
  kind: KernelClass | null;
}

interface Producer {
  readonly shape: readonly number[];
  readonly node: MutableNode;
}

/** A finished stretch of a call: its nodes in graph order. */
export interface CapturedPartition {
  readonly nodes: readonly GraphNode[];
  readonly partition: number;
}

const meta = (t: TensorInfoLike): TensorMeta => ({ shape: [...t.shape], dtype: t.dtype });
const sameShape = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, i) => d === b[i]);

/** torch.fx-style node names: `FusedConv2D` → `fused_conv2d`, `_FusedMatMul` → `fused_mat_mul`. */
export function snakeName(s: string): string {
  const n = s
    .replace(/^_+/, '')
    .replace(/(\d)D\b/g, '$1d')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toLowerCase();
  return /^[a-z_]/.test(n) ? n : `_${n}`;
}

/** A layer's or variable's name as a node name: `conv2d_Conv2D1/kernel` → `conv2d_conv2d1_kernel`. */
export function identName(s: string): string {
  const n = s.replace(/[^A-Za-z0-9_]/g, '_').toLowerCase();
  return /^[a-z_]/.test(n) ? n : `_${n}`;
}

function node(op: NodeOp, name: string, target: string, outputs: TensorMeta[]): MutableNode {
  return { op, name, target, args: [], kwargs: {}, inputs: [], outputs, module: null, gradEnabled: false, backward: false, flops: 0, kind: null };
}

class Partition {
  readonly placeholders: MutableNode[] = [];
  readonly attrs: MutableNode[] = [];
  readonly body: MutableNode[] = [];
  readonly producers = new Map<object, Producer[]>();
  readonly attrByData = new Map<object, MutableNode>();
  private readonly used = new Map<string, number>();
  kernels = 0;

  unique(base: string): string {
    const n = this.used.get(base);
    this.used.set(base, (n ?? 0) + 1);
    return n === undefined ? base : `${base}_${n}`;
  }

  produce(t: TensorInfoLike, n: MutableNode): void {
    const list = this.producers.get(t.dataId);
    if (list === undefined) this.producers.set(t.dataId, [{ shape: t.shape, node: n }]);
    // Kernels that hand back their input's buffer (cpu Reshape, the tape's Identity copies) share
    // its dataId: a tensor is its dataId and shape, and the first node to make it keeps it.
    else if (!list.some((p) => sameShape(p.shape, t.shape))) list.push({ shape: t.shape, node: n });
  }

  producerOf(t: TensorInfoLike): MutableNode | undefined {
    const list = this.producers.get(t.dataId);
    if (list === undefined) return undefined;
    return (list.find((p) => sameShape(p.shape, t.shape)) ?? list[list.length - 1]!).node;
  }
}

/**
 * Builds the graph of a compiled call from its kernels as they run: inputs become placeholders,
 * model weights and variables get_attr nodes, kernels call_function nodes wired by tensor
 * identity, layers call_module nodes; a data read (dataSync, data, array) ends one graph and
 * starts the next, as Dynamo's graph breaks do.
 */
export class GraphCapture {
  private part: Partition;
  private readonly finished: CapturedPartition[] = [];
  /** Tensors made by earlier partitions: later ones take them as inputs. */
  private readonly earlier = new Map<object, { name: string; meta: TensorMeta }[]>();
  private readonly modules: MutableNode[] = [];
  private constants = 0;

  constructor(
    private readonly inputs: readonly { readonly name: string; readonly tensor: TensorInfoLike }[],
    /** dataId → name of the model's weights and the engine's registered variables. */
    private readonly params: ReadonlyMap<object, string>,
  ) {
    this.part = this.open();
  }

  private open(): Partition {
    const p = new Partition();
    for (const { name, tensor } of this.inputs) {
      const n = node('placeholder', p.unique(name), name, [meta(tensor)]);
      p.placeholders.push(n);
      p.produce(tensor, n);
    }
    return p;
  }

  /** The node a kernel input comes from; makes placeholders and get_attr nodes on first use. */
  private resolve(t: TensorInfoLike): MutableNode {
    const p = this.part;
    const made = p.producerOf(t);
    if (made !== undefined) return made;
    let n = p.attrByData.get(t.dataId);
    if (n !== undefined) return n;
    const param = this.params.get(t.dataId);
    const before = this.earlier.get(t.dataId);
    const prior = before?.find((b) => sameShape(b.meta.shape, t.shape)) ?? before?.[0];
    if (param !== undefined) {
      n = node('get_attr', p.unique(identName(param)), param, [meta(t)]);
      p.attrs.push(n);
    } else if (prior !== undefined) {
      n = node('placeholder', p.unique(prior.name), prior.name, [meta(t)]);
      p.placeholders.push(n);
    } else {
      const name = `_tensor_constant${this.constants++}`;
      n = node('get_attr', p.unique(name), name, [meta(t)]);
      p.attrs.push(n);
    }
    p.attrByData.set(t.dataId, n);
    return n;
  }

  kernel(c: KernelCall, gradEnabled: boolean): void {
    const p = this.part;
    const n = node('call_function', p.unique(snakeName(c.kernelName)), c.kernelName, c.outputs.map(meta));
    for (const key in c.inputs) {
      const t = c.inputs[key];
      if (t == null) continue;
      n.args.push(this.resolve(t) as GraphNode);
      n.inputs.push({ key, shape: [...t.shape], dtype: t.dtype });
    }
    if (c.attrs !== undefined) for (const k in c.attrs) if (c.attrs[k] !== undefined) n.kwargs[k] = c.attrs[k];
    const cost = kernelCost(c.kernelName, n.inputs, n.outputs, c.attrs);
    n.flops = cost.flops;
    n.kind = cost.kind;
    n.gradEnabled = gradEnabled;
    n.backward = c.backward;
    const top = this.modules[this.modules.length - 1];
    n.module = top?.name ?? null;
    for (const m of this.modules) m.flops += cost.flops;
    p.body.push(n);
    p.kernels++;
    for (const t of c.outputs) p.produce(t, n);
  }

  enterModule(layerName: string, className: string, inputs: readonly TensorInfoLike[], gradEnabled: boolean): void {
    const p = this.part;
    const n = node('call_module', p.unique(identName(layerName)), layerName, []);
    n.kwargs.class = className;
    n.gradEnabled = gradEnabled;
    n.module = this.modules[this.modules.length - 1]?.name ?? null;
    for (const t of inputs) {
      n.args.push(this.resolve(t) as GraphNode);
      n.inputs.push({ key: `${n.inputs.length}`, shape: [...t.shape], dtype: t.dtype });
    }
    p.body.push(n);
    this.modules.push(n);
  }

  exitModule(outputs: readonly TensorInfoLike[]): void {
    const n = this.modules.pop();
    if (n !== undefined) n.outputs = outputs.map(meta);
  }

  /** A data read inside the call: the graph so far ends with the read tensor as its output. */
  read(dataId: object): void {
    const p = this.part;
    if (p.kernels === 0) return;
    const list = p.producers.get(dataId);
    const made = list?.[list.length - 1]?.node;
    if (made === undefined || made.op === 'placeholder') return;
    this.close([made]);
    this.part = this.open();
  }

  private close(results: MutableNode[]): void {
    const p = this.part;
    const out = node('output', 'output', 'output', results.flatMap((r) => r.outputs.slice(0, 1)));
    out.args = results as GraphNode[];
    const nodes = [...p.placeholders, ...p.attrs, ...p.body, out];
    this.finished.push({ nodes, partition: this.finished.length });
    // A later partition names a tensor it takes from this one after the node that made it.
    for (const [dataId, producers] of p.producers) {
      for (const pr of producers) {
        if (pr.node.op !== 'call_function') continue;
        const list = this.earlier.get(dataId) ?? [];
        list.push({ name: pr.node.name, meta: { shape: pr.shape, dtype: pr.node.outputs[0]?.dtype ?? 'float32' } });
        this.earlier.set(dataId, list);
      }
    }
  }

  /** Ends the capture with the call's result; returns every partition with kernels in it. */
  finish(result: readonly TensorInfoLike[]): CapturedPartition[] {
    if (this.part.kernels > 0) this.close(result.map((t) => this.resolve(t)));
    return this.finished;
  }
}
