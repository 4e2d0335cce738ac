import { describe, expect, it } from 'vitest';
import { adapterText, describeAdapter } from './adapter.js';

const adapter = (info: Record<string, unknown>, features: string[] = []) => ({ info, features: new Set(features) });

describe('describeAdapter', () => {
  it('tells software renderers by name (Mesa llvmpipe reports isFallbackAdapter false)', () => {
    const mesa = describeAdapter(adapter({ vendor: '', device: 'llvmpipe-llvm-15-0-6-256-bits-', description: 'OpenGL version OpenGL ES 3.2 Mesa 22.3.6', isFallbackAdapter: false }));
    expect(mesa).toMatchObject({ software: true, timestampQuery: false });
    expect(describeAdapter(adapter({ vendor: 'google', device: 'swiftshader' })).software).toBe(true);
    expect(describeAdapter(adapter({ vendor: 'x', device: 'y', isFallbackAdapter: true })).software).toBe(true);
  });

  it('reports a GPU with its driver and timestamp-query', () => {
    const h200 = describeAdapter(adapter({ vendor: 'nvidia', architecture: '', device: 'nvidia-h200', description: 'NVIDIA: 580.159.04 580.159.4.0' }, ['timestamp-query']));
    expect(h200).toEqual({ vendor: 'nvidia', architecture: '', device: 'nvidia-h200', description: 'NVIDIA: 580.159.04 580.159.4.0', software: false, timestampQuery: true });
    expect(adapterText(h200)).toBe('nvidia nvidia-h200 (NVIDIA: 580.159.04 580.159.4.0), timestamp-query');
  });
});
