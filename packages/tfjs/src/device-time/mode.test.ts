import { describe, expect, it } from 'vitest';
import { checkDeviceTimeMode, decideDeviceTime, DeviceTimeError, type BackendFacts } from './mode.js';

const webgpu = (timestampQuery: boolean): BackendFacts => ({ name: 'webgpu', asynchronous: true, timestampQuery, canWaitSync: false });
const cudaNode: BackendFacts = { name: 'tensorflow', asynchronous: true, timestampQuery: false, canWaitSync: true };
const cpu: BackendFacts = { name: 'cpu', asynchronous: false, timestampQuery: false, canWaitSync: true };

describe('deviceTime', () => {
  it('auto is timestamp where the device has timestamp queries, else off with the reason', () => {
    expect(decideDeviceTime('auto', webgpu(true), 'x')).toMatchObject({ mode: 'timestamp', track: 'webgpu:0' });
    expect(decideDeviceTime('auto', webgpu(false), 'x')).toMatchObject({ mode: 'off', track: null, reason: expect.stringMatching(/no timestamp-query/) });
    expect(decideDeviceTime('auto', cudaNode, 'x')).toMatchObject({ mode: 'off', reason: expect.stringMatching(/tensorflow offers no timestamp queries/) });
  });

  it('refuses timestamp without timestamp queries, and sync on WebGPU, saying why', () => {
    expect(() => decideDeviceTime('timestamp', webgpu(false), 'createBackend')).toThrow(DeviceTimeError);
    expect(() => decideDeviceTime('timestamp', webgpu(false), 'createBackend')).toThrow(/createBackend: deviceTime 'timestamp' is not possible: the WebGPU adapter has no timestamp-query feature/);
    expect(() => decideDeviceTime('sync', webgpu(true), 'profile')).toThrow(/profile: deviceTime 'sync' is not possible on backend webgpu: WebGPU's JavaScript API cannot wait/);
    expect(decideDeviceTime('sync', cudaNode, 'x')).toMatchObject({ mode: 'sync', track: 'tensorflow:0' });
  });

  it('on a synchronous backend every mode records the kernel durations as they are', () => {
    for (const m of ['auto', 'timestamp', 'sync', 'off'] as const) expect(decideDeviceTime(m, cpu, 'x')).toMatchObject({ mode: 'host', requested: m });
  });

  it('checks the option, naming the function that took it', () => {
    expect(checkDeviceTimeMode(undefined, 'f')).toBe('auto');
    expect(checkDeviceTimeMode('off', 'f')).toBe('off');
    expect(() => checkDeviceTimeMode('fast', 'createBackend')).toThrow(/createBackend: deviceTime must be 'auto', 'timestamp', 'sync' or 'off'; got "fast"/);
    expect(() => checkDeviceTimeMode(1, 'profile')).toThrow(/profile: deviceTime must be/);
  });
});
