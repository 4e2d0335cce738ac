/**
 * @dftracer/analyzer: the `dftracer` CLI's commands as functions — validate, summarise, merge,
 * query, export and report DFTracer traces — with their options and results.
 */
export { validateFiles } from './validate/validate.js';
export type { FileValidation, ValidateOptions, ValidationReport } from './validate/validate.js';
export type { ProblemGroup, ProblemKind, ProblemExample } from './validate/line-scanner.js';
export { summarize, formatSummary } from './summary/summary.js';
export { terminalSafe } from './format/terminal-safe.js';
export type { Summary, SummaryOptions, NameStats, CatStats, FileStats, ProcessStats, TimeSplit, TopEvent } from './summary/summary.js';
export type { NameKey, NamesLeftOut } from './summary/name-rank.js';
export { mergeTraces } from './merge/merge.js';
export type { MergeOptions, MergeResult } from './merge/merge.js';
export { queryTraces, formatQueryResult } from './query/query.js';
export type { QueryResult } from './query/query.js';
export { exportPerfetto } from './export/export-perfetto.js';
export type { PerfettoResult } from './export/export-perfetto.js';
export { exportParquet } from './export/export-parquet.js';
export type { ParquetResult } from './export/export-parquet.js';
export { writeReport } from './report/report.js';
export type { ReportOptions, ReportResult } from './report/report.js';
export type { DuckOptions } from './read/duck.js';
export { resolveInputs } from './read/inputs.js';
export { UserError, UsageError } from './errors.js';
