/**
 * `expectedCalls`: the visits one request arriving at an entry makes on every node. Where what the
 * entries reach is acyclic they are solved together in one pass; the values must be the very bits
 * of a separate steady solve per entry (a unit arrival there alone), which is what the SLO search
 * used before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  compileStructure,
  type DependencyInput,
  type NodeInput,
  type Structure,
} from '../../../lib/engine';
import { expectedCalls, expectedCallsAlong, onePassOrder } from '../../../lib/engine/open/expected-calls';

/** Per node id, the throughput of the structure with a single unit arriving at `entry` alone. */
function unitSolve(structure: Structure, entry: string): Map<string, number> {
  const nodes = structure.nodes.map(({ arrival: _none, ...node }) =>
    node.id === entry ? { ...node, arrival: 1 } : node,
  );
  const result = analyze({ nodes, dependencies: structure.dependencies });
  return new Map(result.nodes.map((node) => [node.id, node.throughput ?? 0]));
}

function expectSameAsUnitSolves(structure: Structure): void {
  const compiled = compileStructure(structure);
  const entries = structure.nodes.flatMap((node, i) => ((node.arrival ?? 0) > 0 ? [i] : []));
  const calls = expectedCalls(compiled, entries);
  // One answer per entry, in their order, however many passes of sixteen they take.
  expect(calls).toHaveLength(entries.length);
  entries.forEach((e, i) => {
    const expected = unitSolve(structure, compiled.ids[e]!);
    const { called, calls: values } = calls[i]!;
    const got = new Map(Array.from(called, (v, j) => [compiled.ids[v]!, values[j]!]));
    for (const [id, value] of expected) expect(got.get(id) ?? 0).toBe(value);
  });
}

/** Layered DAGs of fan-out and routing nodes (some with exits and self-calls), 1 to 40 entries in the first layer. */
const dag: fc.Arbitrary<Structure> = fc
  .record({
    layers: fc.integer({ min: 2, max: 6 }),
    width: fc.integer({ min: 1, max: 8 }),
    entries: fc.integer({ min: 1, max: 40 }),
    edges: fc.array(
      fc.record({ from: fc.nat(), to: fc.nat(), weight: fc.double({ min: 0.05, max: 3, noNaN: true }) }),
      { minLength: 1, maxLength: 80 },
    ),
    kinds: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 200, maxLength: 200 }),
  })
  .map(({ layers, width, entries, edges, kinds }) => {
    const id = (layer: number, i: number) => `n${layer}_${i}`;
    const nodes: NodeInput[] = [];
    const firstWidth = Math.max(width, entries);
    for (let layer = 0; layer < layers; layer++) {
      const count = layer === 0 ? firstWidth : width;
      for (let i = 0; i < count; i++) {
        const kind = kinds[nodes.length % kinds.length]!;
        const node: NodeInput = { id: id(layer, i) };
        if (kind !== 3) node.fanout = true;
        else node.exit = 1;
        if (layer === 0 && i < entries) node.arrival = 1 + (i % 3);
        nodes.push(node);
      }
    }
    const dependencies: DependencyInput[] = [];
    for (const { from, to, weight } of edges) {
      const fromLayer = from % (layers - 1);
      const toLayer = fromLayer + 1 + (to % (layers - 1 - fromLayer));
      const fromCount = fromLayer === 0 ? firstWidth : width;
      dependencies.push({ from: id(fromLayer, from % fromCount), to: id(toLayer, to % width), weight });
    }
    // A routing node's self-call: it keeps part of what it gets for another round.
    dependencies.push({ from: id(layers - 1, 0), to: id(layers - 1, 0), weight: 0.5 });
    return { nodes, dependencies };
  });

describe('expectedCalls', () => {
  // web fans out to api twice and to auth once; api routes half to db and half out; 17 entries,
  // more than one pass of 16 columns takes.
  it('solves every entry of an acyclic structure in one pass, as separate solves would', () => {
    const entries = Array.from({ length: 17 }, (_, i) => ({ id: `web${i}`, arrival: 1, fanout: true }));
    const structure: Structure = {
      nodes: [...entries, { id: 'api', exit: 1 }, { id: 'auth', fanout: true }, { id: 'db', exit: 1 }],
      dependencies: [
        ...entries.flatMap((e, i) => [
          { from: e.id, to: 'api', weight: 2 + i },
          { from: e.id, to: 'auth' },
        ]),
        { from: 'api', to: 'db' },
        { from: 'auth', to: 'db', weight: 3 },
      ],
    };
    expectSameAsUnitSolves(structure);
    const [first] = expectedCalls(compileStructure(structure), [0]);
    // web0: 1 visit; api 2; auth 1; db: api passes on half of its 2, auth 3 → 4.
    const ids = compileStructure(structure).ids;
    const byId = Object.fromEntries(Array.from(first!.called, (v, i) => [ids[v], first!.calls[i]]));
    expect(byId).toEqual({ web0: 1, api: 2, auth: 1, db: 4 });
  });

  it('agrees bit for bit with separate solves on random layered structures', () => {
    fc.assert(fc.property(dag, expectSameAsUnitSolves), { seed: 33_001, numRuns: 60 });
  });

  // A loop on the way (api ⇄ cache) leaves every entry to its own solve: the same answers.
  it('falls back to a solve per entry where the entries reach a loop', () => {
    expectSameAsUnitSolves({
      nodes: [
        { id: 'web', arrival: 2, fanout: true },
        { id: 'batch', arrival: 1, fanout: true },
        { id: 'api', fanout: true },
        { id: 'cache', exit: 1 },
      ],
      dependencies: [
        { from: 'web', to: 'api' },
        { from: 'batch', to: 'api', weight: 3 },
        { from: 'api', to: 'cache', weight: 0.5 },
        { from: 'cache', to: 'api' },
      ],
    });
  });

  // The SLO search asks for the one-pass order once and hands it on: web → api → db is
  // acyclic, so there is an order (sources first) and the calls are expectedCalls' own; with
  // db → api a loop is on the way, there is none, and each entry takes its own solve.
  it('hands on the one-pass order found first, or a solve per entry without one', () => {
    const webApiDb = (...more: { from: string; to: string }[]) =>
      compileStructure({
        nodes: [
          { id: 'web', arrival: 1, fanout: true },
          { id: 'api', fanout: true },
          { id: 'db', exit: 1 },
        ],
        dependencies: [{ from: 'web', to: 'api', weight: 2 }, { from: 'api', to: 'db', weight: 3 }, ...more],
      });
    const acyclic = webApiDb();
    const order = onePassOrder(acyclic, [0]);
    expect(Array.from(order!.order, (v) => acyclic.ids[v])).toEqual(['web', 'api', 'db']);
    expect(expectedCallsAlong(acyclic, [0], order)).toEqual(expectedCalls(acyclic, [0]));
    const looped = webApiDb({ from: 'db', to: 'api' });
    expect(onePassOrder(looped, [0])).toBeUndefined();
    expect(expectedCallsAlong(looped, [0], undefined)).toEqual(expectedCalls(looped, [0]));
  });

  // The solve per entry runs on a copy of the structure with one unit arriving: that steady state
  // is the copy's own and must never be taken for the structure's (a stored system's compiled
  // structure answers many requests).
  it("leaves the structure's own steady state alone", () => {
    const compiled = compileStructure({
      nodes: [
        { id: 'web', arrival: 2, fanout: true },
        { id: 'api', fanout: true },
        { id: 'cache', exit: 1 },
      ],
      dependencies: [
        { from: 'web', to: 'api' },
        { from: 'api', to: 'cache', weight: 0.5 },
        { from: 'cache', to: 'api' },
      ],
    });
    const before = analyze(compiled);
    expectedCalls(compiled, [0]);
    expect(compiled.keptSteadyState()).toBeUndefined();
    expect(analyze(compiled)).toEqual(before);
  });

  /** Per entry id, its called nodes by id with their calls, exactly as listed. */
  function listed(structure: Structure, entryIds: string[]) {
    const compiled = compileStructure(structure);
    const entries = entryIds.map((id) => compiled.ids.indexOf(id));
    const calls = expectedCalls(compiled, entries);
    expect(calls).toHaveLength(entries.length);
    return Object.fromEntries(
      calls.map(({ called, calls: values }, i) => [
        entryIds[i],
        Array.from(called, (v, j) => `${compiled.ids[v]} ${values[j]}`),
      ]),
    );
  }

  // Two front ends that share nothing: each lists only the nodes its requests call, never the
  // other's (a node with 0 calls is not called). Ten of them: more than one pass of eight.
  it('lists only the nodes each entry calls, one answer per entry', () => {
    const ids = Array.from({ length: 10 }, (_, i) => `e${i}`);
    const structure: Structure = {
      nodes: ids.flatMap((id) => [
        { id, arrival: 1, fanout: true },
        { id: `${id}-db`, exit: 1 },
      ]),
      dependencies: ids.map((id, i) => ({ from: id, to: `${id}-db`, weight: i + 1 })),
    };
    const answer = listed(structure, ids);
    expect(answer.e0).toEqual(['e0 1', 'e0-db 1']);
    expect(answer.e9).toEqual(['e9 1', 'e9-db 10']);
    // The same through the solve per entry: a loop on e0's way (its database retries through it).
    const looped: Structure = {
      ...structure,
      dependencies: [...structure.dependencies, { from: 'e0-db', to: 'e0', weight: 1 }],
    };
    looped.nodes = looped.nodes.map((node) => (node.id === 'e0-db' ? { id: 'e0-db', exit: 1 } : node));
    const perEntry = listed(looped, ['e0', 'e1']);
    // e0-db sends half of what it serves back (weight 1 beside exit 1): e0 is visited twice.
    expect(perEntry).toEqual({ e0: ['e0 2', 'e0-db 2'], e1: ['e1 1', 'e1-db 2'] });
  });

  // A service that retries itself 0.999999999999 times per request: within the steady state's
  // gain margin of 1, so it is unbounded there (1e12 visits is a number the engine does not give).
  // The one pass must leave it to that solve, not divide by 1 − 0.999999999999.
  it('gives a self-retry within the gain margin of 1 no finite number of calls', () => {
    const answer = listed(
      {
        nodes: [
          { id: 'web', arrival: 1, fanout: true },
          { id: 'retry', fanout: true },
        ],
        dependencies: [
          { from: 'web', to: 'retry' },
          { from: 'retry', to: 'retry', weight: 0.999999999999 },
        ],
      },
      ['web'],
    );
    expect(answer.web).toEqual(['web 1', 'retry Infinity']);
  });

  // The front end calls a router 100,000 times per request; the router sends a 1e-10 weight to
  // `small` beside 1e300 to `big`. Its share, 1e-310, is below the smallest normal double and has
  // lost digits: 100,000 × 1e-310 reads 9.99999999999997e-306. Worked out from the weights
  // instead (the steady state's exact path), it is 1e5 × 1e-10 / 1e300 = 1e-305.
  it('works out a share that lost its digits from the weights', () => {
    const answer = listed(
      {
        nodes: [
          { id: 'web', arrival: 1, fanout: true },
          { id: 'router' },
          { id: 'big', exit: 1 },
          { id: 'small', exit: 1 },
        ],
        dependencies: [
          { from: 'web', to: 'router', weight: 1e5 },
          { from: 'router', to: 'big', weight: 1e300 },
          { from: 'router', to: 'small', weight: 1e-10 },
        ],
      },
      ['web'],
    );
    expect(answer.web).toEqual(['web 1', 'router 100000', 'big 100000', 'small 1e-305']);
  });
});
