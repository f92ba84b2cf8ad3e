import { describe, expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';

/** The dependencies of the component whose target is swept after its source (stale reads). */
function staleEdges(structure: { nodes: { id: string }[]; dependencies: { from: string; to: string }[] }) {
  const compiled = compileStructure(structure);
  const { start, componentOf, count } = compiled.components();
  const position = new Map<string, number>();
  for (let c = 0; c < count; c++) {
    for (let i = start[c]!; i < start[c + 1]!; i++) position.set(compiled.ids[compiled.sweepOrder()[i]!]!, i);
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
});
