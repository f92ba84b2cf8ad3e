import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import {
  AnalyzeResponseSchema,
  DependencySchema,
  DirectRequestSchema,
  ErrorBodySchema,
  NestedRequestSchema,
  NodeSchema,
  ScenarioSchema,
  TickResponseSchema,
  TicksResponseSchema,
} from '../../lib/api/schemas';
import { DEFAULT_LIMITS } from '../../lib/config/limits';
import { analyze, applyScenario, compileStructure, tick, ticks } from '../../lib/engine';
import { OPEN_WORKED_EXAMPLE } from '../../lib/worked-example';

/** A value a JSON body could hold in a field meant for a number. */
const numberish = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1, -1, 4, Number.MIN_VALUE, Number.MAX_VALUE),
  fc.constantFrom(null, '5', true, [], {}),
);

/** A value a JSON body could hold in a field meant for a node id. */
const idish = fc.oneof(
  fc.string(),
  fc.constantFrom('', 'A', 'b'),
  fc.constantFrom(null, 7, false, ['A'], {}),
);

/** An object where each field may be absent, plus some extra fields. */
function record(fields: Record<string, fc.Arbitrary<unknown>>) {
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.dictionary(fc.constantFrom('label', 'team', 'meta'), fc.jsonValue(), { maxKeys: 2 }),
    )
    .map(([own, extra]) => ({ ...extra, ...own }));
}

function engineAccepts(structure: unknown): boolean {
  try {
    compileStructure(structure);
    return true;
  } catch {
    return false;
  }
}

describe('the element schemas in the OpenAPI document agree with the engine', () => {
  // Requests are validated by the engine alone (one fast pass); the zod schemas only describe
  // the elements in the document. These properties keep that description honest.
  it('on which single nodes are valid', () => {
    const node = fc.oneof(
      record({ id: idish, load: numberish, capacity: numberish }),
      fc.constantFrom(null, 'A', 3, [{ id: 'A' }]),
    );
    fc.assert(
      fc.property(node, (candidate) => {
        const byEngine = engineAccepts({ nodes: [candidate], dependencies: [] });
        expect(NodeSchema.safeParse(candidate).success).toBe(byEngine);
      }),
      { numRuns: 2000 },
    );
  });

  it('on which open nodes (arrival, exit, fanout) are valid', () => {
    const booleanish = fc.oneof(fc.boolean(), fc.constantFrom(null, 'true', 0, 1));
    const node = record({ id: fc.constant('A'), arrival: numberish, exit: numberish, fanout: booleanish });
    fc.assert(
      fc.property(node, (candidate) => {
        const byEngine = engineAccepts({ nodes: [candidate], dependencies: [] });
        expect(NodeSchema.safeParse(candidate).success).toBe(byEngine);
      }),
      { numRuns: 2000 },
    );
  });

  it('on which single dependencies are valid between two existing nodes', () => {
    // Whether `from`/`to` name an existing node is a property of the structure, not of one
    // element, so the ends are drawn from the two node ids or from values no node can have.
    const end = fc.oneof(fc.constantFrom('a', 'b'), fc.constantFrom('', null, 1, ['a'], {}));
    const dependency = fc.oneof(
      record({ from: end, to: end, weight: numberish }),
      fc.constantFrom(null, 'a->b', 3, [{ from: 'a', to: 'b' }]),
    );
    fc.assert(
      fc.property(dependency, (candidate) => {
        const byEngine = engineAccepts({ nodes: [{ id: 'a' }, { id: 'b' }], dependencies: [candidate] });
        expect(DependencySchema.safeParse(candidate).success).toBe(byEngine);
      }),
      { numRuns: 2000 },
    );
  });

  it('on the edges: zero load, zero capacity, zero weight, infinity', () => {
    // Hand-picked cases the property might hit rarely.
    const cases: [unknown, boolean][] = [
      [{ id: 'A', load: 0 }, true],
      [{ id: 'A', capacity: 0 }, false],
      [{ id: 'A', load: Number.POSITIVE_INFINITY }, false],
      [{ id: 'A', load: 1, extra: { nested: true } }, true],
    ];
    for (const [candidate, valid] of cases) {
      expect(NodeSchema.safeParse(candidate).success).toBe(valid);
      expect(engineAccepts({ nodes: [candidate], dependencies: [] })).toBe(valid);
    }
    expect(DependencySchema.safeParse({ from: 'a', to: 'b', weight: 0 }).success).toBe(false);
    expect(
      engineAccepts({ nodes: [{ id: 'a' }, { id: 'b' }], dependencies: [{ from: 'a', to: 'b', weight: 0 }] }),
    ).toBe(false);
  });
});

/** The worked example with an extra field on a node, which analyze carries through. */
const WORKED = {
  nodes: [
    { id: 'A', load: 10, team: 'intake' },
    { id: 'B', load: 0, capacity: 4 },
    { id: 'C', load: 0 },
  ],
  dependencies: [
    { from: 'A', to: 'B' },
    { from: 'A', to: 'C' },
    { from: 'B', to: 'C', weight: 2 },
    { from: 'C', to: 'C' },
  ],
};

/** Parses and checks nothing was dropped: zod objects strip unknown keys rather than fail. */
function conforms(schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  expect(parsed.data).toEqual(value);
}

describe('the response schemas describe what the engine really returns', () => {
  // A cycle (C->C), a weight, an extra field and several ticks, so most shapes appear.
  it('for analyze, tick and ticks', () => {
    conforms(AnalyzeResponseSchema, { mode: 'analyze', engine: analyze(WORKED) });
    conforms(TickResponseSchema, { mode: 'tick', snapshot: tick(WORKED) });
    conforms(TicksResponseSchema, { mode: 'ticks', ticks: 4, snapshots: ticks(WORKED, 4) });
  });

  // A front end fanning out, an exit, an unbounded closed cycle and a capacity: every open field.
  it('for open structures too', () => {
    const open = {
      nodes: [
        { id: 'F', arrival: 10, fanout: true },
        { id: 'B', capacity: 15, exit: 1 },
        { id: 'x', arrival: 1 },
        { id: 'y' },
      ],
      dependencies: [
        { from: 'F', to: 'B', weight: 2 },
        { from: 'x', to: 'y' },
        { from: 'y', to: 'x' },
      ],
    };
    conforms(AnalyzeResponseSchema, { mode: 'analyze', engine: analyze(open) });
    conforms(TicksResponseSchema, { mode: 'ticks', ticks: 3, snapshots: ticks(open, 3) });
    const withHeadroom = { nodes: [{ id: 'F', arrival: 10, capacity: 20, exit: 1 }], dependencies: [] };
    conforms(AnalyzeResponseSchema, { mode: 'analyze', engine: analyze(withHeadroom) });
    expect(analyze(withHeadroom).headroom).toEqual({ scale: 2, node: 'F' });
  });

  it('and the analyze output of the example holds a cycle event', () => {
    expect(analyze(WORKED).events.map((event) => event.type)).toContain('cycle');
  });
});

describe('request body schemas', () => {
  it('tell the direct and nested formats apart', () => {
    // Exactly one format matches each body, as the document's `oneOf` requires.
    const direct = { mode: 'analyze', ...WORKED };
    const nested = { mode: 'analyze', payload: WORKED };
    const both = { mode: 'analyze', ...WORKED, payload: WORKED };
    expect([
      DirectRequestSchema.safeParse(direct).success,
      NestedRequestSchema.safeParse(direct).success,
    ]).toEqual([true, false]);
    expect([
      DirectRequestSchema.safeParse(nested).success,
      NestedRequestSchema.safeParse(nested).success,
    ]).toEqual([false, true]);
    expect([
      DirectRequestSchema.safeParse(both).success,
      NestedRequestSchema.safeParse(both).success,
    ]).toEqual([true, false]);
  });

  it('accept mode inside the container', () => {
    expect(NestedRequestSchema.safeParse({ graph: { mode: 'tick', ...WORKED } }).success).toBe(true);
  });
});

describe('error body schema', () => {
  it('accepts an error with details and refuses an unknown code', () => {
    conforms(ErrorBodySchema, {
      error: { code: 'PAYLOAD_ERROR', message: 'x', details: [{ path: 'nodes[0].id', message: 'y' }] },
    });
    expect(ErrorBodySchema.safeParse({ error: { code: 'OOPS', message: 'x' } }).success).toBe(false);
  });
});

describe('the scenario schema and the compare answers', () => {
  const base = compileStructure(WORKED);
  const engineAcceptsScenario = (scenario: unknown) => {
    try {
      applyScenario(base, scenario);
      return true;
    } catch {
      return false;
    }
  };
  const nodeChange = fc.record(
    {
      load: numberish,
      arrival: numberish,
      capacity: numberish,
      down: fc.constantFrom(true, false, 1),
      cap: numberish,
    },
    { requiredKeys: [] },
  );
  const dependencyChange = fc.record(
    {
      from: fc.constantFrom('A', 'B', 'C', 'Z'),
      to: fc.constantFrom('A', 'B', 'C'),
      weight: numberish,
      cut: fc.constantFrom(true, false),
    },
    { requiredKeys: [] },
  );
  const scenarioish = fc.record(
    {
      scale: numberish,
      nodes: fc.oneof(
        fc.dictionary(fc.constantFrom('A', 'B', 'C', 'Z'), nodeChange, { maxKeys: 3 }),
        fc.constant([]),
      ),
      dependencies: fc.array(dependencyChange, { maxLength: 2 }),
      extra: fc.constant(1),
    },
    { requiredKeys: [] },
  );

  // The document never refuses what the service takes (what only the structure can tell, such as
  // an unknown id, the document cannot say).
  it('accepts every scenario the engine accepts', () => {
    fc.assert(
      fc.property(scenarioish, (scenario) => {
        if (engineAcceptsScenario(scenario)) expect(ScenarioSchema.safeParse(scenario).success).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses what the engine refuses for its shape', () => {
    for (const scenario of [
      { nodes: { B: { capacity: 'x' } } },
      { scale: -1 },
      { nodes: { B: { down: false } } },
      { dependencies: [{ from: 'A', to: 'B', cut: false }] },
      { nodes: { B: { cap: 1 } } },
      { sclae: 2 },
    ]) {
      expect(engineAcceptsScenario(scenario)).toBe(false);
      expect(ScenarioSchema.safeParse(scenario).success, JSON.stringify(scenario)).toBe(false);
    }
  });

  it('describe the answers with compare, in every mode', () => {
    const compared = (body: object) =>
      JSON.parse(renderEngineResponse(parseEngineRequest({ ...body, compare: true }, DEFAULT_LIMITS)));
    const scenario = { nodes: { B: { down: true } }, dependencies: [{ from: 'A', to: 'C', cut: true }] };
    conforms(AnalyzeResponseSchema, compared({ mode: 'analyze', ...WORKED, scenario }));
    conforms(TickResponseSchema, compared({ mode: 'tick', ...WORKED, scenario }));
    conforms(TicksResponseSchema, compared({ mode: 'ticks', ticks: 3, ...WORKED, scenario }));
    const open = compared({ mode: 'analyze', ...OPEN_WORKED_EXAMPLE, scenario: { scale: 2 } });
    conforms(AnalyzeResponseSchema, open);
    expect(open.changes.headroom).toEqual({
      before: { scale: 0.75, node: 'B' },
      after: { scale: 0.375, node: 'B' },
    });
  });
});
