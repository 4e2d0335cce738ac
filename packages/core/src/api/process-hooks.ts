import { isMainThread } from 'node:worker_threads';
import { writeDiagnostic } from '../writer/diagnostics.js';
import { activeTracer, coreState, type CoreState } from './core-state.js';

/** The process events that flush and close the trace: exit, beforeExit, and the signals when bound. */

/** Runs a tracer step from a process hook: whatever happens, the program's exit is not disturbed. */
function guarded(what: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    writeDiagnostic(`dftracer: WARN: ${what} failed: ${(e as Error)?.message ?? String(e)}\n`);
  }
}

/** Installs the hooks once per thread; `finalize` closes the trace. */
export function installHooks(state: CoreState, finalize: () => void): void {
  if (state.hooked) return;
  state.hooked = true;
  process.on('beforeExit', () => guarded('flush', () => activeTracer()?.flush()));
  process.on('exit', () =>
    guarded('finalize', () => {
      finalize();
      // Spans that ended after an explicit finalize (a promise settling late): counted, never written.
      const t = coreState().tracer;
      if (t !== null && t.dropped > coreState().droppedReported) t.log('INFO', `${t.dropped - coreState().droppedReported} event(s) arrived after finalize and were dropped`);
    }),
  );
  const t = state.tracer;
  if (t !== null && t.config.bindSignals && isMainThread) {
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const onSignal = () => {
        if (process.listenerCount(sig) > 1) {
          // The program handles this signal itself and decides what happens next: tracing goes on
          // (its handler may still do traced work), the buffer is put on disk in case the end is
          // abrupt, and the exit hook closes the trace if it exits.
          guarded('flush', () => activeTracer()?.flush());
          return;
        }
        guarded('finalize', finalize);
        // Alone on this signal: re-raise with the default action so the exit status is the signal's.
        process.removeListener(sig, onSignal);
        process.kill(process.pid, sig);
      };
      process.on(sig, onSignal);
    }
  }
}
