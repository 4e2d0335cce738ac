import { coreState } from './core-state.js';

/** A value `setAppMetadata` takes: upstream's `set_app_metadata_str/int/float/bool`. */
export type AppMetadataValue = string | number | boolean;

/**
 * Records `key = value` about the run (model, dataset, hyper-parameters) for the `end` event's
 * `app` arg, as upstream's `set_app_metadata_*`. A key set again takes the last value. Set it in
 * the thread that called `initializeLog` first (the main thread): it writes `end`. Set before
 * `initializeLog`, it applies to the next trace; `finalize` clears it.
 */
export function setAppMetadata(key: string, value: AppMetadataValue): void {
  if (typeof key !== 'string' || key === '') throw new TypeError(`setAppMetadata: key must be a non-empty string; got ${key === '' ? '""' : typeof key}`);
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new TypeError(`setAppMetadata: value of ${JSON.stringify(key)} must be a string, number or boolean; got ${value === null ? 'null' : typeof value}`);
  }
  coreState().app[key] = value;
}
