/** How `loadTf` reaches the GPU through Dawn (npm `webgpu`). */
export interface WebGPUOptions {
  /**
   * Dawn instance options (`webgpu`'s `create()`), e.g. `['backend=opengles']` to run on Mesa's
   * OpenGL ES without a GPU. Default: `DFTRACER_WEBGPU_DAWN_OPTIONS` (`;`-separated), else none.
   */
  dawnOptions?: readonly string[];
  /** `'compatibility'` accepts an adapter of the compatibility feature level (OpenGL ES). Default: `DFTRACER_WEBGPU_FEATURE_LEVEL`, else `'core'`. */
  featureLevel?: 'core' | 'compatibility';
  /** Default `'high-performance'`. */
  powerPreference?: 'low-power' | 'high-performance';
}

export interface ResolvedWebGPUOptions {
  readonly dawnOptions: readonly string[];
  readonly featureLevel: 'core' | 'compatibility';
  readonly powerPreference: 'low-power' | 'high-performance';
}

const LEVELS = ['core', 'compatibility'] as const;
const POWER = ['low-power', 'high-performance'] as const;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], what: string): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new TypeError(`${what} must be ${allowed.map((a) => `'${a}'`).join(' or ')}; got ${JSON.stringify(value)}`);
}

/** Code options over the environment's, checked once; errors name the option or the variable. */
export function resolveWebGPUOptions(options: WebGPUOptions | undefined, env: NodeJS.ProcessEnv = process.env): ResolvedWebGPUOptions {
  if (options !== undefined && (options === null || typeof options !== 'object')) throw new TypeError(`loadTf: webgpu must be an object like { dawnOptions, featureLevel }; got ${String(options)}`);
  const o = options ?? {};
  let dawnOptions: readonly string[];
  if (o.dawnOptions !== undefined) {
    if (!Array.isArray(o.dawnOptions) || o.dawnOptions.some((d) => typeof d !== 'string' || d === '')) {
      throw new TypeError(`loadTf: webgpu.dawnOptions must be an array of non-empty strings such as ['backend=opengles']; got ${JSON.stringify(o.dawnOptions)}`);
    }
    dawnOptions = [...o.dawnOptions];
  } else {
    dawnOptions = (env.DFTRACER_WEBGPU_DAWN_OPTIONS ?? '').split(';').map((s) => s.trim()).filter((s) => s !== '');
  }
  const levelEnv = env.DFTRACER_WEBGPU_FEATURE_LEVEL;
  const featureLevel =
    o.featureLevel !== undefined
      ? oneOf(o.featureLevel, LEVELS, 'loadTf: webgpu.featureLevel')
      : levelEnv !== undefined && levelEnv !== ''
        ? oneOf(levelEnv, LEVELS, 'DFTRACER_WEBGPU_FEATURE_LEVEL')
        : 'core';
  const powerPreference = o.powerPreference !== undefined ? oneOf(o.powerPreference, POWER, 'loadTf: webgpu.powerPreference') : 'high-performance';
  return { dawnOptions, featureLevel, powerPreference };
}
