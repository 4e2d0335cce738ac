// A kernel runs 10–50 frames below the program's code (op wrapper, engine scopes, layers and the
// optimizer inside a Keras training step, the kernel hook): capture enough frames to reach it.
const FRAMES = 64;
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

function isRuntimeFile(file: string): boolean {
  return TFJS_FRAME.test(file) || file.startsWith('node:');
}

function frameText(site: NodeJS.CallSite): string {
  const file = site.getFileName() ?? site.getScriptNameOrSourceURL() ?? '<anonymous>';
  const where = `${file}:${site.getLineNumber() ?? 0}:${site.getColumnNumber() ?? 0}`;
  const fn = site.getFunctionName();
  const type = site.getTypeName();
  const method = site.getMethodName();
  const name = fn ?? (method !== null ? `${type ?? '<anonymous>'}.${method}` : null);
  return name === null ? where : `${name} (${where})`;
}

/** The captured frames as V8 CallSites: no text for the frames that are skipped anyway. */
function sitesOf(captured: object): readonly NodeJS.CallSite[] | null {
  const prev = Error.prepareStackTrace;
  Error.prepareStackTrace = (_err, sites) => sites;
  try {
    const s = (captured as { stack?: unknown }).stack;
    return Array.isArray(s) ? (s as NodeJS.CallSite[]) : null;
  } finally {
    Error.prepareStackTrace = prev;
  }
}

/**
 * The program's frames of a stack captured inside a kernel, innermost first, as `fn (file:line:col)`.
 * Innermost come the tracer's own frames (this listener, core's kernel hook), then tfjs's engine
 * and op frames; the first frame past tfjs is the call site. Later tfjs frames (a `tf.tidy` the
 * program called) are left out too.
 */
export function callSites(captured: object): string[] {
  const sites = sitesOf(captured);
  if (sites === null) return [];
  const files = sites.map((s) => s.getFileName() ?? '');
  const first = files.findIndex((f) => TFJS_FRAME.test(f));
  if (first < 0) return []; // tfjs bundled into the program: its frames cannot be told apart
  const out: string[] = [];
  for (let i = first + 1; i < sites.length && out.length < KEEP; i++) {
    if (!isRuntimeFile(files[i]!)) out.push(frameText(sites[i]!));
  }
  return out;
}
