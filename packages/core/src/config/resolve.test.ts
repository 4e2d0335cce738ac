import { describe, expect, it } from 'vitest';
import { ConfigError, inheritedEnv, readVariable, resolveConfig } from './resolve.js';
import { SETTINGS, SETTING_NAMES } from './settings.js';
import { underPrefix } from './data-dirs.js';

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
    expect(() => resolveConfig({}, { DFTRACER_GZIP_ENCODER: 'fast' })).toThrow(/DFTRACER_GZIP_ENCODER="fast".*accepted values: zlib/);
  });

  it('takes zlib, the one gzip encoder, and names the removed ones as invalid', () => {
    expect(resolveConfig({}, {}).gzipEncoder).toBe('zlib');
    expect(resolveConfig({}, { DFTRACER_GZIP_ENCODER: ' ZLIB ' }).gzipEncoder).toBe('zlib');
    expect(() => resolveConfig({}, { DFTRACER_GZIP_ENCODER: 'auto' })).toThrow(/DFTRACER_GZIP_ENCODER="auto" is not valid; accepted values: zlib/);
    expect(() => resolveConfig({ gzipEncoder: 'custom' as 'zlib' })).toThrow(/option gzipEncoder=custom.*zlib/);
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

describe('the declaration', () => {
  it('names the setting and the source as fields, not only in the message', () => {
    const fromVar = (() => { try { resolveConfig({}, { DFTRACER_COMPRESSION_LEVEL: ' 12 ' }); } catch (e) { return e; } })() as ConfigError;
    expect(fromVar).toBeInstanceOf(ConfigError);
    expect(fromVar).toMatchObject({ option: 'compressionLevel', variable: 'DFTRACER_COMPRESSION_LEVEL', origin: 'variable', value: ' 12 ', accepted: 'an integer from 1 to 9' });
    const fromOpt = (() => { try { resolveConfig({ dataDir: [1] as unknown as string[] }, {}); } catch (e) { return e; } })() as ConfigError;
    expect(fromOpt).toMatchObject({ option: 'dataDir', variable: 'DFTRACER_DATA_DIR', origin: 'option' });
    expect(() => resolveConfig({ logFile: '' })).toThrow(/option logFile=.*non-empty string/);
  });

  it('rejects a bad value of every setting, from the option and from the variable', () => {
    const bad: Record<string, unknown> = { logFile: 7, dataDir: 5, compressionLevel: 0, writeBufferSize: 1.5, gzipEncoder: 'gzip', logLevel: 'LOUD' };
    for (const name of SETTING_NAMES) {
      const v = name in bad ? bad[name] : 'yes'; // every other setting is a boolean
      expect(() => resolveConfig({ [name]: v }, {}), name).toThrow(ConfigError);
      if (name === 'logFile' || name === 'dataDir') continue; // any text is a path
      const e = (() => { try { resolveConfig({}, { [SETTINGS[name].variable]: 'x-bad' }); } catch (err) { return err; } })();
      expect(e, name).toMatchObject({ option: name, origin: 'variable' });
    }
  });

  it('gives a child process the same configuration through its variables', () => {
    const parent = resolveConfig({ enable: true, logFile: 'rel/trace', dataDir: ['/a', '/b/'], incMetadata: false, disableIo: true, compression: false, compressionLevel: 3, gzipEncoder: 'zlib', writeBufferSize: 4096, bindSignals: true, logLevel: 'DEBUG', disableTids: true, writerThread: false }, {});
    const env = inheritedEnv(parent);
    expect(Object.keys(env).sort()).toEqual(SETTING_NAMES.map((n) => SETTINGS[n].variable).sort());
    expect(env.DFTRACER_LOG_FILE).toMatch(/^\/.*rel\/trace$/);
    expect(resolveConfig({}, env)).toEqual({ ...parent, logFile: env.DFTRACER_LOG_FILE });
    // A prefix holding ':' cannot be listed: the child keeps what it had.
    expect(inheritedEnv(resolveConfig({ dataDir: ['/x:y'] }, {}))).not.toHaveProperty('DFTRACER_DATA_DIR');
    expect(inheritedEnv(resolveConfig({}, {})).DFTRACER_DATA_DIR).toBe('all');
  });

  it('reads the writer thread setting (on unless turned off)', () => {
    expect(resolveConfig({}, {}).writerThread).toBe(true);
    expect(resolveConfig({}, { DFTRACER_WRITER_THREAD: '0' }).writerThread).toBe(false);
    expect(resolveConfig({ writerThread: true }, { DFTRACER_WRITER_THREAD: 'off' }).writerThread).toBe(true);
  });

  it('readVariable says unset, a value, or throws', () => {
    expect(readVariable('enable', {})).toBeUndefined();
    expect(readVariable('enable', { DFTRACER_ENABLE: ' ' })).toBeUndefined();
    expect(readVariable('enable', { DFTRACER_ENABLE: 'off' })).toBe(false);
    expect(() => readVariable('enable', { DFTRACER_ENABLE: 'perhaps' })).toThrow(ConfigError);
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
