/**
 * Whether `v` is a property descriptor, as a legacy (`experimentalDecorators`) method decorator
 * receives it: tells `decorator(target, key, descriptor)` apart from calls with options.
 */
export function isDescriptor(v: unknown): v is PropertyDescriptor {
  return typeof v === 'object' && v !== null && ('value' in v || 'get' in v || 'set' in v) && ('configurable' in v || 'writable' in v || 'enumerable' in v);
}
