import { activeTracer } from './core-state.js';
import { currentLineage } from '../fs/index.js';
import { ENTITY_TYPE_MAX, ENTITY_URI_MAX, EntityRelation, EntityStore, entityId, sanitizeEntity } from '../recording/entity.js';

export { EntityRelation, EntityStore, entityId };

const HEX = /^[0-9a-f]{16}$/;

/**
 * The id of entity (`type`, `uri`), as every DFTracer producer computes it; the first time in a
 * trace it writes its `EH` record (`id`, `type`, `store`, `uri`). Tracing off: the id, nothing written.
 */
export function recordEntity(type: string, uri: string, store: number = EntityStore.LOCAL_DISK): string {
  if (typeof type !== 'string' || type === '') throw new TypeError(`recordEntity: type must be a non-empty string; got ${typeof type}`);
  if (typeof uri !== 'string' || uri === '') throw new TypeError(`recordEntity: uri must be a non-empty string; got ${typeof uri}`);
  if (!Number.isInteger(store) || store < 0 || store > EntityStore.OTHER) throw new TypeError(`recordEntity: store must be an EntityStore value 0–8; got ${String(store)}`);
  const t = sanitizeEntity(type, ENTITY_TYPE_MAX);
  const u = sanitizeEntity(uri, ENTITY_URI_MAX);
  const id = entityId(t, u);
  const tracer = activeTracer();
  if (tracer !== null && !tracer.entities.has(id)) {
    tracer.entities.add(id);
    tracer.entityRecord('EH', `"id":"${id}","type":"${t}","store":${store},"uri":"${u}"`);
  }
  return id;
}

/** An `ER` record: `subject` `relation` `object` (ids from recordEntity; relation an EntityRelation ≥ 16). */
export function relateEntities(subject: string, relation: number, object: string): void {
  if (!HEX.test(subject)) throw new TypeError(`relateEntities: subject must be an entity id (16 hex digits); got ${JSON.stringify(subject)}`);
  if (!HEX.test(object)) throw new TypeError(`relateEntities: object must be an entity id (16 hex digits); got ${JSON.stringify(object)}`);
  if (!Number.isInteger(relation) || relation < EntityRelation.DERIVED_FROM || relation > EntityRelation.DEPENDS_ON) throw new TypeError(`relateEntities: relation must be an EntityRelation value 16–22; got ${String(relation)}`);
  activeTracer()?.entityRecord('ER', `"relation":${relation},"subject":"${subject}","object":"${object}"`);
}

/** What this thread's traced I/O read and wrote, by directory, or null when the fs tracer is not installed. */
export interface DataLineageView {
  readDirectories(): string[];
  mark(): number;
  writtenSince(mark: number): string[];
}

export function dataLineage(): DataLineageView | null {
  return activeTracer() === null ? null : currentLineage();
}
