import { describe, expect, it } from 'vitest';
import { analyze, type Structure, ticks } from '../../lib/engine';
import { compileStructure } from '../../lib/engine/compile';
import { createStepBuffers, step } from '../../lib/engine/step';
import { exactSum, scaled, ulp } from './exact-sum';

/** A's four dependencies, each a hair over a quarter of its outflow (three to B, one to C). */
const QUARTERS = [
  { from: 'A', to: 'B', weight: 0.0010000000000000009 },
  { from: 'A', to: 'C', weight: 0.0010000000000000009 },
  { from: 'A', to: 'B', weight: 0.0010000000000000009 },
  { from: 'A', to: 'B', weight: 0.001 },
];

describe('one step', () => {
  // A passes its load of 1 on to 1000 neighbours in equal parts. Each part is the double nearest
  // 1/1000, and adding 999 of them one by one drifts by dozens of units in the last place; the
  // step sums them with their rounding errors, so the last neighbour gets what is really left
  // and the 1000 flows add up to A's outflow to within one unit in the last place.
  it('splits a node outflow so that its flows add up to it', () => {
    const fanout = 1000;
    const result = analyze({
      nodes: [{ id: 'A', load: 1 }, ...Array.from({ length: fanout }, (_, i) => ({ id: `n${i}` }))],
      dependencies: Array.from({ length: fanout }, (_, i) => ({ from: 'A', to: `n${i}` })),
    });
    const flows = result.dependencies.map((d) => d.flow);
    const error = exactSum(flows) - scaled(1);
    expect(error < 0n ? -error : error).toBeLessThanOrEqual(ulp(1));

    // The example needs the compensation: summed naively, the first 999 parts miss by more.
    let naive = 0;
    for (const flow of flows.slice(0, -1)) naive += flow;
    const naiveError = exactSum([...flows.slice(0, -1), 1 - naive]) - scaled(1);
    expect(naiveError < 0n ? -naiveError : naiveError).toBeGreaterThan(ulp(1));
  });

  // T receives 1e16 from A and 1 from each of 100 small sources, 50 listed before A and 50
  // after. Near 1e16 doubles are 2 apart, so 1e16 + 1 rounds back to 1e16: adding the ones
  // to a running total one at a time would lose them. The step carries each rounding error
  // alongside the sum, so T gets all of 1e16 + 100 (a double) and holds it after the step.
  it('adds what a node receives without losing small flows to a large one', () => {
    const small = (prefix: string) =>
      Array.from({ length: 50 }, (_, i) => ({ id: `${prefix}${i}`, load: 1 }));
    const nodes = [...small('before'), { id: 'A', load: 1e16 }, ...small('after'), { id: 'T' }];
    const structure: Structure = {
      nodes,
      dependencies: nodes.filter((n) => n.id !== 'T').map((n) => ({ from: n.id, to: 'T' })),
    };
    const result = analyze(structure);
    const t = result.nodes.find((n) => n.id === 'T')!;
    expect(1e16 + 1).toBe(1e16);
    expect(t.inflow).toBe(1e16 + 100);
    expect(t.pressure).toBe(1e16 + 100);

    // The same with the large flow first, then every small one.
    const reordered = analyze({ ...structure, nodes: [nodes[50]!, ...nodes.filter((_, i) => i !== 50)] });
    expect(reordered.nodes.find((n) => n.id === 'T')!.inflow).toBe(1e16 + 100);
  });

  // A holds 1e-323, two units of the smallest double (5e-324), and splits it over four equal
  // dependencies. A quarter is half a unit, and the weights make it a hair more, so each part
  // rounds up to a whole unit: three parts sent in order would carry three units out of two.
  // The step sends each part at most what is left, so the first two carry a unit each, the
  // rest nothing, and 100 steps back and forth through B keep exactly 1e-323 (it had grown by
  // a unit every second step: CI's random structures found it).
  it('splits an outflow among the smallest doubles without making value', () => {
    const structure: Structure = {
      nodes: [{ id: 'A', load: 1e-323 }, { id: 'B' }, { id: 'C' }],
      dependencies: [...QUARTERS, { from: 'B', to: 'A' }],
    };
    const result = analyze(structure);
    expect(result.dependencies.map((d) => d.flow)).toEqual([5e-324, 5e-324, 0, 0, 0]);
    // What the targets receive is what the dependencies say: a unit each to B and C.
    expect(result.nodes.map((n) => n.inflow)).toEqual([0, 5e-324, 5e-324]);
    for (const state of ticks(structure, 100)) {
      expect(state.nodes.reduce((sum, n) => sum + n.load, 0)).toBe(1e-323);
      const flowOut = state.dependencies.slice(0, 4).reduce((sum, d) => sum + d.flow, 0);
      expect(flowOut).toBe(state.nodes[0]!.outflow);
    }
  });

  // A holds 2.5e-323 (five units) and sends a hair over 0.3 of it along each of three
  // dependencies, the rest to a fourth: each part, 1.5 units and a hair, rounds to two, six
  // units out of five. Sent in order, each at most what is left: two, two, and the one unit
  // left, less than its part; the fourth nothing. What each dependency says it carries is what
  // its target received.
  it('gives the part where a capped split runs out only what is left', () => {
    const result = analyze({
      nodes: [{ id: 'A', load: 2.5e-323 }, { id: 'B' }, { id: 'C' }, { id: 'D' }, { id: 'E' }],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'A', to: 'C' },
        { from: 'A', to: 'D' },
        { from: 'A', to: 'E', weight: 0.3333 },
      ],
    });
    expect(result.dependencies.map((d) => d.flow)).toEqual([1e-323, 1e-323, 5e-324, 0]);
    expect(result.nodes.map((n) => n.inflow)).toEqual([0, 1e-323, 1e-323, 5e-324, 0]);
  });

  // The same in an open structure, where A's exit takes the remainder: A passes on the 1e-323
  // that arrives each step; three parts of a hair over half a unit each would send three units
  // and leave a negative exit (read as none). Capped, they send two and nothing exits.
  it('caps the parts of an open split before its exit among the smallest doubles', () => {
    const result = analyze({
      nodes: [
        { id: 'A', arrival: 1e-323, exit: 0.001 },
        { id: 'B', exit: 1 },
      ],
      dependencies: [
        { from: 'A', to: 'B', weight: 0.0013 },
        { from: 'A', to: 'B', weight: 0.0013 },
        { from: 'A', to: 'B', weight: 0.0013 },
      ],
    });
    const flows = result.dependencies.map((d) => d.flow);
    expect(flows).toEqual([5e-324, 5e-324, 0]);
    expect(result.nodes.find((n) => n.id === 'B')!.inflow).toBe(1e-323);
    expect(result.nodes.find((n) => n.id === 'A')!.exited).toBe(0);
  });

  // The open twin of the first example: A takes 1 a step, keeps a share of 1 of 1001 for its
  // exit and sends the rest to 1000 neighbours in equal parts. What exits is what is really left
  // after the 1000 parts (summed with their rounding errors), so parts and exit add up to A's
  // outflow to within one unit in the last place.
  it('lets the exit take what is really left of an open split', () => {
    const fanout = 1000;
    const result = analyze({
      nodes: [
        { id: 'A', arrival: 1, exit: 1 },
        ...Array.from({ length: fanout }, (_, i) => ({ id: `n${i}`, exit: 1 })),
      ],
      dependencies: Array.from({ length: fanout }, (_, i) => ({ from: 'A', to: `n${i}` })),
    });
    const a = result.nodes.find((n) => n.id === 'A')!;
    const parts = [...result.dependencies.map((d) => d.flow), a.exited!];
    const error = exactSum(parts) - scaled(1);
    expect(error < 0n ? -error : error).toBeLessThanOrEqual(ulp(1));
  });

  // A node split capped in one step (1e-323 over four parts) and plainly in the next (1 over
  // the same four): the next step's parts are read as plain ones, not capped (the marks of a
  // step are cleared by the next).
  it('reads a split capped in one step as a plain split in the next', () => {
    const compiled = compileStructure({
      nodes: [{ id: 'A' }, { id: 'B' }, { id: 'C' }],
      dependencies: QUARTERS,
    });
    const buffers = createStepBuffers(compiled);
    const next = new Float64Array(3);
    step(compiled, Float64Array.of(1e-323, 0, 0), buffers, next);
    expect([buffers.cutSlot[0], buffers.cutFlow[0], buffers.cutNodes]).toEqual([1, 5e-324, [0]]);
    step(compiled, Float64Array.of(1, 0, 0), buffers, next);
    expect([buffers.cutSlot[0], buffers.cutNodes]).toEqual([-1, []]);
  });
});
