/**
 * `validate`'s check of DFTracer 2.2 provenance: every entity id that an `ER` record
 * (`subject`, `object`) or an event's `args.relations` names is defined by an `EH` record of the
 * file. Only lines holding `"EH"`, `"ER"` or `"relations"` are parsed (found with indexOf), so a
 * trace without provenance costs one search per chunk.
 */
const MARKS = ['"EH"', '"ER"', '"relations"'].map((m) => Buffer.from(m));

/** The entity lines of one chunk, by their line within it (1-based). */
export interface EntityHits {
  defs: Array<[string, number]>;
  refs: Array<[string, number]>;
}

export class EntityCheck {
  private readonly defined = new Set<string>();
  /** Referenced id → first line. */
  private readonly referenced = new Map<string, number>();

  /** Find the entity records and relations of a chunk of whole lines (call before it is handed over). */
  scan(chunk: Uint8Array): EntityHits {
    const hits: EntityHits = { defs: [], refs: [] };
    const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const at: number[] = [];
    for (const m of MARKS) for (let i = b.indexOf(m); i >= 0; i = b.indexOf(m, i + m.length)) at.push(i);
    if (at.length === 0) return hits;
    at.sort((x, y) => x - y);
    let line = 1;
    let counted = 0;
    let lastStart = -1;
    for (const i of at) {
      const s = b.lastIndexOf(10, i) + 1;
      if (s === lastStart) continue;
      lastStart = s;
      for (let p = b.indexOf(10, counted); p >= 0 && p < s; p = b.indexOf(10, p + 1)) {
        line++;
        counted = p + 1;
      }
      let e = b.indexOf(10, i);
      if (e < 0) e = b.length;
      let o: unknown;
      try {
        o = JSON.parse(b.toString('utf8', s, e).trim().replace(/^\]\s*/, ''));
      } catch {
        continue; // not JSON: the scanner reports it
      }
      collect(o, line, hits);
    }
    return hits;
  }

  /** Take a chunk's hits, its first line being `base + 1`. */
  take(hits: EntityHits, base: number): void {
    for (const [id] of hits.defs) this.defined.add(id);
    for (const [id, l] of hits.refs) if (!this.referenced.has(id)) this.referenced.set(id, base + l);
  }

  /** Ids named by relations but defined by no `EH` record, with the line of their first mention. */
  undefinedRefs(): Array<[string, number]> {
    return [...this.referenced].filter(([id]) => !this.defined.has(id)).sort((x, y) => x[1] - y[1]);
  }
}

function collect(o: unknown, line: number, hits: EntityHits): void {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return;
  const r = o as { name?: unknown; args?: unknown };
  const args = r.args && typeof r.args === 'object' && !Array.isArray(r.args) ? (r.args as Record<string, unknown>) : null;
  if (!args) return;
  const ref = (v: unknown) => {
    if (typeof v === 'string' && v !== '') hits.refs.push([v, line]);
  };
  if (r.name === 'EH' && typeof args.id === 'string') hits.defs.push([args.id, line]);
  else if (r.name === 'ER') {
    ref(args.subject);
    ref(args.object);
  }
  const rel = args.relations;
  if (rel && typeof rel === 'object' && !Array.isArray(rel)) for (const ids of Object.values(rel as Record<string, unknown>)) if (Array.isArray(ids)) ids.forEach(ref);
}
