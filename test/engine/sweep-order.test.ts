import { describe, expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';

/** The dependencies of the component whose target is swept after its source (stale reads). */
function staleEdges(
  structure: { nodes: { id: string }[]; dependencies: { from: string; to: string }[] },
  ties: 'waited-longest' | 'just-freed' = 'waited-longest',
) {
  const compiled = compileStructure(structure);
  const { start, componentOf, count } = compiled.components();
  const order = ties === 'waited-longest' ? compiled.sweepOrder() : compiled.freedFirstSweepOrder();
  const position = new Map<string, number>();
  for (let c = 0; c < count; c++) {
    for (let i = start[c]!; i < start[c + 1]!; i++) position.set(compiled.ids[order[i]!]!, i);
  }
  return structure.dependencies.filter(
    (d) =>
      d.from !== d.to &&
      componentOf[compiled.ids.indexOf(d.from)] === componentOf[compiled.ids.indexOf(d.to)] &&
      position.get(d.to)! > position.get(d.from)!,
  );
}

describe('sweep order', () => {
  it('leaves a single edge pointing the wrong way on a chain with one jump back', () => {
    // a → b → c → d → e, a shortcut b → d, and the jump back e → a: one cycle, which one
    // edge must break. Every other edge is swept after its target, so reads a fresh value.
    const structure = {
      nodes: ['c', 'e', 'a', 'd', 'b'].map((id) => ({ id })),
      dependencies: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'd' },
        { from: 'd', to: 'e' },
        { from: 'b', to: 'd' },
        { from: 'e', to: 'a' },
      ],
    };
    expect(staleEdges(structure)).toHaveLength(1);
  });

  it('leaves only the jumps back stale on a long window chain', () => {
    // 2,000 nodes, each feeding the next three, with a jump back every 100 nodes.
    const size = 2000;
    const nodes = Array.from({ length: size }, (_, i) => ({ id: `n${(i * 7919) % size}` }));
    const dependencies: { from: string; to: string }[] = [];
    for (let i = 0; i < size; i++) {
      for (let k = 1; k <= 3; k++) if (i + k < size) dependencies.push({ from: `n${i}`, to: `n${i + k}` });
      if (i % 100 === 99) dependencies.push({ from: `n${i}`, to: `n${i - 90}` });
    }
    dependencies.push({ from: `n${size - 1}`, to: 'n0' });
    // 21 jumps must break the cycles; allow a few more for where the walk starts.
    expect(staleEdges({ nodes, dependencies }).length).toBeLessThanOrEqual(25);
  });

  it('follows a ring entered at a node another ring feeds in the just-freed order', () => {
    // Rings a0 → a1 → … → a9 → a0 and b0 → … → b9 → b0, with a0 → b0 and b0 → a0: every node
    // keeps an incoming edge from the ring whichever is taken first. Taking the node that has
    // waited longest walks the rings in the order their nodes were found, against them: 19 of the
    // 22 edges are read stale. Taking the node just freed walks along them: one edge per ring,
    // and one of the two between them, must be broken.
    const ids = ['a', 'b'].flatMap((r) => Array.from({ length: 10 }, (_, i) => `${r}${i}`));
    const dependencies = ['a', 'b'].flatMap((r) =>
      Array.from({ length: 10 }, (_, i) => ({ from: `${r}${i}`, to: `${r}${(i + 1) % 10}` })),
    );
    dependencies.push({ from: 'a0', to: 'b0' }, { from: 'b0', to: 'a0' });
    const structure = { nodes: ids.map((id) => ({ id })), dependencies };
    expect(staleEdges(structure, 'waited-longest')).toHaveLength(19);
    expect(staleEdges(structure, 'just-freed')).toHaveLength(3);
  });
});
