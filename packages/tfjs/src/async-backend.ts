/** The engine view read here: the active backend's name and the initialized backends. */
interface EngineView {
  readonly backendName: string;
  readonly registry?: Readonly<Record<string, { readonly isUsingGpuDevice?: boolean } | undefined>>;
}

/**
 * Whether kernels on this backend only enqueue work for a GPU (wall time around a kernel is then
 * dispatch time, not device time): webgl, webgpu, and tfjs-node-gpu's `tensorflow` on CUDA.
 * `backendName` defaults to the active backend.
 */
export function isAsyncBackend(tf: { engine(): unknown }, backendName?: string): boolean {
  const engine = tf.engine() as EngineView;
  const name = backendName ?? engine.backendName;
  if (name === 'webgl' || name === 'webgpu') return true;
  try {
    return engine.registry?.[name]?.isUsingGpuDevice === true;
  } catch {
    // An engine without a registry view: a host backend.
    return false;
  }
}
