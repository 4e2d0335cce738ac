/**
 * @dftracer/analyzer: the `dftracer` CLI's commands as functions — validate, summarise, merge,
 * query, export and report DFTracer traces — with their options and results.
 */
export { validateFiles } from './validate.js';
export type { FileValidation, ValidateOptions, ValidationReport, ProblemGroup, ProblemKind, ProblemExample } from './validate.js';
export { summarize, formatSummary } from './summary.js';
export { terminalSafe } from './format.js';
export type { Summary, SummaryOptions, NameStats, CatStats, FileStats, ProcessStats, TimeSplit, TopEvent } from './summary.js';
export type { NamesLeftOut } from './name-rank.js';
export { mergeTraces } from './merge.js';
export type { MergeOptions, MergeResult } from './merge.js';
export { queryTraces, formatQueryResult } from './query.js';
export type { QueryResult } from './query.js';
export { exportPerfetto } from './export-perfetto.js';
export type { PerfettoResult } from './export-perfetto.js';
export { exportParquet } from './export-parquet.js';
export type { ParquetResult } from './export-parquet.js';
export { writeReport } from './report.js';
export type { ReportOptions, ReportResult } from './report.js';
export type { DuckOptions } from './duck.js';
export { resolveInputs } from './inputs.js';
export { UserError, UsageError } from './errors.js';
