import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';
import { IdIndex, idHash, tableSize } from '../../lib/engine/id-index';

/** `count` distinct ids with one home slot in the table for `expected` ids (their hashes agree in its low bits). */
function collidingIds(count: number, expected: number): string[] {
  const mask = tableSize(expected) - 1;
  const found: string[] = [];
  for (let k = 0; found.length < count; k++) {
    const id = `x${k}`;
    if ((idHash(id) & mask) === 0) found.push(id);
  }
  return found;
}

describe('IdIndex', () => {
  // Three nodes and a repeat: the repeat reports the first index and changes nothing.
  it('gives each id its index, reports a duplicate with the first index, and -1 for unknown ids', () => {
    const index = new IdIndex(3);
    expect(index.add('a', 0)).toBe(-1);
    expect(index.add('b', 1)).toBe(-1);
    expect(index.add('c', 2)).toBe(-1);
    expect(index.add('b', 3)).toBe(1);
    expect([index.get('a'), index.get('b'), index.get('c'), index.get('d'), index.get('')]).toEqual([
      0, 1, 2, -1, -1,
    ]);
    expect(index.usesMap).toBe(false);
  });

  // Ids crafted to share one home slot (the hash is public): past 32 probes the index moves to a Map.
  it('moves to a Map when ids collide too much, and still answers exactly', () => {
    const ids = collidingIds(40, 100); // a table for 100 ids has 512 slots: 9 bits of home slot
    const index = new IdIndex(100);
    for (const [i, id] of ids.entries()) expect(index.add(id, i)).toBe(-1);
    expect(index.usesMap).toBe(true);
    for (const [i, id] of ids.entries()) expect(index.get(id)).toBe(i);
    expect(index.add(ids[7]!, 40)).toBe(7);
    expect(index.get('x-unknown')).toBe(-1);
  });

  // Exactly 32 ids on one home slot still fit (the last one 31 slots past it); an absent id with
  // the same home slot probes those 32 and is reported absent. The 33rd moves the index to a Map.
  it('keeps 32 colliding ids in the table and moves to a Map at the 33rd', () => {
    const ids = collidingIds(34, 100);
    const index = new IdIndex(100);
    for (const [i, id] of ids.slice(0, 32).entries()) expect(index.add(id, i)).toBe(-1);
    expect(index.usesMap).toBe(false);
    expect(index.get(ids[33]!)).toBe(-1);
    for (const [i, id] of ids.slice(0, 32).entries()) expect(index.get(id)).toBe(i);
    expect(index.add(ids[32]!, 32)).toBe(-1);
    expect(index.usesMap).toBe(true);
    expect(index.get(ids[32]!)).toBe(32);
  });

  // Ordinary ids never come near 32 probes: 5,000 of them stay in the table (four times their
  // count in slots), wherever their hashes land, the first slot and the last included.
  it('keeps ordinary ids in the table', () => {
    const index = new IdIndex(5000);
    for (let i = 0; i < 5000; i++) expect(index.add(`node-${i}`, i)).toBe(-1);
    expect(index.usesMap).toBe(false);
    for (let i = 0; i < 5000; i++) expect(index.get(`node-${i}`)).toBe(i);
  });

  // A real-sized structure of ordinary ids stays in the table too. With twice the ids in slots,
  // half full, 400,000 ids named like services ran past 32 probes (at the 377,123rd) and moved to
  // the slower Map; a quarter full, their longest probe is about 15.
  it('keeps 400,000 ordinary ids in the table', () => {
    const count = 400_000;
    const index = new IdIndex(count);
    for (let i = 0; i < count; i++) index.add(`svc_${i}`, i);
    expect(index.usesMap).toBe(false);
    expect(index.get('svc_377122')).toBe(377_122);
  });

  // Two different ids with the same 32-bit hash (found by a birthday search over "h0", "h1", …,
  // as an attacker would) are two nodes: a hash match is only a hint, the strings decide.
  it('tells apart different ids with the same hash', () => {
    const [first, second] = ['h84337', 'h1340180'];
    expect(idHash(first)).toBe(idHash(second));
    const index = new IdIndex(2);
    expect(index.add(first, 0)).toBe(-1);
    expect(index.get(second)).toBe(-1);
    expect(index.add(second, 1)).toBe(-1);
    expect([index.get(first), index.get(second)]).toEqual([0, 1]);
  });

  // The hash is FNV-1a (32 bits) over UTF-16 code units, as a signed integer: the published test
  // values for ASCII strings, so colliding ids can be crafted with any FNV-1a implementation.
  it('hashes with FNV-1a', () => {
    expect(idHash('')).toBe(0x811c9dc5 | 0);
    expect(idHash('a')).toBe(0xe40c292c | 0);
    expect(idHash('foobar')).toBe(0xbf9cf968 | 0);
  });

  it('answers like a Map for any ids, odd strings included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary' }), { maxLength: 200 }),
        fc.array(fc.string()),
        (ids, probes) => {
          const index = new IdIndex(ids.length);
          const reference = new Map<string, number>();
          let next = 0;
          for (const id of ids) {
            const expected = reference.get(id) ?? -1;
            if (expected >= 0) {
              expect(index.add(id, next)).toBe(expected);
              continue;
            }
            expect(index.add(id, next)).toBe(-1);
            reference.set(id, next++);
          }
          for (const id of [...ids, ...probes]) expect(index.get(id)).toBe(reference.get(id) ?? -1);
        },
      ),
    );
  });
});

describe('compileStructure with colliding ids', () => {
  // The same structure, ids crafted to collide or not: the same compiled result and the same errors.
  it('compiles colliding ids exactly as any others', () => {
    const ids = collidingIds(60, 60);
    const nodes = ids.map((id, i) => ({ id, load: i }));
    const dependencies = ids.slice(1).map((id, i) => ({ from: ids[i]!, to: id }));
    const compiled = compileStructure({ nodes, dependencies });
    expect(Array.from(compiled.dependencyTo)).toEqual(ids.slice(1).map((_, i) => i + 1));
    expect(() => compileStructure({ nodes: [...nodes, { id: ids[5]! }], dependencies })).toThrow(
      `nodes[60].id: duplicate id "${ids[5]}" (first used by nodes[5])`,
    );
  });
});
