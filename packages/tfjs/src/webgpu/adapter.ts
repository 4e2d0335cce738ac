/** What Dawn says about the adapter tfjs will run on; written into the `tfjs` CM record. */
export interface AdapterReport {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  /** The driver's description, e.g. `OpenGL ES 3.2 Mesa 22.3.6` or the NVIDIA driver version. */
  readonly description: string;
  /** A CPU rasteriser (llvmpipe, lavapipe, SwiftShader) rather than a GPU. */
  readonly software: boolean;
  /** Kernels can be timed on the device (the adapter offers `timestamp-query`). */
  readonly timestampQuery: boolean;
}

interface AdapterLike {
  readonly info?: { vendor?: string; architecture?: string; device?: string; description?: string; isFallbackAdapter?: boolean };
  readonly isFallbackAdapter?: boolean;
  readonly features: { has(name: string): boolean };
}

// Mesa's llvmpipe reports isFallbackAdapter false: the names are what tell.
const SOFTWARE = /llvmpipe|lavapipe|softpipe|swiftshader|software rasterizer|microsoft basic render/i;

export function describeAdapter(adapter: AdapterLike): AdapterReport {
  const i = adapter.info ?? {};
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const r = { vendor: text(i.vendor), architecture: text(i.architecture), device: text(i.device), description: text(i.description) };
  const software = i.isFallbackAdapter === true || adapter.isFallbackAdapter === true || SOFTWARE.test(`${r.vendor} ${r.architecture} ${r.device} ${r.description}`);
  return { ...r, software, timestampQuery: adapter.features.has('timestamp-query') };
}

/** `nvidia nvidia-h200 (NVIDIA 580.159), timestamp-query` — for the INFO line. */
export function adapterText(a: AdapterReport): string {
  const name = [a.vendor, a.device].filter((s) => s !== '').join(' ') || 'unnamed adapter';
  const parts = [a.description !== '' ? `${name} (${a.description})` : name];
  if (a.software) parts.push('software renderer');
  parts.push(a.timestampQuery ? 'timestamp-query' : 'no timestamp-query');
  return parts.join(', ');
}
