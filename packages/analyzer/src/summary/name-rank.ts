/**
 * Which (cat, name) pairs a summary keeps one by one: the `kept` with the most time (sum of
 * spans, folded calls included), then most calls, then by cat and name, besides the tracer's own
 * (`dftracer`: start, end, a handful). The rest are counted in
 * one row, so a trace with a million distinct names (a name per file, per request) costs the
 * summary, its sweep and the report the same memory as one with a thousand.
 */
import type { Duck } from '../read/duck.js';
import { num } from '../read/numbers.js';
import { sqlString } from '../read/read-json.js';

/** Names kept one by one in a summary unless asked otherwise (`--names N`). */
export const NAMES_KEPT = 1000;

/** A name as the summary keys it: its category and name. */
export interface NameKey {
  cat: string;
  name: string;
}

/** A (cat, name) pair as one Map key (a missing cat reads `null`): the summary's, the sweep's and compare's. */
export const nameKey = (cat: unknown, name: unknown): string => `${String(cat)}\u0000${String(name)}`;

/** What the names not kept add up to. */
export interface NamesLeftOut {
  /** Distinct (cat, name) pairs not kept. */
  names: number;
  /** Their calls (complete events and folded calls). */
  count: number;
  /** Their sum of spans (folded calls' time included). */
  total_us: number;
}

/**
 * The table `rankNames` makes, one row per distinct (cat, name) of host events: count and total_us
 * (folded calls included), x_count, x_total_us, min_us, max_us (complete events only), keep.
 */
export const NAME_RANK = 'name_rank';

/**
 * Ranks the names of the host events (`ph X` off device tracks, and aggregated `C` records) into
 * `name_rank`, and returns what the names not kept add up to. `also`: names kept besides the top
 * `kept` (another run's, for a comparison); those without events here stay absent.
 */
export async function rankNames(duck: Duck, kept: number, also: readonly NameKey[] = []): Promise<NamesLeftOut> {
  const n = Math.max(0, Math.floor(kept));
  // the sums as BIGINT, not sum()'s HUGEINT: DuckDB scans a stored HUGEINT column slowly (a million
  // names: 0.4 CPU s per read of the table, against nothing for BIGINT); a sum past 2^63 µs fails the cast, never a wrong figure
  await duck.run(`CREATE OR REPLACE TABLE ${NAME_RANK} AS
    SELECT cat, name, count::BIGINT AS count, total_us::BIGINT AS total_us, x_count, x_total_us::BIGINT AS x_total_us, min_us, max_us, (cat = 'dftracer') IS TRUE AS keep FROM (
      SELECT cat, name, count(*) FILTER (WHERE ph = 'X') + coalesce(sum(cnt) FILTER (WHERE ph = 'C'), 0) AS count,
        coalesce(sum(dur) FILTER (WHERE ph = 'X'), 0) + coalesce(sum(cnt_dur) FILTER (WHERE ph = 'C'), 0) AS total_us,
        count(*) FILTER (WHERE ph = 'X') AS x_count, sum(dur) FILTER (WHERE ph = 'X') AS x_total_us,
        min(dur) FILTER (WHERE ph = 'X') AS min_us, max(dur) FILTER (WHERE ph = 'X') AS max_us
      FROM ev WHERE (ph = 'X' AND NOT coalesce(dev, false)) OR (ph = 'C' AND cnt IS NOT NULL) GROUP BY cat, name)`);
  // the top n by a LIMIT (a heap of n rows), not a rank over every name (a sort of a million)
  await duck.run(`UPDATE ${NAME_RANK} SET keep = true WHERE rowid IN (
    SELECT rowid FROM ${NAME_RANK} WHERE NOT keep ORDER BY total_us DESC, count DESC, cat NULLS FIRST, name LIMIT ${n})`);
  // after the top n, so that the top n are this run's own whatever else is asked for
  if (also.length) await keepAlso(duck, also);
  const [r] = await duck.all(`SELECT count(*) AS names, coalesce(sum(count), 0) AS count, coalesce(sum(total_us), 0) AS total_us FROM ${NAME_RANK} WHERE NOT keep`);
  return { names: num(r?.names), count: num(r?.count), total_us: num(r?.total_us) };
}

/** Marks the names `also` kept in `name_rank` (in batches: one statement's text stays small). */
async function keepAlso(duck: Duck, also: readonly NameKey[]): Promise<void> {
  await duck.run(`CREATE OR REPLACE TEMP TABLE name_also (cat VARCHAR, name VARCHAR)`);
  for (let i = 0; i < also.length; i += 1000) {
    const rows = also.slice(i, i + 1000).map((k) => `(${sqlString(k.cat)}, ${sqlString(k.name)})`);
    await duck.run(`INSERT INTO name_also VALUES ${rows.join(', ')}`);
  }
  await duck.run(`UPDATE ${NAME_RANK} r SET keep = true FROM (SELECT DISTINCT cat, name FROM name_also) a WHERE r.cat IS NOT DISTINCT FROM a.cat AND r.name = a.name`);
  await duck.run(`DROP TABLE name_also`);
}

/** SQL condition: the event aliased `e` has a kept name (its (cat, name) is kept in `name_rank`). */
export const keptNameSql = (e: string): string =>
  `EXISTS (SELECT 1 FROM ${NAME_RANK} r WHERE r.keep AND r.cat IS NOT DISTINCT FROM ${e}.cat AND r.name = ${e}.name)`;
