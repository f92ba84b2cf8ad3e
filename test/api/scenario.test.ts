/**
 * `scenario` and `compare` on engine requests: where they are read, how they are refused, and
 * what the answer holds — the scenario's answer byte for byte the edited structure's, the
 * baseline byte for byte the plain answer, and `changes` as the docs define it (checked against
 * a reference built from the two parsed results).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import { ApiError } from '../../lib/api/errors';
import { DEFAULT_LIMITS } from '../../lib/config/limits';
import {
  applyScenario,
  compileStructure,
  type EngineResult,
  type Scenario,
  type Snapshot,
  type Structure,
} from '../../lib/engine';
import { OPEN_WORKED_EXAMPLE, WORKED_EXAMPLE } from '../../lib/worked-example';
import { editedStructure, scenarioArbitrary, structureArbitrary } from '../engine/scenario-arbitraries';
import { FRONT_END_FAN, HALVE_B, HALVE_B_CHANGES } from '../helpers/engine-examples';

const limits = DEFAULT_LIMITS;
const answer = (body: unknown): string => renderEngineResponse(parseEngineRequest(body, limits));

function refusal(body: unknown): ApiError {
  try {
    parseEngineRequest(body, limits);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the request was accepted');
}

describe('where a scenario is read', () => {
  // Direct and nested formats; in a container, next to the structure or at the top level.
  it('reads it at the top level and inside the container, as mode is read', () => {
    const edited = answer({ mode: 'analyze', ...editedStructure(WORKED_EXAMPLE, HALVE_B) });
    expect(answer({ mode: 'analyze', ...WORKED_EXAMPLE, scenario: HALVE_B })).toBe(edited);
    expect(answer({ mode: 'analyze', payload: WORKED_EXAMPLE, scenario: HALVE_B })).toBe(edited);
    expect(answer({ payload: { mode: 'analyze', ...WORKED_EXAMPLE, scenario: HALVE_B } })).toBe(edited);
    // The top level wins over the container's.
    expect(
      answer({ mode: 'analyze', graph: { ...WORKED_EXAMPLE, scenario: { scale: 5 } }, scenario: HALVE_B }),
    ).toBe(edited);
  });

  it('names the path inside a container', () => {
    const error = refusal({
      system: { mode: 'tick', ...WORKED_EXAMPLE, scenario: { nodes: { B: { capacity: 'x' } } } },
    });
    expect(error.status).toBe(500);
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toBe(
      'system.scenario.nodes.B.capacity: must be a finite number > 0 or null, got the string "x"',
    );
    expect(error.details).toEqual([
      {
        path: 'system.scenario.nodes.B.capacity',
        message: 'must be a finite number > 0 or null, got the string "x"',
      },
    ]);
  });
});

describe('refusals', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'compare without a scenario',
      { compare: true },
      'compare: needs a "scenario" to compare with; send { "scenario": { … }, "compare": true }',
    ],
    [
      'compare as a string',
      { compare: 'yes', scenario: HALVE_B },
      'compare: must be true or false, got the string "yes"',
    ],
    [
      'an empty scenario',
      { scenario: {} },
      'scenario: changes nothing; give "scale", "nodes" or "dependencies"',
    ],
    [
      'a scenario of null',
      { scenario: null },
      'scenario: must be an object { scale?, nodes?, dependencies? }, got null',
    ],
    ['an unknown node', { scenario: { nodes: { Q: { down: true } } } }, 'scenario.nodes.Q: unknown node "Q"'],
    [
      'a dependency that does not exist',
      { scenario: { dependencies: [{ from: 'B', to: 'A', cut: true }] } },
      'scenario.dependencies[0]: no dependency from "B" to "A" in the structure',
    ],
  ])('refuses %s with 500 PAYLOAD_ERROR', (_, fields, message) => {
    const error = refusal({ mode: 'analyze', ...WORKED_EXAMPLE, ...fields });
    expect(error.status).toBe(500);
    expect(error.code).toBe('PAYLOAD_ERROR');
    expect(error.message).toBe(message);
  });

  // `compare: false` without a scenario is a plain request.
  it('takes compare: false as a plain request', () => {
    expect(answer({ mode: 'analyze', ...WORKED_EXAMPLE, compare: false })).toBe(
      answer({ mode: 'analyze', ...WORKED_EXAMPLE }),
    );
  });

  // The structure is checked first (its ids are what the scenario names), then the scenario,
  // then the limits.
  it('checks the structure before the scenario, the scenario before the limits', () => {
    const badStructure = refusal({
      mode: 'analyze',
      nodes: [{ id: 'A', load: -1 }],
      dependencies: [],
      scenario: {},
    });
    expect(badStructure.message).toMatch(/^nodes\[0\]\.load/);
    const tight = { ...limits, maxNodes: 2 };
    expect(() => parseEngineRequest({ mode: 'analyze', ...WORKED_EXAMPLE, scenario: {} }, tight)).toThrow(
      /^scenario: changes nothing/,
    );
  });

  // A timeline with its baseline is twice the elements: the limit counts both.
  it('counts the baseline against the response element limit', () => {
    const small = { ...limits, maxResponseElements: 6 * 10 };
    // 3 nodes + 3 dependencies = 6 elements a snapshot: 10 ticks fit alone, not with a baseline.
    expect(() =>
      parseEngineRequest({ mode: 'ticks', ticks: 10, ...WORKED_EXAMPLE, scenario: HALVE_B }, small),
    ).not.toThrow();
    const error = (() => {
      try {
        parseEngineRequest(
          { mode: 'ticks', ticks: 10, ...WORKED_EXAMPLE, scenario: HALVE_B, compare: true },
          small,
        );
      } catch (caught) {
        return caught as ApiError;
      }
      throw new Error('accepted');
    })();
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toBe(
      '10 ticks of this structure and its baseline would return 120 snapshot elements, the limit is 60: ask for at most 5 ticks',
    );
  });
});

type Result = EngineResult | Snapshot;

/** `changes` as docs/engine.md defines it, from the two parsed results. */
function referenceChanges(before: Result, after: Result, tick: number) {
  const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const increases = (field: 'pressure') => {
    const rows = after.nodes.flatMap((node, v) => {
      const was = before.nodes[v]![field];
      const is = node[field];
      const increase = is - was;
      return increase > 0 ? [{ id: node.id, before: was, after: is, increase }] : [];
    });
    rows.sort((a, b) => b.increase - a.increase || byId(a.id, b.id));
    return rows.slice(0, 20);
  };
  const unboundedIn = (result: Result) =>
    new Set(result.events.flatMap((event) => (event.type === 'unbounded' ? event.nodes : [])));
  const unbounded = new Set([...unboundedIn(before), ...unboundedIn(after)]);
  // Both directions, largest |change| first; a node unbounded on either side is left out.
  const changesOf = (field: 'utilization' | 'throughput') => {
    const rows = after.nodes.flatMap((node, v) => {
      if (unbounded.has(node.id)) return [];
      const was = before.nodes[v]![field];
      const is = node[field];
      const change = (is ?? 0) - (was ?? 0);
      return change !== 0 ? [{ id: node.id, before: was ?? null, after: is ?? null, change }] : [];
    });
    rows.sort((a, b) => Math.abs(b.change) - Math.abs(a.change) || byId(a.id, b.id));
    return rows.slice(0, 20);
  };
  const saturatedIn = (result: Result) =>
    new Set(result.events.flatMap((event) => (event.type === 'saturated' ? [event.node] : [])));
  const was = saturatedIn(before);
  const is = saturatedIn(after);
  const floodedBefore = unboundedIn(before);
  const floodedAfter = unboundedIn(after);
  const open = 'headroom' in before || 'headroom' in after;
  return {
    tick,
    nodes: after.nodes.flatMap((node, v) => {
      const was = before.nodes[v]!;
      return was.blocked === node.blocked && was.role === node.role
        ? []
        : [
            {
              id: node.id,
              before: { blocked: was.blocked, role: was.role },
              after: { blocked: node.blocked, role: node.role },
            },
          ];
    }),
    pressure: increases('pressure'),
    ...(open
      ? {
          utilization: changesOf('utilization'),
          throughput: changesOf('throughput'),
          // A move between saturated and unbounded is said by `unbounded` alone.
          saturated: {
            newly: [...is].filter((id) => !was.has(id) && !floodedBefore.has(id)).sort(byId),
            cleared: [...was].filter((id) => !is.has(id) && !floodedAfter.has(id)).sort(byId),
          },
          unbounded: {
            newly: [...floodedAfter].filter((id) => !floodedBefore.has(id)).sort(byId),
            cleared: [...floodedBefore].filter((id) => !floodedAfter.has(id)).sort(byId),
          },
          lost: { before: 'lost' in before ? before.lost : 0, after: 'lost' in after ? after.lost : 0 },
        }
      : {}),
    primaryBlockage: { before: before.primaryBlockage, after: after.primaryBlockage },
    origin: { before: before.origin, after: after.origin },
    trace: { before: before.trace, after: after.trace },
    ...(open ? { headroom: { before: before.headroom ?? null, after: after.headroom ?? null } } : {}),
  };
}

const MODES = [
  { mode: 'analyze', key: 'engine' },
  { mode: 'tick', key: 'snapshot' },
  { mode: 'ticks', ticks: 3, key: 'snapshots' },
] as const;

/** The text of `{ mode, [key]: … }`'s value: the body minus its envelope. */
function resultText(text: string, key: string, ticks?: number): string {
  const head =
    ticks === undefined
      ? `{"mode":"${key === 'engine' ? 'analyze' : 'tick'}","${key}":`
      : `{"mode":"ticks","ticks":${ticks},"${key}":`;
  expect(text.startsWith(head)).toBe(true);
  return text.slice(head.length, -1);
}

describe('compare', () => {
  it('answers the scenario, the baseline and the changes, on random structures and scenarios, in every mode', () => {
    fc.assert(
      fc.property(
        structureArbitrary.chain((structure) =>
          fc.tuple(
            fc.constant(structure),
            scenarioArbitrary(structure, { down: true }),
            fc.constantFrom(...MODES),
          ),
        ),
        ([structure, scenario, modeSpec]) => {
          const { key, ...envelope } = modeSpec;
          const ticks = 'ticks' in envelope ? envelope.ticks : undefined;
          const plain = answer({ ...envelope, ...structure });
          const withScenario = answer({ ...envelope, ...structure, scenario });
          const compared = answer({ ...envelope, ...structure, scenario, compare: true });
          const parsed = JSON.parse(compared);
          // The scenario's answer as it is without compare, then the baseline as a plain request answers.
          const expectedHead = `${withScenario.slice(0, -1)},"baseline":${resultText(plain, key, ticks)},"changes":`;
          expect(compared.startsWith(expectedHead)).toBe(true);
          expect(Object.keys(parsed)).toEqual([...Object.keys(JSON.parse(plain)), 'baseline', 'changes']);
          const last = (value: Result | Result[]): Result =>
            Array.isArray(value) ? value[value.length - 1]! : value;
          const tick = ticks ?? (key === 'snapshot' ? 1 : 0);
          expect(parsed.changes).toEqual(referenceChanges(last(parsed.baseline), last(parsed[key]), tick));
          // Without down, the scenario's answer is the edited structure's; so is analyze's
          // unless a cut strands a node (its traffic lost, where the edited structure's sink keeps it).
          const stranding = applyScenario(compileStructure(structure), scenario).stranded.length > 0;
          if (
            !Object.values(scenario.nodes ?? {}).some((change) => change.down === true) &&
            !(stranding && key === 'engine')
          ) {
            expect(withScenario).toBe(answer({ ...envelope, ...editedStructure(structure, scenario) }));
          }
        },
      ),
      { numRuns: 250 },
    );
  });

  // Past 20 increases the list is cut; equal increases go smallest id first.
  it('lists the 20 largest increases, ties by id', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `n${String(29 - i).padStart(2, '0')}`);
    const structure: Structure = {
      nodes: ids.map((id, i) => ({ id, load: i < 25 ? 1 : 2 })),
      dependencies: [],
    };
    const parsed = JSON.parse(
      answer({ mode: 'analyze', ...structure, scenario: { scale: 3 }, compare: true }),
    );
    // Isolated nodes hold their load as pressure: 1 → 3 (+2) for 25 nodes, 2 → 6 (+4) for 5.
    const rows = parsed.changes.pressure as { id: string; increase: number }[];
    expect(rows).toHaveLength(20);
    expect(rows.slice(0, 5).map((row) => row.id)).toEqual(['n00', 'n01', 'n02', 'n03', 'n04']);
    expect(rows.slice(5).map((row) => row.id)).toEqual(
      Array.from({ length: 15 }, (_, i) => `n${String(i + 5).padStart(2, '0')}`),
    );
    expect(rows[0]).toEqual({ id: 'n00', before: 2, after: 6, increase: 4 });
  });
});

/** The worked examples of docs/engine.md ("What if"), every number. */
describe('the worked examples of the docs', () => {
  const changes = (body: Record<string, unknown>, scenario: Scenario) =>
    JSON.parse(answer({ ...body, scenario, compare: true })).changes;

  // What if B's capacity halves (4 → 2)? Tick 0: B gets 5 and can pass 2, pressure 1 → 3.
  it("halves B's capacity in the closed example, analyze", () => {
    expect(changes({ mode: 'analyze', ...WORKED_EXAMPLE }, HALVE_B)).toEqual(HALVE_B_CHANGES);
  });

  // After tick 1, B holds 5: with capacity 4 it clears (5 − 4 = 1 ≤ 4), with 2 it keeps 3 > 2:
  // blocked, pressure 1, and as a capacity blockage it becomes primary, ahead of C.
  it("halves B's capacity in the closed example, tick", () => {
    expect(changes({ mode: 'tick', ...WORKED_EXAMPLE }, HALVE_B)).toEqual({
      tick: 1,
      nodes: [
        { id: 'B', before: { blocked: false, role: 'relay' }, after: { blocked: true, role: 'relay' } },
      ],
      pressure: [{ id: 'B', before: 0, after: 1, increase: 1 }],
      primaryBlockage: { before: 'C', after: 'B' },
      origin: {
        before: { id: 'B', load: 5, contribution: 5, share: 0.5 },
        after: { id: 'B', load: 5, contribution: 5, share: 1 },
      },
      trace: { before: ['B', 'C'], after: ['B'] },
    });
  });

  // B down: it keeps the 5 it receives, pressure 1 → 5.
  it('takes B down in the closed example', () => {
    expect(
      changes({ mode: 'analyze', ...WORKED_EXAMPLE }, { nodes: { B: { down: true } } }).pressure,
    ).toEqual([{ id: 'B', before: 1, after: 5, increase: 4 }]);
  });

  // What if the front end's arrivals double? B receives 40 a step against 15: pressure 25,
  // utilization 40/15, headroom halves to 0.375; F's contribution doubles.
  it("doubles the front end's arrivals in the open example", () => {
    const expected = {
      tick: 0,
      nodes: [],
      pressure: [{ id: 'B', before: 5, after: 25, increase: 20 }],
      utilization: [{ id: 'B', before: 20 / 15, after: 40 / 15, change: 40 / 15 - 20 / 15 }],
      // Every throughput doubles: D 30 → 60, B 20 → 40, then A and F 10 → 20 (ties by id).
      throughput: [
        { id: 'D', before: 30, after: 60, change: 30 },
        { id: 'B', before: 20, after: 40, change: 20 },
        { id: 'A', before: 10, after: 20, change: 10 },
        { id: 'F', before: 10, after: 20, change: 10 },
      ],
      saturated: { newly: [], cleared: [] },
      unbounded: { newly: [], cleared: [] },
      lost: { before: 0, after: 0 },
      primaryBlockage: { before: 'B', after: 'B' },
      origin: {
        before: { id: 'F', load: 0, arrival: 10, contribution: 20, share: 1 },
        after: { id: 'F', load: 0, arrival: 20, contribution: 40, share: 1 },
      },
      trace: { before: ['F', 'B'], after: ['F', 'B'] },
      headroom: { before: { scale: 0.75, node: 'B' }, after: { scale: 0.375, node: 'B' } },
    };
    expect(changes({ mode: 'analyze', ...OPEN_WORKED_EXAMPLE }, { nodes: { F: { arrival: 20 } } })).toEqual(
      expected,
    );
    expect(changes({ mode: 'analyze', ...OPEN_WORKED_EXAMPLE }, { scale: 2 })).toEqual(expected);
  });

  // B's capacity halves (15 → 7.5): pressure 20 − 7.5 = 12.5, utilization 20/7.5, headroom 0.375.
  it("halves B's capacity in the open example", () => {
    const result = changes({ mode: 'analyze', ...OPEN_WORKED_EXAMPLE }, { nodes: { B: { capacity: 7.5 } } });
    expect(result.pressure).toEqual([{ id: 'B', before: 5, after: 12.5, increase: 7.5 }]);
    expect(result.utilization).toEqual([
      { id: 'B', before: 20 / 15, after: 20 / 7.5, change: 20 / 7.5 - 20 / 15 },
    ]);
    expect(result.headroom).toEqual({
      before: { scale: 0.75, node: 'B' },
      after: { scale: 0.375, node: 'B' },
    });
  });

  // A front end A (10 requests a step) calls B once and C twice; C calls E. With C down, the 20
  // calls a step on C are lost and E's throughput falls 20 → 0: the comparison says so (both
  // directions, the loss, the saturation), and the headroom falls to 0 rather than improving.
  it('takes a service down: the lost traffic and the decreases are listed', () => {
    const result = changes({ mode: 'analyze', ...FRONT_END_FAN }, { nodes: { C: { down: true } } });
    expect(result.utilization).toEqual([{ id: 'E', before: 2, after: 0, change: -2 }]);
    expect(result.throughput).toEqual([{ id: 'E', before: 20, after: 0, change: -20 }]);
    expect(result.saturated).toEqual({ newly: ['C'], cleared: ['E'] });
    expect(result.lost).toEqual({ before: 0, after: 20 });
    expect(result.primaryBlockage).toEqual({ before: 'E', after: 'C' });
    expect(result.headroom).toEqual({ before: { scale: 0.5, node: 'E' }, after: { scale: 0, node: 'C' } });
    expect(result.origin.after).toEqual({ id: 'A', load: 0, arrival: 10, contribution: 20, share: 1 });
    expect(result.trace.after).toEqual(['A', 'C']);
  });

  // B's capacity doubles (15 → 30): B clears, nothing is blocked, headroom 30/20 = 1.5.
  it("doubles B's capacity in the open example", () => {
    expect(changes({ mode: 'analyze', ...OPEN_WORKED_EXAMPLE }, { nodes: { B: { capacity: 30 } } })).toEqual({
      tick: 0,
      nodes: [
        { id: 'B', before: { blocked: true, role: 'relay' }, after: { blocked: false, role: 'relay' } },
      ],
      pressure: [],
      // B's utilization falls, 20/15 → 20/30: the decrease is listed too.
      utilization: [{ id: 'B', before: 20 / 15, after: 20 / 30, change: 20 / 30 - 20 / 15 }],
      throughput: [],
      saturated: { newly: [], cleared: ['B'] },
      unbounded: { newly: [], cleared: [] },
      lost: { before: 0, after: 0 },
      primaryBlockage: { before: 'B', after: null },
      origin: { before: { id: 'F', load: 0, arrival: 10, contribution: 20, share: 1 }, after: null },
      trace: { before: ['F', 'B'], after: [] },
      headroom: { before: { scale: 0.75, node: 'B' }, after: { scale: 1.5, node: 'B' } },
    });
  });
});

describe('a number the scenario makes too large for a double', () => {
  // What the run finds (a p99, requests in flight, an entry's latency past the largest double)
  // is said of the scenario's change when the structure runs without it, and of the structure
  // when it does not.
  const runFailure = (body: unknown) => {
    try {
      answer(body);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { code: error.code, message: error.message, path: error.details?.[0]?.path };
    }
    throw new Error('the request was answered');
  };
  // One service of 5 ms per request, 20 requests a second: nothing near a double's limit.
  const checkout = {
    nodes: [{ id: 'checkout', arrival: 20, serviceTime: 0.005 }],
    dependencies: [],
  };

  it("names the node's field the scenario sets, in the request and under compare", () => {
    for (const compare of [false, true]) {
      const found = runFailure({
        mode: 'analyze',
        ...checkout,
        scenario: { nodes: { checkout: { serviceTime: 1e307 } } },
        compare,
      });
      expect(found).toEqual({
        code: 'PAYLOAD_ERROR',
        path: 'scenario.nodes.checkout.serviceTime',
        message:
          "scenario.nodes.checkout.serviceTime: makes the node's inFlight larger than the largest number a result can hold (about 1.8e308); give the times in a larger unit",
      });
    }
  });

  it('names the scale when the scenario changes nothing of the node, keeping the node in the message', () => {
    // 1e298 s a request, 1 a second: 1e298 in flight today, 1e308 × 10 at a scale of 1e11.
    const slow = { nodes: [{ id: 'batch', arrival: 1, serviceTime: 1e298 }], dependencies: [] };
    expect(runFailure({ mode: 'analyze', ...slow, scenario: { scale: 1e11 } })).toEqual({
      code: 'PAYLOAD_ERROR',
      path: 'scenario.scale',
      message:
        "scenario.scale: with the scenario applied, nodes[0].serviceTime: makes the node's inFlight larger than the largest number a result can hold (about 1.8e308); give the times in a larger unit",
    });
  });

  it("names the scenario when an entry's latency sums past a double through a node it changes", () => {
    // The web tier calls the database 10 times a request: 10 × 3e307 s is past a double.
    const web = {
      nodes: [
        { id: 'web', arrival: 0.01, fanout: true },
        { id: 'db', exit: 1 },
      ],
      dependencies: [{ from: 'web', to: 'db', weight: 10 }],
    };
    const found = runFailure({
      mode: 'analyze',
      ...web,
      scenario: { nodes: { db: { serviceTime: 3e307 } } },
    });
    expect([found.path, found.message]).toEqual([
      'scenario',
      "scenario: with the scenario applied, nodes[0]: its requests' end-to-end latency (expected calls times response times on their paths) is larger than the largest number a result can hold (about 1.8e308); give the times in a larger unit",
    ]);
  });

  it("says the structure's own problem when the structure fails without the scenario too", () => {
    // A p99 of 1e308 × ln 100 overflows with or without twice the traffic.
    const huge = { nodes: [{ id: 'batch', arrival: 1e-310, serviceTime: 1e308 }], dependencies: [] };
    for (const compare of [false, true]) {
      expect(runFailure({ mode: 'analyze', ...huge, scenario: { scale: 2 }, compare }).path).toBe(
        'nodes[0].serviceTime',
      );
    }
  });
});
