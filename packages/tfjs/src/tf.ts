/**
 * The TensorFlow.js namespace as a type (from `@tensorflow/tfjs`; tfjs-node and -node-gpu
 * re-export the same API). Type-only: tfjs is an optional peer, never imported at run time here.
 */
export type Tf = typeof import('@tensorflow/tfjs');
