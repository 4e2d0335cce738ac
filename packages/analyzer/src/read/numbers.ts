/**
 * A value of a DuckDB row as a number: counts and sums come back as numbers or BIGINT text, and a
 * sum over no rows is NULL, which counts as 0.
 */
export const num = (v: unknown): number => (typeof v === 'number' ? v : v == null ? 0 : Number(v));
