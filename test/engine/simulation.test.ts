import { describe, expect, it } from 'vitest';
import { compileStructure, createSimulation, ticks } from '../../lib/engine';
import { WORKED_EXAMPLE as workedExample } from '../../lib/worked-example';

describe('createSimulation', () => {
  // Step by step, the loads are the engine model's worked example's (A(10) splits evenly to B,
  // capacity 4, and C; B feeds C): 10,0,0 → 0,5,5 → 0,1,9 → 0,0,10, and each
  // step returns what it moved (10, then B's 4, then B's last 1, then nothing).
  it('runs the worked example one step at a time', () => {
    const simulation = createSimulation(workedExample);
    expect(simulation.nodeCount).toBe(3);
    expect(simulation.dependencyCount).toBe(3);
    expect([...simulation.loads()]).toEqual([10, 0, 0]);
    const moved: number[] = [];
    const loads: number[][] = [];
    for (let i = 0; i < 4; i++) {
      moved.push(simulation.step());
      loads.push([...simulation.loads()]);
    }
    expect(moved).toEqual([10, 4, 1, 0]);
    expect(loads).toEqual([
      [0, 5, 5],
      [0, 1, 9],
      [0, 0, 10],
      [0, 0, 10],
    ]);
  });

  // A compiled structure can be simulated many times; each simulation starts from the input
  // loads and leaves the structure (and every other simulation) as it was.
  it('starts every simulation from the input loads of a compiled structure', () => {
    const compiled = compileStructure(workedExample);
    const first = createSimulation(compiled);
    first.step();
    first.step();
    const second = createSimulation(compiled);
    expect([...second.loads()]).toEqual([10, 0, 0]);
    expect([...compiled.initialLoads]).toEqual([10, 0, 0]);
    second.step();
    expect([...first.loads()]).toEqual([0, 1, 9]);
    expect(ticks(compiled, 1)[0]!.nodes.map((n) => n.load)).toEqual([0, 5, 5]);
  });
});
