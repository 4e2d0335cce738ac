import { describe, expect, it } from 'vitest';
import { checkOptionKeys, closest } from './option-keys.js';

const KNOWN = ['enable', 'logFile', 'dataDir', 'compressionLevel', 'plugins'];

describe('checkOptionKeys', () => {
  it('accepts known keys and no keys', () => {
    expect(() => checkOptionKeys('f', {}, KNOWN)).not.toThrow();
    expect(() => checkOptionKeys('f', { logFile: 'x', enable: true }, KNOWN)).not.toThrow();
  });

  it('names the unknown key, the closest known one and every known one', () => {
    expect(() => checkOptionKeys('initializeLog', { logfile: 'x' }, KNOWN)).toThrow(
      new TypeError('initializeLog: unknown option "logfile" (did you mean logFile?); known options: enable, logFile, dataDir, compressionLevel, plugins'),
    );
  });

  it('suggests nothing when no known name is near', () => {
    expect(() => checkOptionKeys('f', { verbose: 1 }, KNOWN)).toThrow(/^f: unknown option "verbose"; known options: /);
  });

  it('finds typos, case slips and missing letters', () => {
    expect(closest('compresionLevel', KNOWN)).toBe('compressionLevel');
    expect(closest('DATADIR', KNOWN)).toBe('dataDir');
    expect(closest('plugin', KNOWN)).toBe('plugins');
    expect(closest('enabled', KNOWN)).toBe('enable');
    expect(closest('x', KNOWN)).toBeUndefined();
  });
});
