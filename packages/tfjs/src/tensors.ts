/** A tensor as far as sizes go: a tfjs Tensor or TensorInfo. */
export interface TensorMeta {
  readonly shape: readonly number[];
  readonly dtype: string;
}

/** Bytes per element of each tfjs dtype; strings have no fixed size (0). */
export const DTYPE_BYTES: Readonly<Record<string, number>> = Object.freeze({ float32: 4, int32: 4, bool: 1, complex64: 8, float16: 2, int64: 8, string: 0 });

/** Bytes per element of a tfjs dtype (an unknown one counts as 4, tfjs's default float32). */
export function dtypeBytes(dtype: string): number {
  return DTYPE_BYTES[dtype] ?? 4;
}

/** Elements in a tensor of this shape (1 for a scalar). */
export function numel(shape: readonly number[]): number {
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= shape[i]!;
  return n;
}

/** A tensor's data size in bytes. */
export function tensorBytes(t: TensorMeta): number {
  return numel(t.shape) * dtypeBytes(t.dtype);
}
