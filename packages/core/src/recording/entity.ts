/**
 * DFTracer's entities (provenance, upstream `include/dftracer/core/common/entity.h`): an entity is
 * a typed thing a run works with (a dataset directory, a checkpoint), identified by the FNV-1a-64
 * of its type, a 0x1f byte and its key, written as 16 lowercase hex digits; relations link
 * events to entities (`args.relations`) and entities to each other (`ER` records). The numbers
 * below are part of upstream's trace format.
 */

/** Where an entity lives (upstream's EntityStore). */
export const EntityStore = { MEMORY: 0, GPU_MEMORY: 1, LOCAL_DISK: 2, PARALLEL_FS: 3, BURST_BUFFER: 4, OBJECT_STORE: 5, DATABASE: 6, NETWORK: 7, OTHER: 8 } as const;

/** Entity-to-entity relations (upstream's EntityRelation ≥ 16), for `ER` records. */
export const EntityRelation = { DERIVED_FROM: 16, REVISION_OF: 17, CONTAINS: 18, PART_OF: 19, SPECIALIZATION_OF: 20, ALTERNATE_OF: 21, DEPENDS_ON: 22 } as const;

/** Upstream's fixed buffers, terminating NUL excluded. */
export const ENTITY_TYPE_MAX = 31;
export const ENTITY_URI_MAX = 255;

const SAFE = /[^A-Za-z0-9_\-.:/@+=,~ ]/g;

/** Upstream's dft_entity_sanitize: cut to `max` characters, anything outside its safe set → `_`. */
export function sanitizeEntity(s: string, max: number): string {
  return s.slice(0, max).replace(SAFE, '_');
}

const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** Upstream's dft_entity_hash (FNV-1a-64 with its basis, of type, 0x1f, key; 0 reserved) as 16 hex digits. */
export function entityId(type: string, key: string): string {
  // Upstream's offset basis is 1469598103934665603, not FNV's 14695981039346656037 (a digit
  // short): its ids are what every DFTracer producer writes, so we use it too.
  let h = 1469598103934665603n;
  const eat = (s: string) => {
    for (const b of Buffer.from(s, 'utf8')) h = ((h ^ BigInt(b)) * PRIME) & MASK;
  };
  eat(type);
  h = ((h ^ 0x1fn) * PRIME) & MASK;
  eat(key);
  return (h === 0n ? 1n : h).toString(16).padStart(16, '0');
}
