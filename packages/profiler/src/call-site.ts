// A kernel is launched ~15–25 frames below the program's code (op wrapper, engine scopes, the
// kernel hook): capture enough frames to reach it.
const FRAMES = 48;
const KEEP = 8;
// npm (node_modules/@tensorflow/…) and pnpm (.pnpm/@tensorflow+tfjs-core@…) layouts, source-mapped or not.
const TFJS_FRAME = /[\\/]@tensorflow[\\/+]/;

/**
 * Captures the current JS stack without formatting it: V8 keeps the raw frames and renders the
 * text only when `.stack` is first read, which `callSites` does after the cycle, off the hot path.
 */
export function captureStack(): object {
  const holder = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = FRAMES;
  Error.captureStackTrace(holder, captureStack);
  Error.stackTraceLimit = limit;
  return holder;
}

function isRuntimeFrame(line: string): boolean {
  return TFJS_FRAME.test(line) || line.includes('node:internal') || line.includes('(node:');
}

/**
 * The program's frames of a stack captured inside a kernel, innermost first, as `fn (file:line:col)`.
 * Innermost come the tracer's own frames (this listener, core's kernel hook), then tfjs's engine
 * and op frames; the first frame past tfjs is the call site. Later tfjs frames (a `tf.tidy` the
 * program called) are left out too.
 */
export function callSites(captured: object): string[] {
  const text = (captured as { stack?: unknown }).stack;
  if (typeof text !== 'string') return [];
  const frames = text.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('at '));
  const first = frames.findIndex((l) => TFJS_FRAME.test(l));
  if (first < 0) return []; // tfjs bundled into the program: its frames cannot be told apart
  const out: string[] = [];
  for (let i = first + 1; i < frames.length && out.length < KEEP; i++) {
    if (!isRuntimeFrame(frames[i]!)) out.push(frames[i]!.slice(3));
  }
  return out;
}
