import { describe, expect, it } from 'vitest';
import { entityId, sanitizeEntity } from './entity.js';

describe('entities as upstream identifies them', () => {
  it('entityId is upstream\'s pinned FNV-1a-64 of type 0x1f key', () => {
    // include/dftracer/core/common/entity.h's unit test pins this value for every language
    expect(entityId('protein_structure', 'MGYP0001')).toBe('8f0de68c04eea0bf');
    expect(entityId('ab', 'c')).not.toBe(entityId('a', 'bc'));
    expect(entityId('', '')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('sanitizeEntity keeps paths, replaces JSON-unsafe characters and cuts to the buffer', () => {
    expect(sanitizeEntity('/p/lustre5/run/out-1.tar', 255)).toBe('/p/lustre5/run/out-1.tar');
    expect(sanitizeEntity('a"b\\c|d\ne', 31)).toBe('a_b_c_d_e');
    expect(sanitizeEntity('x'.repeat(100), 31)).toHaveLength(31);
  });
});

describe('the entity API names its bad arguments', async () => {
  const { recordEntity, relateEntities } = await import('../api/entities.js');
  it('recordEntity and relateEntities', () => {
    expect(recordEntity('checkpoint', '/ckpt')).toBe(entityId('checkpoint', '/ckpt')); // tracing off: the id, nothing written
    expect(() => recordEntity('', '/x')).toThrow(/recordEntity: type must be a non-empty string/);
    expect(() => recordEntity('t', '/x', 9)).toThrow(/store must be an EntityStore value 0–8; got 9/);
    expect(() => relateEntities('xyz', 16, entityId('a', 'b'))).toThrow(/subject must be an entity id/);
    expect(() => relateEntities(entityId('a', 'b'), 1, entityId('a', 'c'))).toThrow(/relation must be an EntityRelation value 16–22; got 1/);
  });
});
