/**
 * Random structures (closed and open, awkward ids, extra fields) and random scenarios for them,
 * and the edit a caller would make by hand: the reference a scenario's answer is held to.
 */
import fc from 'fast-check';
import type { NodeInput, Scenario, Structure } from '../../lib/engine';
import type { DependencyChange, NodeChange } from '../../lib/engine/scenario';
import { isExtraKey } from './input-fields';

const idArbitrary = fc.oneof(
  fc.constantFrom('A', 'B', 'C', 'db', '__proto__', 'constructor', '0', 'a"b', 'a.b', '😀', '\ud800'),
  fc.string({ minLength: 1, maxLength: 4 }),
);

const extrasArbitrary = fc.dictionary(
  fc
    .oneof(fc.string({ maxLength: 5 }), fc.constantFrom('0', '__proto__', 'flow', 'role', 'down'))
    .filter(isExtraKey),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 2 },
);

const amount = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 100 }),
  fc.double({ min: 0, max: 1e4, noNaN: true }),
  fc.nat(10 ** 6).map((n) => n / 1000),
);
const positive = fc.oneof(fc.integer({ min: 1, max: 50 }), fc.double({ min: 0.01, max: 100, noNaN: true }));

/** Random structures, some open (arrivals, exits, fan-out), through JSON text as the API reads them. */
export const structureArbitrary: fc.Arbitrary<Structure> = fc
  .uniqueArray(idArbitrary, { minLength: 1, maxLength: 10 })
  .chain((ids) =>
    fc.record({
      open: fc.boolean(),
      nodes: fc.tuple(
        ...ids.map((id) =>
          fc.record({
            id: fc.constant(id),
            load: fc.option(amount, { nil: undefined }),
            capacity: fc.option(positive, { nil: undefined }),
            arrival: fc.option(amount, { nil: undefined }),
            exit: fc.option(fc.oneof(fc.constant(0), positive), { nil: undefined }),
            fanout: fc.option(fc.boolean(), { nil: undefined }),
            extras: fc.option(extrasArbitrary, { nil: undefined }),
          }),
        ),
      ),
      dependencies: fc.array(
        fc.record({
          from: fc.constantFrom(...ids),
          to: fc.constantFrom(...ids),
          weight: fc.option(fc.double({ min: 0.01, max: 2, noNaN: true }), { nil: undefined }),
          extras: fc.option(extrasArbitrary, { nil: undefined }),
        }),
        { maxLength: 24 },
      ),
    }),
  )
  .map(({ open, nodes, dependencies }) =>
    JSON.parse(
      JSON.stringify({
        nodes: nodes.map(({ id, load, capacity, arrival, exit, fanout, extras }) => ({
          ...extras,
          id,
          load,
          capacity,
          ...(open
            ? { arrival, exit: fanout === true ? undefined : exit, fanout }
            : { arrival: undefined, exit: undefined, fanout: undefined }),
        })),
        dependencies: dependencies.map(({ from, to, weight, extras }) => ({ ...extras, from, to, weight })),
      }),
    ),
  );

/** A valid scenario for `structure`: `down` only when asked for (no edit of the input expresses it). */
export function scenarioArbitrary(
  structure: Structure,
  options: { down?: boolean } = {},
): fc.Arbitrary<Scenario> {
  const ids = structure.nodes.map((node) => node.id);
  const pairs = [...new Map(structure.dependencies.map((d) => [JSON.stringify([d.from, d.to]), d])).values()];
  const nodeChange: fc.Arbitrary<NodeChange> = fc
    .record({
      load: fc.option(amount, { nil: undefined }),
      arrival: fc.option(amount, { nil: undefined }),
      capacity: fc.option(fc.oneof(fc.constant(null), positive), { nil: undefined }),
      down: options.down ? fc.option(fc.constant(true as const), { nil: undefined }) : fc.constant(undefined),
    })
    .map((change) => JSON.parse(JSON.stringify(change)) as NodeChange)
    .filter((change) => Object.keys(change).length > 0);
  const dependencyChange = (from: string, to: string): fc.Arbitrary<DependencyChange> =>
    fc.oneof(
      fc.constant({ from, to, cut: true as const }),
      fc.double({ min: 0.01, max: 5, noNaN: true }).map((weight) => ({ from, to, weight })),
    );
  return fc
    .record({
      scale: fc.option(fc.oneof(fc.constant(0), fc.constant(2), fc.double({ min: 0, max: 5, noNaN: true })), {
        nil: undefined,
      }),
      nodes: fc
        .subarray(ids)
        .chain((chosen) => fc.tuple(...chosen.map((id) => nodeChange.map((c) => [id, c] as const)))),
      dependencies: fc
        .subarray(pairs)
        .chain((chosen) => fc.tuple(...chosen.map(({ from, to }) => dependencyChange(from, to)))),
    })
    .map(({ scale, nodes, dependencies }) => {
      const scenario: Scenario = {};
      if (scale !== undefined) scenario.scale = scale;
      // fromEntries defines own fields, so an id such as `__proto__` stays a key.
      if (nodes.length > 0) scenario.nodes = Object.fromEntries(nodes);
      if (dependencies.length > 0) scenario.dependencies = dependencies;
      if (Object.keys(scenario).length === 0) scenario.scale = 1;
      return scenario;
    });
}

/** What a caller would send instead of the scenario: the structure edited by hand. */
export function editedStructure(structure: Structure, scenario: Scenario): Structure {
  const changes = scenario.nodes ?? {};
  const nodes = structure.nodes.map((node) => {
    const edited: NodeInput = { ...node };
    const change = Object.hasOwn(changes, node.id) ? changes[node.id] : undefined;
    if (change?.load !== undefined) edited.load = change.load;
    if (change?.arrival !== undefined) edited.arrival = change.arrival;
    if (change?.capacity === null) delete edited.capacity;
    else if (change?.capacity !== undefined) edited.capacity = change.capacity;
    if (change?.serviceTime !== undefined) edited.serviceTime = change.serviceTime;
    if (change?.servers !== undefined) edited.servers = change.servers;
    // Servers the scenario gives or times give the node its capacity, in place of its own.
    if (edited.servers !== undefined && (change?.servers !== undefined || change?.serviceTime !== undefined))
      delete edited.capacity;
    if (scenario.scale !== undefined) {
      if (edited.load !== undefined) edited.load *= scenario.scale;
      if (edited.arrival !== undefined) edited.arrival *= scenario.scale;
    }
    return edited;
  });
  const byPair = new Map(
    (scenario.dependencies ?? []).map((change) => [JSON.stringify([change.from, change.to]), change]),
  );
  const dependencies = structure.dependencies.flatMap((dependency) => {
    const change = byPair.get(JSON.stringify([dependency.from, dependency.to]));
    if (change?.cut === true) return [];
    return change?.weight === undefined ? [dependency] : [{ ...dependency, weight: change.weight }];
  });
  return { nodes, dependencies };
}
