import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import type { Plugin, Teardown, Tracer } from '../types.js';
import { closeCallback, dataCallback, genericCallback, openCallback } from './callback.js';
import { patch, unpatch, type AnyFn, type Patch } from './identity.js';
import { genericPromise, handleData, handleOp, openPromise } from './promises.js';
import { FD_OPS, HANDLE_OPS, PATH_OPS } from './specs.js';
import { FsState, type FdEntry } from './state.js';
import type { DataLineage } from './data-lineage.js';
import { closeSync, existsSync, genericSync, openSync, readSync, vectorSync, writeSync } from './sync.js';
import { readFileCallback, readFileSync, wholeFileHandle, wholeFilePromise, writeFileSync } from './whole-file.js';

/**
 * The fs I/O plugin (`posix`): every `node:fs` operation on a traced path — sync, callback,
 * fs/promises and FileHandle — becomes one `POSIX` event named like the libc call (open, read,
 * pread, write, close, fstat, stat, mkdir, unlink, rename...). See README "fs I/O" for the list.
 */
export function fsPlugin(): Plugin {
  return {
    name: 'posix',
    setup(tracer: Tracer): Teardown | void {
      return install(tracer);
    },
  };
}

/** One installation per thread: node:fs is per thread, and wrapping it twice would count twice. */
let current: FsState | null = null;

/** The directories this thread's traced I/O read and wrote, while the fs tracer is installed. */
export function currentLineage(): DataLineage | null {
  return current?.lineage ?? null;
}

function install(tracer: Tracer): Teardown | void {
  if (current !== null) {
    tracer.log('WARN', 'the fs plugin is already installed in this thread; the second installation is skipped');
    return;
  }
  const st = new FsState(tracer);
  current = st;
  const patches: Patch[] = [];
  const f = fs as unknown as Record<string, unknown>;
  const p = fs.promises as unknown as Record<string, unknown>;

  // Sync: the hot primitives by hand, the rest generic.
  patch(patches, f, 'openSync', (o) => openSync(st, o));
  patch(patches, f, 'closeSync', (o) => closeSync(st, o));
  patch(patches, f, 'readSync', (o) => readSync(st, o));
  patch(patches, f, 'writeSync', (o) => writeSync(st, o));
  patch(patches, f, 'readvSync', (o) => vectorSync(st, o, 'readv'));
  patch(patches, f, 'writevSync', (o) => vectorSync(st, o, 'writev'));
  patch(patches, f, 'existsSync', (o) => existsSync(st, o));
  patch(patches, f, 'readFileSync', (o) => readFileSync(st, o));
  patch(patches, f, 'writeFileSync', (o) => writeFileSync(st, o));

  // Callback.
  patch(patches, f, 'open', (o) => openCallback(st, o));
  patch(patches, f, 'close', (o) => closeCallback(st, o));
  patch(patches, f, 'read', (o) => dataCallback(st, o, 'read'));
  patch(patches, f, 'write', (o) => dataCallback(st, o, 'write'));
  patch(patches, f, 'readv', (o) => dataCallback(st, o, 'readv'));
  patch(patches, f, 'writev', (o) => dataCallback(st, o, 'writev'));
  patch(patches, f, 'readFile', (o) => readFileCallback(st, o));

  for (const [name, spec] of Object.entries(PATH_OPS)) {
    patch(patches, f, `${name}Sync`, (o) => genericSync(st, o, spec));
    patch(patches, f, name, (o) => genericCallback(st, o, spec));
    patch(patches, p, name, (o) => genericPromise(st, o, spec));
  }
  for (const [name, spec] of Object.entries(FD_OPS)) {
    patch(patches, f, `${name}Sync`, (o) => genericSync(st, o, spec));
    patch(patches, f, name, (o) => genericCallback(st, o, spec));
  }
  // realpath.native / realpathSync.native (libuv's realpath(3)) are separate functions.
  for (const name of ['realpath', 'realpathSync']) {
    const w = f[name] as AnyFn & { native?: unknown };
    const o = patches.find((x) => x.target === f && x.key === name)?.original as (AnyFn & { native?: unknown }) | undefined;
    if (o !== undefined && typeof o.native === 'function') {
      const spec = PATH_OPS.realpath!;
      w.native = name === 'realpath' ? genericCallback(st, o.native as AnyFn, spec) : genericSync(st, o.native as AnyFn, spec);
    }
  }

  // fs/promises (the same object as fs.promises).
  const registry = new FinalizationRegistry<{ fd: number; entry: FdEntry }>(({ fd, entry }) => {
    // A FileHandle closed by the garbage collector: its fd number is free again.
    if (st.fds.get(fd) === entry) st.fds.delete(fd);
  });
  const handlePatches: Patch[] = [];
  let handleProto: object | null = null;
  const onHandle = (h: object): void => {
    if (handleProto !== null) return;
    handleProto = Object.getPrototypeOf(h) as object;
    patchFileHandle(st, handleProto, handlePatches);
  };
  patch(patches, p, 'open', (o) => openPromise(st, o, onHandle, registry));
  patch(patches, p, 'readFile', (o) => wholeFilePromise(st, o, 'readFile'));
  patch(patches, p, 'writeFile', (o) => wholeFilePromise(st, o, 'writeFile'));
  patch(patches, p, 'appendFile', (o) => wholeFilePromise(st, o, 'appendFile'));

  // `import { readFileSync } from 'node:fs'` and `from 'node:fs/promises'` see the wrappers.
  syncBuiltinESMExports();

  return () => {
    st.quiet = 1 << 30; // wrappers someone kept now pass straight through
    st.fds.clear();
    unpatch(handlePatches);
    unpatch(patches);
    syncBuiltinESMExports();
    if (current === st) current = null;
  };
}

/** FileHandle.prototype: read/write/readv/writev, stat & co, readFile/writeFile/appendFile. */
function patchFileHandle(st: FsState, proto: object, patches: Patch[]): void {
  const t = proto as Record<string, unknown>;
  patch(patches, t, 'read', (o) => handleData(st, o, 'read'));
  patch(patches, t, 'write', (o) => handleData(st, o, 'write'));
  patch(patches, t, 'readv', (o) => handleData(st, o, 'readv'));
  patch(patches, t, 'writev', (o) => handleData(st, o, 'writev'));
  for (const [name, spec] of Object.entries(HANDLE_OPS)) patch(patches, t, name, (o) => handleOp(st, o, spec, name));
  patch(patches, t, 'readFile', (o) => wholeFileHandle(st, o, 'readFile'));
  patch(patches, t, 'writeFile', (o) => wholeFileHandle(st, o, 'writeFile'));
  patch(patches, t, 'appendFile', (o) => wholeFileHandle(st, o, 'appendFile'));
}
