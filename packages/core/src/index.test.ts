import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageReadmeProblems, readmeProblems } from '@dftracer/testing';
import * as core from './index.js';

// The package's public face: the user API, the plugin API integrations build on, and nothing
// internal. A name added here is a promise to users; keep it deliberate.
const USER_API = ['initializeLog', 'finalize', 'getTime', 'logMetadata', 'dftFn', 'Profile', 'instrument', 'Instrument', 'ConfigError', 'dftHash', 'VERSION', 'setAppMetadata', 'recordEntity', 'relateEntities', 'entityId', 'EntityStore', 'EntityRelation'];
const PLUGIN_API = ['addPlugin', 'getTracer', 'tracingEnabled', 'fsPlugin', 'nowUs', 'perfMsToUs', 'warnOnce', 'isDescriptor', 'counter', 'addCounterSampler', 'jsonArg', 'checkOptionKeys', 'dataLineage'];

describe('@dftracer/core', () => {
  it('exports the user API and the plugin API, nothing else', () => {
    expect(Object.keys(core).sort()).toEqual([...USER_API, ...PLUGIN_API].sort());
  });

  it('does not export the configuration internals', () => {
    for (const internal of ['resolveConfig', 'SETTINGS', 'childEnv', 'DftFn', 'kernelHubStatus']) expect(core).not.toHaveProperty(internal);
  });

  it('has READMEs in the one outline, whose links and paths stay in the repository', () => {
    expect(packageReadmeProblems(fileURLToPath(new URL('..', import.meta.url)), '@dftracer/core')).toEqual([]);
    // the root README too, which core's settings table is generated into
    expect(readmeProblems(fileURLToPath(new URL('../../../README.md', import.meta.url)), fileURLToPath(new URL('../../..', import.meta.url)))).toEqual([]);
  });
});
