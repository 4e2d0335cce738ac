import { safeJson } from '../format/safe-json.js';

/**
 * An arg value serialised once: events that repeat a value (a tensor shape) carry this instead
 * of an object the recorder would serialise on every event. Written exactly as the value itself.
 */
export class JsonArg {
  /** The value's JSON, as the trace writes it. */
  readonly text: string;

  constructor(readonly value: unknown) {
    this.text = safeJson(value);
    Object.freeze(this);
  }

  /** Anything else that serialises args writes the value itself. */
  toJSON(): unknown {
    return this.value;
  }
}

/** `value` serialised now, for use as an arg of many events (intern it: one per distinct value). */
export function jsonArg(value: unknown): JsonArg {
  return new JsonArg(value);
}
