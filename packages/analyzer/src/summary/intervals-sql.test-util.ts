/**
 * The definition of self time as SQL, over the `ev` table of `loadTraces`: each event's interval
 * minus the union of its children's. The summary computes self time in one pass
 * (`timeline/`); tests check that pass against this plain statement of it.
 */

export interface SelfSegmentsOptions {
  /** Which events (SQL over `ev`'s columns; default all). */
  where?: string;
  /** Which of them get segments (default all); the others only hide time from their parents. */
  parents?: string;
  /**
   * Find the parents of events without `p_idx` by interval nesting on their pid/tid (the latest
   * event that started before and ends no earlier). Costs a sort; only for traces without p_idx.
   */
  nestByTime?: boolean;
}

/**
 * SQL for the self-time segments of events: each one's interval minus the union of its
 * children's intervals (children by p_idx in the same process, on any thread or lane; clipped to
 * the parent). Rows: trace, pid, cat, name, kind, dev, ts, te.
 */
export function selfSegmentsSql(opts: SelfSegmentsOptions = {}): string {
  const where = opts.where ?? 'TRUE';
  const parents = opts.parents ?? 'TRUE';
  const base = `SELECT trace, pid, tid, id, p_idx, ts, ts + dur AS te, kind, cat, name, dev FROM ev WHERE (${where}) AND ph = 'X' AND ts IS NOT NULL`;
  // events without p_idx: the latest earlier-starting event on the same thread that encloses them
  const x = opts.nestByTime
    ? `x0 AS (${base}), x AS (
        SELECT c.trace, c.pid, c.tid, c.id, coalesce(c.p_idx, CASE WHEN p.te >= c.te THEN p.id END) AS p_idx, c.ts, c.te, c.kind, c.cat, c.name, c.dev
        FROM x0 c ASOF LEFT JOIN x0 p ON p.trace = c.trace AND coalesce(p.pid, -1) = coalesce(c.pid, -1) AND p.tid = c.tid AND p.ts < c.ts
      )`
    : `x AS (${base})`;
  return `WITH ${x}, par AS (
    SELECT trace, pid, id, ts, te, kind, cat, name, dev FROM x WHERE (${parents}) AND te > ts
  ), ch AS (
    SELECT c.trace, c.pid, c.p_idx AS parent, p.ts AS pts, p.te AS pte, greatest(c.ts, p.ts) AS cs, least(c.te, p.te) AS ce
    FROM x c JOIN par p ON p.trace = c.trace AND p.pid IS NOT DISTINCT FROM c.pid AND p.id = c.p_idx
    -- a child with nothing inside its parent (an async one that started after it ended) hides none of it
    WHERE c.p_idx >= 0 AND c.id IS DISTINCT FROM c.p_idx AND least(c.te, p.te) > greatest(c.ts, p.ts)
  ), g AS (
    SELECT *, max(ce) OVER (PARTITION BY trace, pid, parent ORDER BY cs, ce ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
    FROM ch
  ), seg AS (
    -- before each child: from the parent's start, or from the furthest end of the children before it
    SELECT trace, pid, parent, greatest(prev, pts) AS ts, cs AS te FROM g
    UNION ALL
    -- after the last child
    SELECT trace, pid, parent, max(ce) AS ts, any_value(pte) AS te FROM ch GROUP BY trace, pid, parent
  ), withp AS (
    SELECT s.trace, s.pid, p.cat, p.name, p.kind, p.dev, s.ts, s.te
    FROM seg s JOIN par p ON p.trace = s.trace AND p.pid IS NOT DISTINCT FROM s.pid AND p.id = s.parent
    WHERE s.te > s.ts
  )
  SELECT * FROM withp
  UNION ALL
  -- events without children: all of it
  SELECT p.trace, p.pid, p.cat, p.name, p.kind, p.dev, p.ts, p.te FROM par p
  ANTI JOIN (SELECT DISTINCT trace, pid, parent AS id FROM ch) c ON c.trace = p.trace AND c.pid IS NOT DISTINCT FROM p.pid AND c.id = p.id`;
}
