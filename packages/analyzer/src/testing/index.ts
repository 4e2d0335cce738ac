/** Test and benchmark helpers: write real DFTracer traces (not part of the public API). */
export { TraceWriter, type TraceWriterOptions, type Span, type Args, type ArgValue } from './trace-writer.js';
export { writeSyntheticTrace, type SyntheticOptions, type SyntheticResult } from './synthetic.js';
export { dftHash } from '@dftracer/core';
