// Its own file: the namespace registry is process-wide, and this needs it empty first.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { currentTf, useTfNamespace } from './namespace.js';
import { resolveTf } from './resolve.js';

describe('resolveTf', () => {
  it("with nothing handed over, finds @tensorflow/tfjs-core in the program's install: the engine the program uses", () => {
    expect(currentTf()).toBeUndefined();
    const core = resolveTf(undefined, 'dynamo');
    expect(core).not.toBe(tf);
    expect(core.engine()).toBe(tf.engine());
  });

  it('prefers what the caller passes, then what was handed over', () => {
    expect(() => useTfNamespace({} as never)).toThrow(/^useTfNamespace: tf must be the TensorFlow.js namespace/);
    useTfNamespace(tf);
    expect(resolveTf(undefined, 'dynamo')).toBe(tf);
    const own = { engine: () => tf.engine() };
    expect(resolveTf(own, 'profile')).toBe(own);
    expect(() => resolveTf(42, 'profile')).toThrow(/^profile: tf must be the tfjs module/);
  });
});
