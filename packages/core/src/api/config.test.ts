import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig, underPrefix } from './config.js';

describe('resolveConfig', () => {
  it('has DFTracer defaults: disabled, compressed, metadata on, everything traced', () => {
    const c = resolveConfig({}, {});
    expect(c).toMatchObject({ enable: false, compression: true, incMetadata: true, traceAll: true, logFile: './trace', bindSignals: false, disableIo: false });
  });

  it('accepts 1/true/on/yes and 0/false/off/no in any case', () => {
    for (const v of ['1', 'true', 'ON', 'Yes']) expect(resolveConfig({}, { DFTRACER_ENABLE: v }).enable).toBe(true);
    for (const v of ['0', 'false', 'OFF', 'no', '']) expect(resolveConfig({}, { DFTRACER_ENABLE: v }).enable).toBe(false);
  });

  it('names the variable and the accepted values for a bad value', () => {
    expect(() => resolveConfig({}, { DFTRACER_ENABLE: 'maybe' })).toThrow(ConfigError);
    expect(() => resolveConfig({}, { DFTRACER_ENABLE: 'maybe' })).toThrow(/DFTRACER_ENABLE="maybe".*1\/true\/on\/yes/);
    expect(() => resolveConfig({}, { DFTRACER_WRITE_BUFFER_SIZE: '12abc' })).toThrow(/DFTRACER_WRITE_BUFFER_SIZE="12abc".*integer/);
    expect(() => resolveConfig({}, { DFTRACER_LOG_LEVEL: 'LOUD' })).toThrow(/DFTRACER_LOG_LEVEL="LOUD".*ERROR, WARN, INFO, DEBUG/);
    expect(() => resolveConfig({}, { DFTRACER_COMPRESSION_LEVEL: '10' })).toThrow(/DFTRACER_COMPRESSION_LEVEL/);
    expect(() => resolveConfig({}, { DFTRACER_GZIP_ENCODER: 'fast' })).toThrow(/DFTRACER_GZIP_ENCODER="fast".*auto, custom, zlib/);
  });

  it('chooses the gzip encoder: auto by default, zlib or custom by variable or option', () => {
    expect(resolveConfig({}, {}).gzipEncoder).toBe('auto');
    expect(resolveConfig({}, { DFTRACER_GZIP_ENCODER: ' ZLIB ' }).gzipEncoder).toBe('zlib');
    expect(resolveConfig({ gzipEncoder: 'custom' }, { DFTRACER_GZIP_ENCODER: 'zlib' }).gzipEncoder).toBe('custom');
    expect(() => resolveConfig({ gzipEncoder: 'gzip' as 'zlib' })).toThrow(/option gzipEncoder=gzip.*auto, custom, zlib/);
  });

  it('lets code options win over the environment and checks them too', () => {
    const c = resolveConfig({ enable: true, compression: false, dataDir: ['/x', '/y/'] }, { DFTRACER_ENABLE: '0', DFTRACER_TRACE_COMPRESSION: '1' });
    expect(c.enable).toBe(true);
    expect(c.compression).toBe(false);
    expect(c.dataDirs).toEqual(['/x', '/y']);
    expect(() => resolveConfig({ writeBufferSize: -1 })).toThrow(/option writeBufferSize=-1/);
    expect(() => resolveConfig({ enable: 'yes' as unknown as boolean })).toThrow(/option enable/);
  });

  it('splits DFTRACER_DATA_DIR on colons and resolves each prefix; all traces everything', () => {
    const c = resolveConfig({}, { DFTRACER_DATA_DIR: '/data:/scratch/run1/' });
    expect(c.dataDirs).toEqual(['/data', '/scratch/run1']);
    expect(c.traceAll).toBe(false);
    expect(resolveConfig({}, { DFTRACER_DATA_DIR: 'all' }).traceAll).toBe(true);
  });
});

describe('underPrefix', () => {
  it('compares by path segment', () => {
    expect(underPrefix('/data/x', '/data')).toBe(true);
    expect(underPrefix('/data', '/data')).toBe(true);
    expect(underPrefix('/database/x', '/data')).toBe(false);
    expect(underPrefix('/anything', '/')).toBe(true);
  });
});
