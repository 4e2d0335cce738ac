import { createBackend, type BackendOptions, type DynamoBackend, type DynamoContext } from './backend.js';
import { compile, defaultBackend, makeCompile, type CompileFn } from './compile.js';
import type { Graph } from './graph.js';

export type DynamoOptions = BackendOptions;

/**
 * pydftracer's `Dynamo(name, epoch, step, image_idx, image_size, enable)`: a tracer with its own
 * backend; `@tracer.compile` on a method, or `tracer.compile(fnOrModel)`.
 */
export class Dynamo {
  readonly backend: DynamoBackend;
  /** Compiles with this tracer's backend (usable as a decorator: it needs no `this`). */
  readonly compile: CompileFn;

  constructor(options: DynamoOptions = {}) {
    this.backend = createBackend(options);
    this.compile = makeCompile(() => this.backend);
  }

  /** Sets the epoch/step/image of the following calls. */
  update(context: DynamoContext): this {
    this.backend.update(context);
    return this;
  }

  get graphs(): readonly Graph[] {
    return this.backend.graphs;
  }
}

/**
 * The namespace pydftracer users know: `dynamo.compile`, `dynamo.createBackend`, `dynamo.Dynamo`,
 * and `dynamo.defaultBackend()` (the backend of `@dynamo.compile`, with its graphs).
 */
export const dynamo = Object.freeze({ compile, createBackend, Dynamo, defaultBackend });
