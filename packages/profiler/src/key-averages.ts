import { DeviceType } from './activity.js';
import type { ProfilerEvent } from './events.js';
import { selfFigures } from './self-time.js';

/** The figures of one key (torch's FunctionEventAvg). Times in µs, memory in bytes. */
export interface FunctionEventAvg {
  readonly key: string;
  readonly count: number;
  /** With `groupByInputShape`: the shapes of this group, e.g. `[[8, 32, 32, 3], [3, 3, 3, 16]]`. */
  readonly inputShapes: string;
  /** With `groupByStackN`: the first N user call sites of this group. */
  readonly stack: readonly string[];
  readonly cpuTimeTotal: number;
  readonly selfCpuTimeTotal: number;
  /** Average per call. */
  readonly cpuTime: number;
  readonly deviceTimeTotal: number;
  readonly selfDeviceTimeTotal: number;
  readonly deviceTime: number;
  readonly cpuMemoryUsage: number;
  readonly selfCpuMemoryUsage: number;
  readonly deviceMemoryUsage: number;
  readonly selfDeviceMemoryUsage: number;
}

/** torch's `sort_by` names (`cuda_*` accepted for `device_*`) and their camelCase spellings. */
export type SortKey =
  | 'cpu_time' | 'cpu_time_total' | 'self_cpu_time_total'
  | 'device_time' | 'device_time_total' | 'self_device_time_total'
  | 'cuda_time' | 'cuda_time_total' | 'self_cuda_time_total'
  | 'cpu_memory_usage' | 'self_cpu_memory_usage' | 'device_memory_usage' | 'self_device_memory_usage'
  | 'cuda_memory_usage' | 'self_cuda_memory_usage' | 'count'
  | keyof Omit<FunctionEventAvg, 'key' | 'inputShapes' | 'stack'>;

export interface TableOptions {
  /** Column to sort by, descending. Default `cpu_time_total`. */
  readonly sortBy?: SortKey;
  /** Rows shown; all when omitted or ≤ 0. */
  readonly rowLimit?: number;
  /** Width of the Name column (longer names are cut with `...`). Default: the longest name, at most 55. */
  readonly maxNameColumnWidth?: number;
}

export interface KeyAveragesOptions {
  /** One row per (name, input shapes); needs `recordShapes`. */
  readonly groupByInputShape?: boolean;
  /** One row per (name, first N call sites); needs `withStack`. */
  readonly groupByStackN?: number;
}

const SORT_FIELDS: Record<string, keyof FunctionEventAvg> = {
  cpu_time: 'cpuTime', cpu_time_total: 'cpuTimeTotal', self_cpu_time_total: 'selfCpuTimeTotal',
  device_time: 'deviceTime', device_time_total: 'deviceTimeTotal', self_device_time_total: 'selfDeviceTimeTotal',
  cuda_time: 'deviceTime', cuda_time_total: 'deviceTimeTotal', self_cuda_time_total: 'selfDeviceTimeTotal',
  cpu_memory_usage: 'cpuMemoryUsage', self_cpu_memory_usage: 'selfCpuMemoryUsage',
  device_memory_usage: 'deviceMemoryUsage', self_device_memory_usage: 'selfDeviceMemoryUsage',
  cuda_memory_usage: 'deviceMemoryUsage', self_cuda_memory_usage: 'selfDeviceMemoryUsage', count: 'count',
};
for (const f of ['count', 'cpuTimeTotal', 'selfCpuTimeTotal', 'cpuTime', 'deviceTimeTotal', 'selfDeviceTimeTotal', 'deviceTime', 'cpuMemoryUsage', 'selfCpuMemoryUsage', 'deviceMemoryUsage', 'selfDeviceMemoryUsage'] as const) {
  SORT_FIELDS[f] = f;
}

interface Acc {
  key: string;
  inputShapes: string;
  stack: readonly string[];
  count: number;
  cpu: number;
  selfCpu: number;
  dev: number;
  selfDev: number;
  cpuMem: number;
  selfCpuMem: number;
  devMem: number;
  selfDevMem: number;
}

function shapesText(e: ProfilerEvent): string {
  return `[${e.inputShapes.map((s) => `[${s.join(', ')}]`).join(', ')}]`;
}

/** Events grouped by name (and optionally shapes or call sites), as torch's `key_averages()`. */
export class KeyAverages extends Array<FunctionEventAvg> {
  /** Set by `ofEvents`: which optional columns the table shows. */
  private memory = false;
  private device = false;
  private byShape = false;
  private byStack = false;

  static ofEvents(events: readonly ProfilerEvent[], options: KeyAveragesOptions = {}, memory = false): KeyAverages {
    if (options === null || typeof options !== 'object') throw new TypeError(`keyAverages: options must be an object like { groupByInputShape }; got ${String(options)}`);
    const stackN = options.groupByStackN ?? 0;
    if (!Number.isInteger(stackN) || stackN < 0) throw new TypeError(`keyAverages: groupByStackN must be an integer ≥ 0; got ${String(options.groupByStackN)}`);
    const self = selfFigures(events);
    const groups = new Map<string, Acc>();
    const out = new KeyAverages();
    out.memory = memory;
    out.byShape = options.groupByInputShape === true;
    out.byStack = stackN > 0;
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      const shapes = out.byShape ? shapesText(e) : '';
      const stack = out.byStack ? e.stack.slice(0, stackN) : [];
      const id = out.byShape || out.byStack ? `${e.name}\0${shapes}\0${stack.join('\0')}` : e.name;
      let g = groups.get(id);
      if (g === undefined) {
        g = { key: e.name, inputShapes: shapes, stack, count: 0, cpu: 0, selfCpu: 0, dev: 0, selfDev: 0, cpuMem: 0, selfCpuMem: 0, devMem: 0, selfDevMem: 0 };
        groups.set(id, g);
      }
      g.count++;
      if (e.deviceTime !== undefined) {
        // Measured on the GPU: the dispatch is host time, the programs device time (as torch
        // counts a CUDA kernel's launch under CPU and its run under CUDA).
        out.device = true;
        g.cpu += e.duration;
        g.selfCpu += self.time[i]!;
        g.dev += e.deviceTime;
        g.selfDev += e.deviceTime;
        g.devMem += e.bytesAdded;
        g.selfDevMem += self.bytes[i]!;
      } else if (e.device === DeviceType.GPU) {
        out.device = true;
        g.dev += e.duration;
        g.selfDev += self.time[i]!;
        g.devMem += e.bytesAdded;
        g.selfDevMem += self.bytes[i]!;
      } else {
        g.cpu += e.duration;
        g.selfCpu += self.time[i]!;
        g.cpuMem += e.bytesAdded;
        g.selfCpuMem += self.bytes[i]!;
      }
    }
    for (const g of groups.values()) {
      out.push({
        key: g.key, count: g.count, inputShapes: g.inputShapes, stack: g.stack,
        cpuTimeTotal: g.cpu, selfCpuTimeTotal: g.selfCpu, cpuTime: g.cpu / g.count,
        deviceTimeTotal: g.dev, selfDeviceTimeTotal: g.selfDev, deviceTime: g.dev / g.count,
        cpuMemoryUsage: g.cpuMem, selfCpuMemoryUsage: g.selfCpuMem, deviceMemoryUsage: g.devMem, selfDeviceMemoryUsage: g.selfDevMem,
      });
    }
    return out;
  }

  // Array methods (map, filter, slice) build their results through this constructor: plain arrays.
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }

  /** Σ self CPU time of every row (the base of the percent columns), µs. */
  get selfCpuTimeTotal(): number {
    let s = 0;
    for (const r of this) s += r.selfCpuTimeTotal;
    return s;
  }

  get selfDeviceTimeTotal(): number {
    let s = 0;
    for (const r of this) s += r.selfDeviceTimeTotal;
    return s;
  }

  /** A text table like torch's `key_averages().table(sort_by=…, row_limit=…)`. */
  table(options: TableOptions = {}): string {
    if (options === null || typeof options !== 'object') throw new TypeError(`table: options must be an object like { sortBy, rowLimit }; got ${String(options)}`);
    const sortBy = options.sortBy ?? 'cpu_time_total';
    const field = SORT_FIELDS[sortBy];
    if (field === undefined) throw new TypeError(`table: sortBy ${JSON.stringify(sortBy)} is not one of ${Object.keys(SORT_FIELDS).join(', ')}`);
    const limit = options.rowLimit ?? 0;
    if (!Number.isInteger(limit)) throw new TypeError(`table: rowLimit must be an integer; got ${String(options.rowLimit)}`);
    const rows = [...this].sort((a, b) => (b[field] as number) - (a[field] as number));
    const shown = limit > 0 ? rows.slice(0, limit) : rows;
    const selfCpu = this.selfCpuTimeTotal;
    const selfDev = this.selfDeviceTimeTotal;
    const maxName = options.maxNameColumnWidth ?? 55;
    if (!Number.isInteger(maxName) || maxName < 4) throw new TypeError(`table: maxNameColumnWidth must be an integer ≥ 4; got ${String(options.maxNameColumnWidth)}`);
    const nameWidth = Math.max(4, Math.min(maxName, Math.max(0, ...shown.map((r) => r.key.length))));
    const cols: { title: string; width: number; cell: (r: FunctionEventAvg) => string }[] = [
      { title: 'Name', width: nameWidth, cell: (r) => (r.key.length > nameWidth ? `${r.key.slice(0, nameWidth - 3)}...` : r.key) },
      { title: 'Self CPU %', width: 12, cell: (r) => pct(r.selfCpuTimeTotal, selfCpu) },
      { title: 'Self CPU', width: 12, cell: (r) => time(r.selfCpuTimeTotal) },
      { title: 'CPU total %', width: 12, cell: (r) => pct(r.cpuTimeTotal, selfCpu) },
      { title: 'CPU total', width: 12, cell: (r) => time(r.cpuTimeTotal) },
      { title: 'CPU time avg', width: 12, cell: (r) => time(r.cpuTime) },
    ];
    if (this.device) {
      cols.push(
        { title: 'Self GPU', width: 12, cell: (r) => time(r.selfDeviceTimeTotal) },
        { title: 'Self GPU %', width: 12, cell: (r) => pct(r.selfDeviceTimeTotal, selfDev) },
        { title: 'GPU total', width: 12, cell: (r) => time(r.deviceTimeTotal) },
        { title: 'GPU time avg', width: 12, cell: (r) => time(r.deviceTime) },
      );
    }
    if (this.memory) {
      cols.push({ title: 'CPU Mem', width: 12, cell: (r) => mem(r.cpuMemoryUsage) }, { title: 'Self CPU Mem', width: 12, cell: (r) => mem(r.selfCpuMemoryUsage) });
      if (this.device) cols.push({ title: 'GPU Mem', width: 12, cell: (r) => mem(r.deviceMemoryUsage) }, { title: 'Self GPU Mem', width: 12, cell: (r) => mem(r.selfDeviceMemoryUsage) });
    }
    cols.push({ title: '# of Calls', width: 12, cell: (r) => String(r.count) });
    if (this.byShape) cols.push({ title: 'Input Shapes', width: Math.max(12, ...shown.map((r) => r.inputShapes.length)), cell: (r) => r.inputShapes });
    const rule = cols.map((c) => '-'.repeat(c.width)).join('  ') + '  ';
    const line = (cells: string[]): string => cells.map((s, i) => s.padStart(cols[i]!.width)).join('  ') + '  ';
    const out = [rule, line(cols.map((c) => c.title)), rule];
    for (const r of shown) {
      out.push(line(cols.map((c) => c.cell(r))));
      if (this.byStack) for (const s of r.stack) out.push(`${' '.repeat(nameWidth + 2)}${s}`);
    }
    out.push(rule, `Self CPU time total: ${time(selfCpu)}`);
    if (this.device) out.push(`Self GPU time total: ${time(selfDev)}`);
    return `${out.join('\n')}\n`;
  }
}

function pct(v: number, total: number): string {
  return `${(total > 0 ? (100 * v) / total : 0).toFixed(2)}%`;
}

/** torch's _format_time: µs in, the largest unit that keeps the value ≥ 1. */
function time(us: number): string {
  if (us >= 1e6) return `${(us / 1e6).toFixed(3)}s`;
  if (us >= 1e3) return `${(us / 1e3).toFixed(3)}ms`;
  return `${us.toFixed(3)}us`;
}

/** torch's _format_memory. */
function mem(b: number): string {
  const a = Math.abs(b);
  if (a >= 1024 ** 3) return `${(b / 1024 ** 3).toFixed(2)} Gb`;
  if (a >= 1024 ** 2) return `${(b / 1024 ** 2).toFixed(2)} Mb`;
  if (a >= 1024) return `${(b / 1024).toFixed(2)} Kb`;
  return `${b} b`;
}
