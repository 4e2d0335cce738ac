/**
 * @dftracer/analyzer: validate, summarise, merge, query and export DFTracer traces.
 * The `dftracer` CLI is built on these functions.
 */
export { validateFiles, validateFile, ScanPool, SemanticChecker } from './validate.js';
export type { FileValidation, ValidateOptions, ValidationReport, ProblemGroup, ProblemKind, ProblemExample } from './validate.js';
export { summarize, formatSummary } from './summary.js';
export type { Summary, SummaryOptions, NameStats, CatStats, FileStats, ProcessStats, TimeSplit, TopEvent } from './summary.js';
export { Duck, loadTraces, loadEvents, readJsonSql } from './duck.js';
export type { DuckOptions } from './duck.js';
export { resolveInputs } from './inputs.js';
export { dftHash } from '@dftracer/core';
export { UserError, UsageError } from './errors.js';
