/**
 * Test support shared by the dftracer.js packages (private, never published): read a DFTracer
 * trace back (plain or multi-member gzip, finished or cut short) and query its events.
 */
export type { Trace, TraceEvent } from './event.js';
export { fromEvents, isGzip, parseTrace, readAppendedTrace, readTrace, traceFiles } from './read.js';
export { countGzipMembers, walkGzipMembers, type MemberWalk } from './gzip.js';
export { readCrashedTrace, type CrashedTrace } from './crashed.js';
export { traceProblems } from './problems.js';
export { after, ancestry, childrenOf, countBy, descendantsOf, multiset, overlaps, tempDir, within, type Slice } from './queries.js';
export { fakeTimestamps, type FakeTimestamps } from './fake-timestamps.js';
export { MESA_WEBGPU, onMesaWebGPU } from './mesa-webgpu.js';
export { caught, errorDifferences, remember, type Seen } from './thrown.js';
export { packageReadmeProblems, readmeOutlineProblems, readmeProblems } from './readme.js';
