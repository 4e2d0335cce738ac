import { describe, expect, it } from 'vitest';
import { resolveWebGPUOptions } from './options.js';

describe('resolveWebGPUOptions', () => {
  it('takes the environment, and code options over it', () => {
    const env = { DFTRACER_WEBGPU_DAWN_OPTIONS: 'backend=opengles; enable-dawn-features=allow_unsafe_apis', DFTRACER_WEBGPU_FEATURE_LEVEL: 'compatibility' };
    expect(resolveWebGPUOptions(undefined, env)).toEqual({ dawnOptions: ['backend=opengles', 'enable-dawn-features=allow_unsafe_apis'], featureLevel: 'compatibility', powerPreference: 'high-performance' });
    expect(resolveWebGPUOptions({ dawnOptions: [], featureLevel: 'core', powerPreference: 'low-power' }, env)).toEqual({ dawnOptions: [], featureLevel: 'core', powerPreference: 'low-power' });
    expect(resolveWebGPUOptions(undefined, {})).toEqual({ dawnOptions: [], featureLevel: 'core', powerPreference: 'high-performance' });
  });

  it('names the option or the variable that is wrong', () => {
    expect(() => resolveWebGPUOptions(undefined, { DFTRACER_WEBGPU_FEATURE_LEVEL: 'compat' })).toThrow(/DFTRACER_WEBGPU_FEATURE_LEVEL must be 'core' or 'compatibility'; got "compat"/);
    expect(() => resolveWebGPUOptions({ featureLevel: 'gl' as never }, {})).toThrow(/loadTf: webgpu.featureLevel must be/);
    expect(() => resolveWebGPUOptions({ dawnOptions: 'backend=opengles' as never }, {})).toThrow(/loadTf: webgpu.dawnOptions must be an array of non-empty strings/);
    expect(() => resolveWebGPUOptions({ powerPreference: 'max' as never }, {})).toThrow(/loadTf: webgpu.powerPreference must be 'low-power' or 'high-performance'/);
    expect(() => resolveWebGPUOptions(5 as never, {})).toThrow(/loadTf: webgpu must be an object/);
  });
});
