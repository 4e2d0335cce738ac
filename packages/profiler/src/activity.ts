/** Which devices' events the profiler records (torch.profiler.ProfilerActivity). */
export enum ProfilerActivity {
  /** Kernels run by a host backend (cpu, wasm, tensorflow without a GPU) and the Node runtime's GC pauses. */
  CPU = 'CPU',
  /** Kernels run by a GPU backend (webgl, webgpu, tensorflow on CUDA). */
  GPU = 'GPU',
  /** torch's name for GPU, so code ported from torch reads the same. */
  CUDA = 'GPU',
}

/** torch's DeviceType numbering, written as the `device` arg of PP events. */
export enum DeviceType {
  CPU = 0,
  GPU = 1,
}

const ALL = new Set<string>(Object.values(ProfilerActivity));

/** The activities option, checked: an unknown entry is an error naming it. */
export function activitySet(activities: readonly ProfilerActivity[] | undefined): { cpu: boolean; gpu: boolean } {
  if (activities === undefined) return { cpu: true, gpu: true };
  if (!Array.isArray(activities)) throw new TypeError(`profile: activities must be an array of ProfilerActivity; got ${String(activities)}`);
  for (const a of activities) {
    if (!ALL.has(a as string)) throw new TypeError(`profile: activities has ${JSON.stringify(a)}; expected ProfilerActivity.CPU, ProfilerActivity.GPU (or .CUDA)`);
  }
  return { cpu: activities.includes(ProfilerActivity.CPU), gpu: activities.includes(ProfilerActivity.GPU) };
}
