import { createRequire } from 'node:module';
import { join } from 'node:path';
import { currentTf } from './namespace.js';

/** The parts of the tfjs-core module the integrations read without a full namespace. */
export interface TfCoreModule {
  engine(): unknown;
}

const program = () => createRequire(join(process.cwd(), 'noop.js'));
const here = () => createRequire(import.meta.url);

/** Where loadTf resolves packages: `from` (default this package), then the working directory. */
export function requirers(from?: string): NodeJS.Require[] {
  return [from === undefined ? here() : createRequire(from), program()];
}

/** Where the first place that has a package finds it; the error of the last place if none. */
export function resolveFirst(name: string, places: readonly NodeJS.Require[]): { rq: NodeJS.Require; resolved: string } {
  let last: unknown;
  for (const rq of places) {
    try {
      return { rq, resolved: rq.resolve(name) };
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

/** `require` of a package from the first place that has it; the error of the last place if none. */
export function requireFrom(name: string, places: readonly NodeJS.Require[]): { mod: unknown; resolved: string } {
  const { rq, resolved } = resolveFirst(name, places);
  return { mod: rq(name), resolved };
}

// tfjs-core as installed beside (or under) a tfjs flavour: with pnpm it is not hoisted.
const FLAVOURS = ['@tensorflow/tfjs', '@tensorflow/tfjs-node', '@tensorflow/tfjs-node-gpu'];

let installed: TfCoreModule | undefined;

function installedTfCore(): TfCoreModule {
  if (installed !== undefined) return installed;
  let first: unknown;
  try {
    installed = requireFrom('@tensorflow/tfjs-core', [program(), here()]).mod as TfCoreModule;
    return installed;
  } catch (e) {
    first = e;
  }
  for (const flavour of FLAVOURS) {
    for (const rq of [program(), here()]) {
      try {
        installed = createRequire(rq.resolve(flavour))('@tensorflow/tfjs-core') as TfCoreModule;
        return installed;
      } catch {
        // next place
      }
    }
  }
  throw first;
}

function isTfCore(v: unknown): v is TfCoreModule {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { engine?: unknown }).engine === 'function';
}

/**
 * The tfjs module an integration works on: `given` (what its caller passed) when there is one,
 * else the namespace handed to `useTfNamespace`/`loadTf`, else `@tensorflow/tfjs-core` from the
 * program's install (every tfjs flavour loads that module; its engine and kernel registry are
 * process-wide). Nothing is required when a namespace was passed or handed over, so bundled
 * programs work as long as they hand theirs over. `who` names the caller in errors (`profile`).
 */
export function resolveTf(given: unknown, who = 'resolveTf'): TfCoreModule {
  if (typeof who !== 'string' || who === '') throw new TypeError(`resolveTf: who must be a non-empty string naming the caller; got ${String(who)}`);
  if (given !== undefined) {
    if (!isTfCore(given)) throw new TypeError(`${who}: tf must be the tfjs module (import * as tf from "@tensorflow/tfjs"), with engine()`);
    return given;
  }
  const handed = currentTf();
  if (handed !== undefined) return handed as unknown as TfCoreModule;
  try {
    return installedTfCore();
  } catch (err) {
    throw new Error(`${who}: no tfjs found; pass your tfjs module (tf) or call useTfNamespace(tf) / loadTf() from @dftracer/tfjs first (loading @tensorflow/tfjs-core failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
}
