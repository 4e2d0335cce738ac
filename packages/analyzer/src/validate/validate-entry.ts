/** `@dftracer/analyzer/validate`: `validateFiles` without loading DuckDB. */
export { validateFiles } from './validate.js';
export type { FileValidation, ValidateOptions, ValidationReport } from './validate.js';
export type { ProblemGroup, ProblemKind, ProblemExample } from './line-scanner.js';
