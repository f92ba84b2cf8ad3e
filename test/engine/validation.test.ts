// biome-ignore-all lint/suspicious/noExplicitAny: these tests build deliberately malformed input
import { describe, expect, it } from 'vitest';
import { analyze, compileStructure, PayloadError } from '../../lib/engine';

const ok = {
  nodes: [
    { id: 'api', load: 1 },
    { id: 'db', load: 0, capacity: 2 },
  ],
  dependencies: [{ from: 'api', to: 'db', weight: 1 }],
};

/** Runs `mutate` on a fresh copy of a valid structure and returns the payload error message. */
function errorFor(mutate: (s: { nodes: unknown[]; dependencies: unknown[] }) => void): string {
  const structure = structuredClone(ok) as { nodes: unknown[]; dependencies: unknown[] };
  mutate(structure);
  try {
    compileStructure(structure);
  } catch (error) {
    expect(error).toBeInstanceOf(PayloadError);
    return (error as PayloadError).message;
  }
  throw new Error('expected a payload error');
}

describe('payload errors name the offending element', () => {
  it.each([
    ['nodes missing', (s: any) => delete s.nodes, /^nodes: must be an array, got nothing$/],
    ['dependencies an object', (s: any) => (s.dependencies = {}), /^dependencies: must be an array/],
    ['a node that is not an object', (s: any) => (s.nodes[1] = 'db'), /^nodes\[1\]: must be an object/],
    ['a node without id', (s: any) => delete s.nodes[1].id, /^nodes\[1\]\.id: must be a non-empty string/],
    ['an empty id', (s: any) => (s.nodes[0].id = ''), /^nodes\[0\]\.id: must be a non-empty string/],
    ['a numeric id', (s: any) => (s.nodes[0].id = 7), /^nodes\[0\]\.id: must be a non-empty string, got 7$/],
    [
      'a duplicate id',
      (s: any) => s.nodes.push({ id: 'api', load: 0 }),
      /^nodes\[2\]\.id: duplicate id "api" \(first used by nodes\[0\]\)$/,
    ],
    [
      'a negative load',
      (s: any) => (s.nodes[1].load = -1),
      /^nodes\[1\]\.load: must be a finite number >= 0, got -1$/,
    ],
    ['a string load', (s: any) => (s.nodes[0].load = '5'), /^nodes\[0\]\.load: .*got the string "5"$/],
    ['a null load', (s: any) => (s.nodes[0].load = null), /^nodes\[0\]\.load: .*got null$/],
    ['a NaN load', (s: any) => (s.nodes[0].load = Number.NaN), /^nodes\[0\]\.load: .*got NaN$/],
    [
      'an infinite load',
      (s: any) => (s.nodes[0].load = Number.POSITIVE_INFINITY),
      /^nodes\[0\]\.load: .*Infinity$/,
    ],
    [
      'a zero capacity',
      (s: any) => (s.nodes[1].capacity = 0),
      /^nodes\[1\]\.capacity: must be a finite number > 0/,
    ],
    [
      'a dependency that is not an object',
      (s: any) => (s.dependencies[0] = null),
      /^dependencies\[0\]: .*null$/,
    ],
    [
      'a dependency without from',
      (s: any) => delete s.dependencies[0].from,
      /^dependencies\[0\]\.from: must be/,
    ],
    [
      'a dependency from an empty id',
      (s: any) => (s.dependencies[0].from = ''),
      /^dependencies\[0\]\.from: must be a non-empty string, got the string ""$/,
    ],
    [
      'a dependency to an unknown node',
      (s: any) => s.dependencies.push({ from: 'db', to: 'cache' }),
      /^dependencies\[1\]\.to: unknown node "cache"$/,
    ],
    [
      'a dependency from an unknown node',
      (s: any) => (s.dependencies[0].from = 'web'),
      /^dependencies\[0\]\.from: unknown node "web"$/,
    ],
    [
      'a zero weight',
      (s: any) => (s.dependencies[0].weight = 0),
      /^dependencies\[0\]\.weight: must be a finite number > 0/,
    ],
    [
      'a negative weight',
      (s: any) => (s.dependencies[0].weight = -2),
      /^dependencies\[0\]\.weight: .*got -2$/,
    ],
  ])('%s', (_name, mutate, expected) => {
    expect(errorFor(mutate)).toMatch(expected);
  });

  it('names the element and carries its path separately for the API', () => {
    const structure = {
      nodes: [{ id: 'a' }],
      dependencies: [
        { from: 'a', to: 'a' },
        { from: 'a', to: 'db' },
      ],
    };
    try {
      analyze(structure);
      expect.unreachable();
    } catch (error) {
      expect((error as PayloadError).path).toBe('dependencies[1].to');
      expect((error as PayloadError).message).toBe('dependencies[1].to: unknown node "db"');
    }
  });

  it('rejects a structure that is not an object', () => {
    for (const bad of [null, [], 'x', 3]) expect(() => compileStructure(bad)).toThrow(PayloadError);
  });

  it('cuts a huge id short in the message', () => {
    const id = 'x'.repeat(10_000);
    const message = errorFor((s: any) => s.dependencies.push({ from: 'api', to: id }));
    expect(message.length).toBeLessThan(200);
  });

  it('accepts omitted loads as 0, and ids such as __proto__ and constructor as ordinary ids', () => {
    const result = analyze({
      nodes: [{ id: '__proto__', capacity: 1 }, { id: 'constructor', load: 3 }, { id: 'toString' }],
      dependencies: [
        { from: 'constructor', to: '__proto__' },
        { from: '__proto__', to: 'toString' },
      ],
    });
    expect(result.nodes.map((n) => n.load)).toEqual([0, 3, 0]);
    expect(result.primaryBlockage).toBe('__proto__');
    expect(result.trace).toEqual(['constructor', '__proto__']);
  });
});
