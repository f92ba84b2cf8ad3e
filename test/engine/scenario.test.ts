/**
 * Scenarios: the structure a scenario makes of a compiled structure. Worked examples first, with
 * the arithmetic in their comments; then `down`, which no edit of the input can express; then the
 * property that every other change answers byte for byte what the edited structure answers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  applyScenario,
  blameScenario,
  type CompiledStructure,
  compileStructure,
  PayloadError,
  type Structure,
  ticks,
  writeAnalyze,
  writeTick,
  writeTicks,
} from '../../lib/engine';
import { OPEN_WORKED_EXAMPLE, WORKED_EXAMPLE } from '../../lib/worked-example';
import { sweptRing, sweptRingMember } from '../helpers/engine-examples';
import { editedStructure, scenarioArbitrary, structureArbitrary } from './scenario-arbitraries';
import { written } from './written';

const applied = (structure: Structure, scenario: unknown): CompiledStructure =>
  applyScenario(compileStructure(structure), scenario);

function node(structure: CompiledStructure | Structure, id: string) {
  const found = analyze(structure).nodes.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no node ${id}`);
  return found;
}

describe('scenarios on the worked examples', () => {
  // B's capacity halves (4 → 2): A still sends 5 to B, which can now pass on 2: pressure 5 − 2 = 3.
  it("halves B's capacity in the closed example", () => {
    const result = analyze(applied(WORKED_EXAMPLE, { nodes: { B: { capacity: 2 } } }));
    expect(result.nodes[1]).toMatchObject({ id: 'B', capacity: 2, pressure: 3, blocked: true });
    expect(result.primaryBlockage).toBe('B');
  });

  // `scale: 2` doubles every load: A holds 20 and sends 10 each way; B holds 10 against 4.
  it('scales every load', () => {
    const result = analyze(applied(WORKED_EXAMPLE, { scale: 2 }));
    expect(result.nodes.map((n) => n.load)).toEqual([20, 0, 0]);
    expect(result.nodes.map((n) => n.pressure)).toEqual([0, 6, 10]);
  });

  // Cutting A → C sends all of A's 10 to B: pressure 10 − 4 = 6; B is a relay, C a sink still.
  it('cuts a dependency', () => {
    const result = analyze(applied(WORKED_EXAMPLE, { dependencies: [{ from: 'A', to: 'C', cut: true }] }));
    expect(result.dependencies.map((d) => `${d.from}${d.to}`)).toEqual(['AB', 'BC']);
    expect(result.nodes.map((n) => n.pressure)).toEqual([0, 6, 0]);
  });

  // Weight 3 on A → B: A sends 10 × 3/4 = 7.5 to B and 2.5 to C.
  it('reweights a dependency', () => {
    const result = analyze(applied(WORKED_EXAMPLE, { dependencies: [{ from: 'A', to: 'B', weight: 3 }] }));
    expect(result.dependencies.map((d) => d.flow)).toEqual([7.5, 2.5, 0]);
  });

  // The open example: B's capacity 15 → 7.5 doubles its utilization (20 / 7.5) and halves the headroom.
  it("halves B's capacity in the open example", () => {
    const result = analyze(applied(OPEN_WORKED_EXAMPLE, { nodes: { B: { capacity: 7.5 } } }));
    expect(node(applied(OPEN_WORKED_EXAMPLE, { nodes: { B: { capacity: 7.5 } } }), 'B')).toMatchObject({
      pressure: 12.5,
      utilization: 20 / 7.5,
    });
    expect(result.headroom).toEqual({ scale: 0.375, node: 'B' });
  });

  // The front end's arrivals double, by its own arrival or by scaling all traffic: the same structure.
  it("doubles the front end's arrivals either way", () => {
    const byNode = written((w) =>
      writeAnalyze(w, applied(OPEN_WORKED_EXAMPLE, { nodes: { F: { arrival: 20 } } })),
    );
    const byScale = written((w) => writeAnalyze(w, applied(OPEN_WORKED_EXAMPLE, { scale: 2 })));
    expect(byScale).toBe(byNode);
    const result = JSON.parse(byNode);
    expect(result.nodes[2]).toMatchObject({ id: 'B', inflow: 40, pressure: 25, throughput: 40 });
    expect(result.headroom).toEqual({ scale: 0.375, node: 'B' });
  });

  // Node values are set first, then scaled: F's arrival 20, scaled by 3, is 60.
  it('scales the values a scenario sets too', () => {
    expect(node(applied(OPEN_WORKED_EXAMPLE, { scale: 3, nodes: { F: { arrival: 20 } } }), 'F').arrival).toBe(
      60,
    );
  });

  // `capacity: null` removes B's capacity: nothing limits it, so nothing blocks at B.
  it('removes a capacity with null', () => {
    const b = node(applied(WORKED_EXAMPLE, { nodes: { B: { capacity: null } } }), 'B');
    expect(b).not.toHaveProperty('capacity');
    expect(b.blocked).toBe(false);
  });

  // Servers a scenario gives a node replace the capacity it had, as a scenario's capacity would:
  // the node's capacity is servers / serviceTime (2 / 0.01 = 200, not its own 40), as the
  // structure edited to have those servers, and no capacity of its own, answers.
  it("gives a node with its own capacity the servers' capacity in its place", () => {
    const own: Structure = {
      nodes: [{ id: 'a', arrival: 10, capacity: 40, serviceTime: 0.01, exit: 1 }],
      dependencies: [],
    };
    const scenario = { nodes: { a: { servers: 2 } } };
    const edited: Structure = {
      nodes: [{ id: 'a', arrival: 10, serviceTime: 0.01, servers: 2, exit: 1 }],
      dependencies: [],
    };
    expect(editedStructure(own, scenario)).toEqual(edited);
    expect(node(applied(own, scenario), 'a')).toMatchObject({ capacity: 200, utilization: 0.05 });
    expect(written((w) => writeAnalyze(w, applied(own, scenario)))).toBe(
      written((w) => writeAnalyze(w, edited)),
    );
    // Sent inline, the two capacities are one too many.
    expect(() => compileStructure({ ...own, nodes: [{ ...own.nodes[0]!, servers: 2 }] })).toThrow(
      'nodes[0].capacity: 40 disagrees with servers / serviceTime = 200; drop one',
    );
  });

  // An arrival on a closed structure opens it: the answer gains the open fields, as the edited input would.
  it('opens a closed structure with an arrival', () => {
    const result = analyze(applied(WORKED_EXAMPLE, { nodes: { A: { arrival: 1 } } }));
    expect(result.nodes[0]).toMatchObject({ id: 'A', arrival: 1, exited: 0 });
    expect(result).toHaveProperty('headroom');
  });

  // Every copy of a pair is cut; a weight is set on every copy.
  it('changes every copy of a repeated pair', () => {
    const twice: Structure = {
      nodes: [{ id: 'A', load: 6 }, { id: 'B' }, { id: 'C' }],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'A', to: 'C' },
        { from: 'A', to: 'B', note: 'second' },
      ],
    };
    expect(
      analyze(applied(twice, { dependencies: [{ from: 'A', to: 'B', cut: true }] })).dependencies,
    ).toEqual([{ from: 'A', to: 'C', flow: 6 }]);
    // Weights 4, 1, 4 of 9: 6 × 4/9 each way to B, 6 × 1/9 to C.
    const flows = analyze(applied(twice, { dependencies: [{ from: 'A', to: 'B', weight: 4 }] })).dependencies;
    expect(flows.map((d) => d.flow)).toEqual([(6 * 4) / 9, 6 / 9, 6 - (6 * 4) / 9 - 6 / 9]);
  });
});

describe('down: no way out while down', () => {
  // B down in the closed example: B keeps the 5 it receives (its B → C carries 0), so its
  // pressure is all of it; C receives only A's 5. Neither has a way out, so both are terminal
  // blockages of pressure 5: the tie goes to B. A reaches B with probability ½ (r(C) = 0, since
  // value never leaves C), so A contributes 5, all of it.
  it('keeps what the node receives and lists its dependencies with flow 0', () => {
    const result = analyze(applied(WORKED_EXAMPLE, { nodes: { B: { down: true } } }));
    expect(result.nodes).toEqual([
      { id: 'A', load: 10, inflow: 0, outflow: 10, pressure: 0, blocked: false, role: 'source' },
      { id: 'B', load: 0, capacity: 4, inflow: 5, outflow: 0, pressure: 5, blocked: true, role: 'relay' },
      { id: 'C', load: 0, inflow: 5, outflow: 0, pressure: 5, blocked: true, role: 'sink' },
    ]);
    expect(result.dependencies).toEqual([
      { from: 'A', to: 'B', flow: 5 },
      { from: 'A', to: 'C', flow: 5 },
      { from: 'B', to: 'C', flow: 0 },
    ]);
    expect(result.primaryBlockage).toBe('B');
    expect(result.origin).toEqual({ id: 'A', load: 10, contribution: 5, share: 1 });
    expect(result.trace).toEqual(['A', 'B']);
  });

  // Over time B piles up what it receives: 5 after tick 1, and it stays there.
  it('keeps value on the node over a timeline', () => {
    const timeline = ticks(applied(WORKED_EXAMPLE, { nodes: { B: { down: true } } }), 3);
    expect(timeline.map((s) => s.nodes[1]!.load)).toEqual([5, 5, 5]);
    expect(timeline.map((s) => s.nodes[2]!.load)).toEqual([5, 5, 5]);
  });

  // A cycle through a down node is no cycle while it is down (nothing goes round it).
  it('breaks the cycles through the node', () => {
    const ring: Structure = {
      nodes: [{ id: 'A', load: 1 }, { id: 'B' }],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'A' },
      ],
    };
    expect(analyze(ring).events.some((e) => e.type === 'cycle')).toBe(true);
    expect(
      analyze(applied(ring, { nodes: { B: { down: true } } })).events.some((e) => e.type === 'cycle'),
    ).toBe(false);
  });

  // The database D down in the open example: its exit does nothing, so the 30 a step that reach
  // it are lost (throughput 30, lost 30, no utilization: it has no way out); it is saturated and
  // blocked though it holds nothing yet, and is described without its exit. The front end F
  // down: its fan-out does nothing, its 10 arrivals pile up on it and are lost.
  it('takes away an exit and a fan-out', () => {
    const dDown = analyze(applied(OPEN_WORKED_EXAMPLE, { nodes: { D: { down: true } } }));
    expect(dDown.nodes[3]).toEqual({
      id: 'D',
      load: 0,
      inflow: 0,
      outflow: 0,
      exited: 0,
      pressure: 0,
      blocked: true,
      role: 'sink',
      throughput: 30,
      lost: 30,
    });
    expect(dDown.lost).toBe(30);
    expect(dDown.headroom).toEqual({ scale: 0, node: 'D' });
    const fDown = analyze(applied(OPEN_WORKED_EXAMPLE, { nodes: { F: { down: true } } }));
    expect(fDown.nodes[0]).toMatchObject({ id: 'F', arrival: 10, outflow: 0, pressure: 10, role: 'source' });
    expect(fDown.nodes[0]).not.toHaveProperty('fanout');
    expect(fDown.primaryBlockage).toBe('F');
    expect(fDown.lost).toBe(10);
    expect(fDown.headroom).toEqual({ scale: 0, node: 'F' });
  });

  // The object path and the text path agree on down nodes too.
  it('writes what the result objects hold', () => {
    fc.assert(
      fc.property(
        structureArbitrary.chain((structure) =>
          fc.tuple(fc.constant(structure), scenarioArbitrary(structure, { down: true })),
        ),
        ([structure, scenario]) => {
          const compiled = applied(structure, scenario);
          expect(written((w) => writeAnalyze(w, compiled))).toBe(JSON.stringify(analyze(compiled)));
          expect(written((w) => writeTicks(w, compiled, 3))).toBe(JSON.stringify(ticks(compiled, 3)));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('a scenario answers what the edited structure answers', () => {
  it('byte for byte, in every mode, on random structures and scenarios', () => {
    fc.assert(
      fc.property(
        structureArbitrary.chain((structure) =>
          fc.tuple(fc.constant(structure), scenarioArbitrary(structure)),
        ),
        ([structure, scenario]) => {
          const edited = editedStructure(structure, scenario);
          const compiled = applied(structure, scenario);
          // A cut that takes a node's last way out strands what reaches it: the steady state
          // counts it lost, where the structure sent without the dependency is a sink that keeps
          // it (docs/engine.md). Its snapshots are the edited structure's all the same.
          if (compiled.stranded.length === 0)
            expect(written((w) => writeAnalyze(w, compiled))).toBe(written((w) => writeAnalyze(w, edited)));
          expect(written((w) => writeTick(w, compiled))).toBe(written((w) => writeTick(w, edited)));
          expect(written((w) => writeTicks(w, compiled, 4))).toBe(written((w) => writeTicks(w, edited, 4)));
        },
      ),
      { numRuns: 300 },
    );
  });

  // A compare writes the scenario, then the base: when the scenario changes only capacities,
  // loads or service times, the base reads the steady state the scenario solved. Both answers
  // must still be what each structure answers on its own.
  it('byte for byte in the compare order, where the base reuses the steady state', () => {
    fc.assert(
      fc.property(
        structureArbitrary.chain((structure) =>
          fc.tuple(fc.constant(structure), scenarioArbitrary(structure)),
        ),
        ([structure, scenario]) => {
          const base = compileStructure(structure);
          const derived = applyScenario(base, scenario);
          const scenarioText = written((w) => writeAnalyze(w, derived));
          const baseText = written((w) => writeAnalyze(w, base));
          // (A cut that strands a node has no inline twin in analyze: see above.)
          if (derived.stranded.length === 0)
            expect(scenarioText).toBe(written((w) => writeAnalyze(w, editedStructure(structure, scenario))));
          expect(baseText).toBe(written((w) => writeAnalyze(w, compileStructure(structure))));
        },
      ),
      { numRuns: 300 },
    );
  });

  // A loop of 300 nodes, each passing on to the next and, lightly, seven ahead and three back;
  // weights from 0.01 to 50 span more than 1,000×, so its sweep order weighs the shares. A scenario
  // that reweights has the base's rows but other shares: it orders its own sweeps, as the edited
  // structure does, rather than take the base's (which would read other edges stale and end in
  // other last digits). Going the other way, weights brought within 16× order by edges again.
  it('byte for byte where reweighting changes the order of a large loop', () => {
    const n = 300;
    const loop = (heavyBack: number): Structure => {
      const dependencies: { from: string; to: string; weight: number }[] = [];
      for (let i = 0; i < n; i++) {
        dependencies.push({ from: `s${i}`, to: `s${(i + 1) % n}`, weight: 1 });
        dependencies.push({ from: `s${i}`, to: `s${(i + 7) % n}`, weight: 0.01 });
        dependencies.push({
          from: `s${i}`,
          to: `s${(i + n - 3) % n}`,
          weight: i % 10 === 0 ? heavyBack : 0.05,
        });
      }
      return {
        nodes: Array.from({ length: n }, (_, i) => ({ id: `s${i}`, load: i % 4, capacity: 1 + (i % 3) })),
        dependencies,
      };
    };
    const reweighted = {
      dependencies: Array.from({ length: 30 }, (_, k) => ({
        from: `s${k * 10}`,
        to: `s${(k * 10 + n - 3) % n}`,
        weight: 0.05,
      })),
    };
    const heavier = { dependencies: [{ from: 's5', to: 's12', weight: 500 }] };
    // Wide to wide, wide to within 1,000× (0.01 to 1), and within 1,000× to wide.
    for (const [structure, scenario] of [
      [loop(50), heavier],
      [loop(50), reweighted],
      [loop(0.05), heavier],
    ] as const) {
      const base = compileStructure(structure);
      const derived = applyScenario(base, scenario);
      const edited = compileStructure(editedStructure(structure, scenario));
      expect(derived.weightsSpanWide).toBe(edited.weightsSpanWide);
      expect(derived.sweepOrder()).toEqual(edited.sweepOrder());
      expect(derived.sweepOrder()).not.toEqual(base.sweepOrder());
      expect(written((w) => writeAnalyze(w, derived))).toBe(written((w) => writeAnalyze(w, edited)));
    }
  });

  // Halving B's capacity moves no traffic (capacities play no part in the steady state), so the
  // scenario's steady state is the base's; ×2 traffic or a new arrival is another steady state.
  it('shares the steady state only when the flows are the same', () => {
    const base = compileStructure(OPEN_WORKED_EXAMPLE);
    const halved = applyScenario(base, { nodes: { B: { capacity: 1 } } });
    expect(halved.sharesFlows).toBe(true);
    expect(base.keptSteadyState()).toBeUndefined();
    analyze(halved);
    const kept = base.keptSteadyState()!;
    expect(Array.from(kept.throughput)).toEqual(analyze(OPEN_WORKED_EXAMPLE).nodes.map((n) => n.throughput));
    // The base reads it as it is: another run of the scenario finds it there too.
    expect(halved.keptSteadyState()).toBe(kept);
    for (const scenario of [
      { scale: 2 },
      { nodes: { A: { arrival: 3 } } },
      { nodes: { B: { down: true } } },
      { dependencies: [{ from: 'F', to: 'B', cut: true }] },
    ]) {
      expect(applyScenario(base, scenario).sharesFlows).toBe(false);
    }
  });

  // With an SLO the search solves the loops again, so their systems are kept: built once, and
  // shared with a scenario of the same dependencies and shares (other service times, arrivals),
  // not with one whose weights or cuts make other shares.
  it("keeps the loops' systems where an SLO solves them again, shared only with the same shares", () => {
    const withSlo: Structure = {
      nodes: [
        { id: 'A', arrival: 1, serviceTime: 0.1, servers: 1, slo: 1 },
        { id: 'B', serviceTime: 0.1, servers: 1, exit: 1 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'A' },
      ],
    };
    expect(compileStructure(OPEN_WORKED_EXAMPLE).repeatsLoopSolves).toBe(false);
    const { slo: _none, ...entry } = withSlo.nodes[0]!;
    expect(compileStructure({ ...withSlo, nodes: [entry, withSlo.nodes[1]!] }).repeatsLoopSolves).toBe(false);
    const base = compileStructure(withSlo);
    expect(base.repeatsLoopSolves).toBe(true);
    let built = 0;
    const build = () => ({ built: ++built });
    const system = base.keptLoopSystem('loop', build);
    expect(base.keptLoopSystem('loop', build)).toBe(system);
    expect(base.keptLoopSystem('other', build)).not.toBe(system);
    for (const scenario of [
      { nodes: { B: { serviceTime: 0.2 } } },
      { nodes: { A: { arrival: 2 } } },
      { scale: 2 },
    ]) {
      expect(applyScenario(base, scenario).keptLoopSystem('loop', build)).toBe(system);
    }
    expect(built).toBe(2);
    for (const scenario of [
      { dependencies: [{ from: 'B', to: 'A', weight: 2 }] },
      { dependencies: [{ from: 'B', to: 'A', cut: true }] },
      { nodes: { B: { down: true } } },
    ]) {
      expect(applyScenario(base, scenario).keptLoopSystem('loop', build)).not.toBe(system);
    }
  });

  // Without an SLO, a scenario of other node values (a scale, arrivals, service times) solves
  // its base's loops again when compared with it, so deriving one keeps the systems for both; a
  // scenario that reweights has other shares and keeps nothing for its base.
  it("keeps the loops' systems where a scenario of the same shares solves them again", () => {
    for (const scenario of [{ scale: 2 }, { nodes: { F: { arrival: 3 } } }]) {
      const base = compileStructure(OPEN_WORKED_EXAMPLE);
      expect(base.repeatsLoopSolves).toBe(false);
      const derived = applyScenario(base, scenario);
      expect(base.repeatsLoopSolves).toBe(true);
      expect(derived.repeatsLoopSolves).toBe(true);
    }
    const base = compileStructure(OPEN_WORKED_EXAMPLE);
    const reweighted = applyScenario(base, { dependencies: [{ from: 'F', to: 'B', weight: 3 }] });
    expect(base.repeatsLoopSolves).toBe(false);
    expect(reweighted.repeatsLoopSolves).toBe(false);
  });

  // Once the call is over, the base lets go of what the scenario shared: the mark and the
  // systems, asked of either structure. The next scenario marks it again.
  it("lets go of the shared loops' systems and the mark when released", () => {
    for (const releasing of ['base', 'scenario'] as const) {
      const base = compileStructure(OPEN_WORKED_EXAMPLE);
      const derived = applyScenario(base, { scale: 2 });
      let built = 0;
      const build = () => ({ built: ++built });
      const system = derived.keptLoopSystem('loop', build);
      expect(base.keptLoopSystem('loop', build)).toBe(system);
      (releasing === 'base' ? base : derived).releaseLoopSystems();
      expect(base.repeatsLoopSolves).toBe(false);
      expect(derived.repeatsLoopSolves).toBe(false);
      expect(base.keptLoopSystem('loop', build)).not.toBe(system);
      expect(built).toBe(2);
      applyScenario(base, { scale: 3 });
      expect(base.repeatsLoopSolves).toBe(true);
    }
  });

  // The same rule seen from outside: a ring of 150 services (swept) with an SLO, solved once so
  // that its systems are kept, then reweighted or slowed down by a scenario: each answers byte
  // for byte what the edited structure answers (the reweighted one with systems of its own).
  it("answers byte for byte after the base kept its loops' systems", () => {
    const structure = sweptRing(1);
    const ring = sweptRingMember;
    const base = compileStructure(structure);
    const before = written((w) => writeAnalyze(w, base));
    for (const scenario of [
      { dependencies: [{ from: ring(4), to: ring(57), weight: 3 }] },
      { nodes: { [ring(3)]: { serviceTime: 0.02 } } },
    ]) {
      const edited = compileStructure(editedStructure(structure, scenario));
      expect(written((w) => writeAnalyze(w, applyScenario(base, scenario)))).toBe(
        written((w) => writeAnalyze(w, edited)),
      );
    }
    expect(written((w) => writeAnalyze(w, base))).toBe(before);
  });

  // The kept steady state carries its unbounded nodes and loops: F calls itself twice a request,
  // so F and what it floods (D) have no steady state in the scenario and in the base alike.
  it('shares the unbounded nodes and loops along with the throughputs', () => {
    const structure: Structure = {
      nodes: [
        { id: 'F', arrival: 1, fanout: true },
        { id: 'B', capacity: 5 },
        { id: 'D', exit: 1 },
      ],
      dependencies: [
        { from: 'F', to: 'F', weight: 2 },
        { from: 'F', to: 'D' },
        { from: 'B', to: 'D' },
      ],
    };
    const base = compileStructure(structure);
    const halved = applyScenario(base, { nodes: { B: { capacity: 2 } } });
    written((w) => writeAnalyze(w, halved));
    expect(base.keptSteadyState()!.unbounded.length).toBeGreaterThan(0);
    expect(base.keptSteadyState()!.unboundedLoops.length).toBeGreaterThan(0);
    expect(written((w) => writeAnalyze(w, base))).toBe(written((w) => writeAnalyze(w, structure)));
  });

  // The base is left as it was: it can be run again, or compared with.
  it('leaves the base structure unchanged', () => {
    const base = compileStructure(OPEN_WORKED_EXAMPLE);
    const before = written((w) => writeAnalyze(w, base));
    applyScenario(base, { scale: 3, nodes: { D: { down: true }, B: { capacity: null } } });
    applyScenario(base, { dependencies: [{ from: 'F', to: 'B', cut: true }] });
    expect(written((w) => writeAnalyze(w, base))).toBe(before);
  });
});

describe('scenario errors name the field', () => {
  const refusal = (scenario: unknown, structure: Structure = WORKED_EXAMPLE): string => {
    try {
      applied(structure, scenario);
    } catch (error) {
      expect(error).toBeInstanceOf(PayloadError);
      return (error as Error).message;
    }
    throw new Error('the scenario was accepted');
  };

  it.each<[string, unknown, string]>([
    ['not an object', [1], 'scenario: must be an object { scale?, nodes?, dependencies? }, got an array'],
    ['empty', {}, 'scenario: changes nothing; give "scale", "nodes" or "dependencies"'],
    [
      'empty lists',
      { nodes: {}, dependencies: [] },
      'scenario: changes nothing; give "scale", "nodes" or "dependencies"',
    ],
    [
      'an unknown field',
      { scale: 2, nodse: {} },
      'scenario.nodse: unknown field; a scenario takes "scale", "nodes", "dependencies"',
    ],
    ['a negative scale', { scale: -1 }, 'scenario.scale: must be a finite number >= 0, got -1'],
    ['a string scale', { scale: '2' }, 'scenario.scale: must be a finite number >= 0, got the string "2"'],
    ['nodes as an array', { nodes: [] }, 'scenario.nodes: must be an object keyed by node id, got an array'],
    ['an unknown node', { nodes: { X: { load: 1 } } }, 'scenario.nodes.X: unknown node "X"'],
    ['an odd unknown id', { nodes: { 'a.b': { load: 1 } } }, 'scenario.nodes["a.b"]: unknown node "a.b"'],
    [
      'a long unknown id (its path keeps its two ends, its quote 40 characters)',
      { nodes: { ['Z'.repeat(100_000)]: { load: 1 } } },
      `scenario.nodes["${'Z'.repeat(128)}…${'Z'.repeat(127)}"]: unknown node "${'Z'.repeat(40)}…"`,
    ],
    [
      'a long unknown field',
      { nodes: { B: { ['f'.repeat(100_000)]: 1 } } },
      `scenario.nodes.B["${'f'.repeat(128)}…${'f'.repeat(127)}"]: unknown field; a node's change takes "load", "arrival", "capacity", "down", "serviceTime", "servers"`,
    ],
    [
      'a node entry that changes nothing',
      { nodes: { B: {} } },
      'scenario.nodes.B: changes nothing; give "load", "arrival", "capacity", "down", "serviceTime" or "servers"',
    ],
    [
      'a bad capacity',
      { nodes: { B: { capacity: 'x' } } },
      'scenario.nodes.B.capacity: must be a finite number > 0 or null, got the string "x"',
    ],
    [
      'a zero capacity',
      { nodes: { B: { capacity: 0 } } },
      'scenario.nodes.B.capacity: must be a finite number > 0 or null, got 0',
    ],
    [
      'a negative load',
      { nodes: { A: { load: -5 } } },
      'scenario.nodes.A.load: must be a finite number >= 0, got -5',
    ],
    [
      'a null arrival',
      { nodes: { A: { arrival: null } } },
      'scenario.nodes.A.arrival: must be a finite number >= 0, got null',
    ],
    [
      'down: false',
      { nodes: { A: { down: false } } },
      'scenario.nodes.A.down: must be true (leave it out for a node that is up), got false',
    ],
    [
      'an unknown node field',
      { nodes: { A: { cap: 1 } } },
      `scenario.nodes.A.cap: unknown field; a node's change takes "load", "arrival", "capacity", "down", "serviceTime", "servers"`,
    ],
    [
      'dependencies as an object',
      { dependencies: {} },
      'scenario.dependencies: must be an array of { from, to, weight?, cut? }, got an object',
    ],
    [
      'a dependency without from',
      { dependencies: [{ to: 'B', cut: true }] },
      'scenario.dependencies[0].from: must be a non-empty string, got nothing',
    ],
    [
      'a dependency to an unknown node',
      { dependencies: [{ from: 'A', to: 'Z', cut: true }] },
      'scenario.dependencies[0].to: unknown node "Z"',
    ],
    [
      'a dependency that does not exist',
      { dependencies: [{ from: 'C', to: 'A', cut: true }] },
      'scenario.dependencies[0]: no dependency from "C" to "A" in the structure',
    ],
    [
      'a dependency that changes nothing',
      { dependencies: [{ from: 'A', to: 'B' }] },
      'scenario.dependencies[0]: changes nothing; give "weight" or "cut"',
    ],
    [
      'a cut with a weight',
      { dependencies: [{ from: 'A', to: 'B', cut: true, weight: 2 }] },
      'scenario.dependencies[0]: a cut dependency carries nothing, so it takes no weight; drop "weight" or "cut"',
    ],
    [
      'a zero weight',
      { dependencies: [{ from: 'A', to: 'B', weight: 0 }] },
      'scenario.dependencies[0].weight: must be a finite number > 0, got 0',
    ],
    [
      'cut: false',
      { dependencies: [{ from: 'A', to: 'B', cut: false }] },
      'scenario.dependencies[0].cut: must be true (leave it out to keep the dependency), got false',
    ],
    [
      'a pair named twice',
      {
        dependencies: [
          { from: 'A', to: 'B', cut: true },
          { from: 'A', to: 'B', weight: 2 },
        ],
      },
      'scenario.dependencies[1]: names the pair "A" → "B" again (first named by scenario.dependencies[0]); give each pair once',
    ],
    [
      'a scale past the total',
      { scale: 1e300 },
      'scenario.scale: makes the loads and arrivals add up to more than 1e+300, the largest total the engine accepts; scale down',
    ],
    [
      "a node's change that is not an object",
      { nodes: { A: 5 } },
      'scenario.nodes.A: must be an object { load?, arrival?, capacity?, down?, serviceTime?, servers? }, got 5',
    ],
    [
      "a dependency's change that is not an object",
      { dependencies: ['A'] },
      'scenario.dependencies[0]: must be an object { from, to, weight?, cut? }, got the string "A"',
    ],
    [
      'a service time of 0',
      { nodes: { B: { serviceTime: 0 } } },
      'scenario.nodes.B.serviceTime: must be a finite number > 0, got 0',
    ],
    [
      'a fractional number of servers',
      { nodes: { B: { serviceTime: 0.1, servers: 1.5 } } },
      'scenario.nodes.B.servers: must be a whole number from 1 to 10000, got 1.5',
    ],
    [
      'servers past the limit',
      { nodes: { B: { serviceTime: 0.1, servers: 10_001 } } },
      'scenario.nodes.B.servers: must be a whole number from 1 to 10000, got 10001',
    ],
  ])('refuses %s', (_, scenario, message) => {
    expect(refusal(scenario)).toBe(message);
  });

  // JSON cannot hold Infinity or NaN, but a caller of the library can pass them.
  it('refuses numbers that are not finite', () => {
    expect(refusal({ scale: Number.POSITIVE_INFINITY })).toMatch(
      /^scenario\.scale: must be a finite number >= 0/,
    );
    expect(refusal({ nodes: { A: { load: Number.NaN } } })).toMatch(/^scenario\.nodes\.A\.load: must be/);
  });

  // The path is where the scenario sits in the request.
  it('names the path it is given', () => {
    expect(() =>
      applyScenario(compileStructure(WORKED_EXAMPLE), { nodes: { X: { down: true } } }, 'payload.scenario'),
    ).toThrow('payload.scenario.nodes.X: unknown node "X"');
  });
});

describe('blameScenario', () => {
  // A problem the run of the scenario's structure found, said of the change that caused it.
  const base = compileStructure({
    nodes: [
      { id: 'api', arrival: 1, serviceTime: 0.1, servers: 2, fanout: true },
      { id: 'db', serviceTime: 0.01, exit: 1 },
      { id: 'odd id', exit: 1 },
    ],
    dependencies: [
      { from: 'api', to: 'db' },
      { from: 'api', to: 'odd id' },
    ],
  });
  const said = (scenario: unknown, error: PayloadError, path = 'scenario') => {
    const blamed = blameScenario(base, scenario, path, error);
    return [blamed.path, blamed.message];
  };
  const p99 = (v: number, field = 'serviceTime') =>
    new PayloadError(`nodes[${v}].${field}`, 'makes the p99 too large');

  it("names the node's field the scenario sets, with the problem alone", () => {
    expect(said({ nodes: { api: { serviceTime: 1e300 } } }, p99(0))).toEqual([
      'scenario.nodes.api.serviceTime',
      'scenario.nodes.api.serviceTime: makes the p99 too large',
    ]);
    // Where the request puts it, and an id that needs quoting.
    expect(said({ nodes: { 'odd id': { load: 2 } } }, p99(2, 'load'), 'payload.scenario')).toEqual([
      'payload.scenario.nodes["odd id"].load',
      'payload.scenario.nodes["odd id"].load: makes the p99 too large',
    ]);
  });

  it("names another field of the node's queue the scenario sets, keeping the node's own path", () => {
    // db has a service time alone: a capacity beside it is the queue's first field.
    expect(said({ nodes: { db: { capacity: 5 } } }, p99(1))).toEqual([
      'scenario.nodes.db.capacity',
      'scenario.nodes.db.capacity: with the scenario applied, nodes[1].serviceTime: makes the p99 too large',
    ]);
    expect(said({ nodes: { api: { servers: 1 } } }, p99(0))).toEqual([
      'scenario.nodes.api.servers',
      'scenario.nodes.api.servers: with the scenario applied, nodes[0].serviceTime: makes the p99 too large',
    ]);
  });

  it("names the node's change when it sets nothing of the queue, or the field is not the queue's", () => {
    expect(said({ nodes: { api: { servers: 1 } } }, p99(0, 'load'))).toEqual([
      'scenario.nodes.api',
      'scenario.nodes.api: with the scenario applied, nodes[0].load: makes the p99 too large',
    ]);
    expect(said({ nodes: { api: { arrival: 1e300 } } }, p99(0))).toEqual([
      'scenario.nodes.api',
      'scenario.nodes.api: with the scenario applied, nodes[0].serviceTime: makes the p99 too large',
    ]);
    // A problem of the node as a whole (its entry latency) names its change too.
    const latency = new PayloadError('nodes[0]', 'its latency is too large');
    expect(said({ nodes: { api: { arrival: 5 } } }, latency)[0]).toBe('scenario.nodes.api');
  });

  it('names the scale, else the scenario, when the named node is not changed', () => {
    expect(said({ scale: 1e10, nodes: { db: { load: 1 } } }, p99(0))).toEqual([
      'scenario.scale',
      'scenario.scale: with the scenario applied, nodes[0].serviceTime: makes the p99 too large',
    ]);
    expect(
      said(
        { nodes: { db: { serviceTime: 1e300 } } },
        new PayloadError('nodes[0]', 'its latency is too large'),
      ),
    ).toEqual(['scenario', 'scenario: with the scenario applied, nodes[0]: its latency is too large']);
    // A problem of the structure as a whole, with or without node changes beside the scale, and
    // one with no path at all.
    expect(said({ scale: 2 }, new PayloadError('nodes', 'the total grows too large'))[0]).toBe(
      'scenario.scale',
    );
    expect(
      said({ scale: 2, nodes: { db: { load: 1 } } }, new PayloadError('nodes', 'the total grows')),
    ).toEqual(['scenario.scale', 'scenario.scale: with the scenario applied, nodes: the total grows']);
    expect(said({ nodes: { db: { load: 1 } } }, new PayloadError('', 'no room'))).toEqual([
      'scenario',
      'scenario: with the scenario applied, no room',
    ]);
  });

  // Node 11 of twelve: its index has two digits.
  it('reads a node index of any length', () => {
    const twelve = compileStructure({
      nodes: Array.from({ length: 12 }, (_, i) => ({ id: `n${i}`, load: 1 })),
      dependencies: [],
    });
    const blamed = blameScenario(twelve, { nodes: { n11: { load: 5 } } }, 'scenario', p99(11, 'load'));
    expect(blamed.path).toBe('scenario.nodes.n11.load');
  });
});
