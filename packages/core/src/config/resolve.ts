import type { DFTracerConfig } from '../types.js';
import { INVALID } from './kinds.js';
import { SETTINGS, SETTING_NAMES, type ConfigOptions, type Setting, type SettingName } from './settings.js';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A configuration value that is not one of the accepted ones. Which setting, and whether a code
 * option or a variable gave the value, are fields; the message says the same for people.
 */
export class ConfigError extends Error {
  override readonly name = 'DFTracerConfigError';
  constructor(
    /** The option's name (`compressionLevel`), also when its variable gave the value. */
    readonly option: SettingName,
    /** The variable's name (`DFTRACER_COMPRESSION_LEVEL`). */
    readonly variable: string,
    /** Where the value came from: a code option (the caller's bug) or the environment. */
    readonly origin: 'option' | 'variable',
    /** The value as given. */
    readonly value: unknown,
    /** What would have been accepted. */
    readonly accepted: string,
  ) {
    super(origin === 'option' ? `option ${option}=${String(value)} is not valid; accepted values: ${accepted}` : `${variable}=${JSON.stringify(value)} is not valid; accepted values: ${accepted}`);
  }
}

/** A setting's variable, or undefined when it is unset or blank. Throws ConfigError. */
export function readVariable<K extends SettingName>(name: K, env: Env): SettingValue<K> | undefined {
  const s = SETTINGS[name] as Setting<SettingValue<K>>;
  const raw = env[s.variable];
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = s.kind.fromText(raw.trim());
  if (v === INVALID) throw new ConfigError(name, s.variable, 'variable', raw, s.kind.accepted);
  return v;
}

type SettingValue<K extends SettingName> = (typeof SETTINGS)[K] extends Setting<infer T> ? T : never;

function resolveOne<K extends SettingName>(name: K, options: ConfigOptions, env: Env): SettingValue<K> {
  const s = SETTINGS[name] as Setting<SettingValue<K>>;
  const given: unknown = options[name];
  // null is "not given", as pydftracer's None.
  if (given === undefined || given === null) return readVariable(name, env) ?? s.default;
  const v = s.kind.fromValue(given);
  if (v === INVALID) throw new ConfigError(name, s.variable, 'option', given, s.kind.acceptedOption);
  return v;
}

/** Reads the DFTRACER_* variables, then applies code options over them. Throws ConfigError. */
export function resolveConfig(options: ConfigOptions = {}, env: Env = process.env): DFTracerConfig {
  const out: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const v = resolveOne(name, options, env);
    // A setting whose value is a record (dataDir) spreads it into the config's fields.
    if (typeof v === 'object' && v !== null) Object.assign(out, v);
    else out[name] = v;
  }
  return out as unknown as DFTracerConfig;
}

/** The DFTRACER_* variables that reproduce `config` in a child process. */
export function inheritedEnv(config: DFTracerConfig): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of SETTING_NAMES) {
    const s = SETTINGS[name] as Setting<unknown>;
    const value = name in config ? config[name as keyof DFTracerConfig] : config;
    const t = s.inherit !== undefined ? s.inherit(value) : s.kind.toText(value);
    if (t !== undefined) env[s.variable] = t;
  }
  return env;
}
