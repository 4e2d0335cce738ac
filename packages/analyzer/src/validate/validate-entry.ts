/** `@dftracer/analyzer/validate`: `validateFiles` without loading DuckDB. */
export { validateFiles } from './validate.js';
export type { FileValidation, ValidateOptions, ValidationReport, ProblemGroup, ProblemKind, ProblemExample } from './validate.js';
