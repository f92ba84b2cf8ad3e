import { describe, expect, it } from 'vitest';
import { analyze, tick } from '../../lib/engine';

// A caller's service map with its own fields: labels, owners, nested metadata.
const structure = JSON.parse(`{
  "nodes": [
    { "id": "web", "load": 3, "label": "Web tier", "tags": ["edge"] },
    { "id": "db", "capacity": 1, "owner": { "team": "data" }, "__proto__": { "polluted": true }, "constructor": 5 }
  ],
  "dependencies": [
    { "from": "web", "to": "db", "weight": 2, "protocol": "sql", "flow": "ignored", "__proto__": 1 }
  ]
}`);

describe('extra fields', () => {
  it('are carried into analyze output, between the given fields and the computed ones', () => {
    const result = analyze(structure);
    expect(Object.keys(result.nodes[0]!)).toEqual([
      'id',
      'load',
      'label',
      'tags',
      'inflow',
      'outflow',
      'pressure',
      'blocked',
      'role',
    ]);
    expect(result.nodes[0]).toMatchObject({ label: 'Web tier', tags: ['edge'] });
    expect(result.nodes[1]).toMatchObject({ owner: { team: 'data' }, constructor: 5, load: 0, capacity: 1 });
  });

  it('named __proto__ stay ordinary fields and never change a prototype', () => {
    const result = analyze(structure);
    const db = result.nodes[1]!;
    expect(Object.getPrototypeOf(db)).toBe(Object.prototype);
    expect(Object.hasOwn(db, '__proto__')).toBe(true);
    expect((db as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(db)).toContain('"__proto__":{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never override what the engine computes', () => {
    const dependency = analyze(structure).dependencies[0]!;
    expect(dependency.flow).toBe(3);
    expect(Object.keys(dependency)).toEqual(['from', 'to', 'weight', 'protocol', '__proto__', 'flow']);
  });

  it('are not carried into snapshots', () => {
    const snapshot = tick(structure);
    expect(Object.keys(snapshot.nodes[0]!)).toEqual([
      'id',
      'load',
      'inflow',
      'outflow',
      'pressure',
      'blocked',
      'role',
    ]);
    expect(Object.keys(snapshot.dependencies[0]!)).toEqual(['from', 'to', 'weight', 'flow']);
  });

  it('leave the input untouched', () => {
    const before = JSON.stringify(structure);
    analyze(structure);
    tick(structure);
    expect(JSON.stringify(structure)).toBe(before);
  });
});
