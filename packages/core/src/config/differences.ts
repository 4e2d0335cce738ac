import type { DFTracerConfig } from '../types.js';
import { resolveConfig, type Env } from './resolve.js';
import { SETTINGS, SETTING_NAMES, type ConfigOptions, type SettingName } from './settings.js';

/** The config fields a setting fills: its own name, or those of the record it spreads (dataDir). */
function fieldsOf(name: SettingName): string[] {
  const d: unknown = SETTINGS[name].default;
  return typeof d === 'object' && d !== null ? Object.keys(d) : [name];
}

/**
 * The settings `options` names (null and undefined are "not given") whose resolved values differ
 * from the running configuration, as `name value (running: value)`: what a second initializeLog
 * asked for and did not get. Throws ConfigError for a bad value, as the first call would.
 */
export function configDifferences(options: ConfigOptions, running: DFTracerConfig, env: Env = process.env): string[] {
  const wanted = resolveConfig(options, env) as unknown as Record<string, unknown>;
  const now = running as unknown as Record<string, unknown>;
  const out: string[] = [];
  for (const name of SETTING_NAMES) {
    if (options[name] === undefined || options[name] === null) continue;
    const differs = fieldsOf(name).filter((f) => JSON.stringify(wanted[f]) !== JSON.stringify(now[f]));
    if (differs.length === 0) continue;
    const show = (c: Record<string, unknown>) => (differs.length === 1 && differs[0] === name ? JSON.stringify(c[name]) : JSON.stringify(Object.fromEntries(differs.map((f) => [f, c[f]]))));
    out.push(`${name} ${show(wanted)} (running: ${show(now)})`);
  }
  return out;
}
