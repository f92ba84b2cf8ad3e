/**
 * The shapes of `POST /api/engine` and of the answers, as zod schemas. They are the source of
 * the OpenAPI document (lib/api/openapi.ts), built by `npm run openapi`, not at request time: the
 * function checks the envelope with plain code (engine-request.ts) and the structure with the
 * engine's single pass, far faster on 500,000 dependencies; property tests keep them in agreement.
 * The small request bodies (connect-request.ts, key-request.ts) are different: their schemas,
 * registered beside these, are also what checks them at request time.
 */
import * as z from 'zod';
import { MAX_TOTAL_LOAD } from '../engine';
import { FORMAT_NAMES } from '../formats';
import { WORKED_EXAMPLE } from '../worked-example';
import { SettingsSchema } from './connect-request';
import { ERROR_STATUS, type ErrorCode } from './errors';
import { CONTAINER_KEYS, type ContainerKey, MODES } from './request-shape';
import { apiSchemaRegistry } from './schema-registry';

/** The contract's bounds for `ticks`; a deployment may lower the upper one (MAX_TICKS). */
const TICKS_MIN = 1;
const TICKS_MAX = 1000;
const TICKS_DEFAULT = 10;

/** Registers `schema` as a named entry of the document's `components.schemas`. */
function named<T extends z.ZodType>(id: string, schema: T): T {
  apiSchemaRegistry.add(schema, { id });
  return schema;
}

// ---------------------------------------------------------------------------------------------
// Request

const ModeSchema = named(
  'Mode',
  z.enum(MODES).meta({
    description:
      'What to compute. `analyze`: describe the structure as sent. `tick`: run one step and ' +
      'describe the result. `ticks`: run `ticks` steps and describe the state after each one. ' +
      'Compared exactly (case-sensitive).',
    examples: ['analyze'],
  }),
);

const TicksSchema = named(
  'Ticks',
  z
    .int()
    .min(TICKS_MIN)
    .max(TICKS_MAX)
    .meta({
      description:
        `Number of steps for mode \`ticks\`: an integer from ${TICKS_MIN} to ${TICKS_MAX} ` +
        `(a deployment may set a lower maximum), default ${TICKS_DEFAULT}. A JSON number, not a ` +
        'string. Ignored, even when invalid, in the other modes.',
      examples: [3],
    }),
);

/**
 * `ticks` in a request: read only in mode `ticks`, and ignored, whatever its type, in the other
 * modes. So the field itself takes any value, and the request says when it must be `Ticks`.
 */
const requestTicks = () =>
  z
    .unknown()
    .optional()
    .meta({
      description:
        'In mode `ticks`: see `Ticks` (an integer from 1 to 1000, default 10). In modes `analyze` and ' +
        '`tick` it is ignored, whatever its type.',
    });

/** In JSON Schema: a top-level `mode: "ticks"` makes a top-level `ticks` a `Ticks`. */
const TICKS_WHEN_MODE_TICKS = {
  if: { required: ['mode'], properties: { mode: { const: 'ticks' } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then`, never awaited.
  then: { properties: { ticks: { $ref: '#/components/schemas/Ticks' } } },
} as const;

/** The same rule for zod: in mode `ticks`, a `ticks` that is present must be a `Ticks`. */
function ticksValidInModeTicks(body: { mode?: unknown; ticks?: unknown }): boolean {
  return body.mode !== 'ticks' || body.ticks === undefined || TicksSchema.safeParse(body.ticks).success;
}
const TICKS_ISSUE = { message: 'in mode ticks, ticks must be an integer from 1 to 1000', path: ['ticks'] };

/** @internal test/api/schemas.test.ts checks it accepts exactly the nodes the engine accepts. */
export const NodeSchema = named(
  'Node',
  z
    .looseObject({
      id: z.string().min(1).meta({ description: 'Unique within the structure, compared as exact strings.' }),
      load: z
        .number()
        .min(0)
        .max(MAX_TOTAL_LOAD)
        .optional()
        .meta({
          description:
            `Number >= 0: the value sitting on the node. Omitted means 0. The loads of all nodes ` +
            `together must not exceed ${MAX_TOTAL_LOAD}, so that every number in a result stays finite.`,
        }),
      capacity: z.number().positive().optional().meta({
        description:
          'Finite number > 0: the most value the node passes on in one step. Omitted means unlimited.',
      }),
      arrival: z
        .number()
        .min(0)
        .max(MAX_TOTAL_LOAD)
        .optional()
        .meta({
          description:
            'Number >= 0: value entering the node from outside at every step (requests per step). ' +
            'Counts with the loads towards their largest total. Any of `arrival`, `exit`, `fanout` ' +
            'makes the structure open: results add `exited`, and `analyze` the steady state.',
        }),
      exit: z
        .number()
        .min(0)
        .optional()
        .meta({
          description:
            'Number >= 0: a way out of the system, weighted like a dependency: of what the node passes ' +
            'on, `exit / (exit + W)` leaves the system. Not allowed with `fanout: true`.',
        }),
      fanout: z
        .boolean()
        .optional()
        .meta({
          description:
            'true: what the node processes completes there, and each outgoing dependency receives ' +
            '`outflow × weight` (calls per unit processed) instead of a share.',
        }),
      serviceTime: z
        .number()
        .positive()
        .optional()
        .meta({
          description:
            'Finite number > 0: mean time one request occupies one server, in the unit of the step. ' +
            '`analyze` then gives the node its response time (docs/engine.md, Latency). An open field.',
        }),
      servers: z
        .int()
        .min(1)
        .max(10_000)
        .optional()
        .meta({
          description:
            'With `serviceTime`: how many servers serve the node. Its capacity is `servers / serviceTime` ' +
            '(a `capacity` beside them must agree) and it queues as M/M/c.',
        }),
      slo: z
        .number()
        .positive()
        .optional()
        .meta({
          description:
            'Finite number > 0: a latency target for requests entering the node, in the unit of the step; ' +
            '`analyze` gives `latencyHeadroom` against it.',
        }),
    })
    .refine((node) => !(node.fanout === true && node.exit !== undefined), {
      message: 'a fan-out node completes what it processes, so it takes no exit',
      path: ['exit'],
    })
    .meta({
      description:
        'A unit of value. Other fields are allowed and carried unchanged into the `analyze` output ' +
        '(not into snapshots).',
      examples: [
        { id: 'B', load: 0, capacity: 4 },
        { id: 'frontend', arrival: 100, fanout: true },
      ],
    }),
);

/** @internal test/api/schemas.test.ts checks it accepts exactly the dependencies the engine accepts. */
export const DependencySchema = named(
  'Dependency',
  z
    .looseObject({
      from: z.string().min(1).meta({ description: 'Id of the node value flows out of.' }),
      to: z.string().min(1).meta({ description: 'Id of the node value flows into.' }),
      weight: z
        .number()
        .positive()
        .optional()
        .meta({
          description:
            "Finite number > 0: this dependency's share of `from`'s outflow, relative to `from`'s other " +
            'dependencies. Omitted means 1.',
        }),
    })
    .meta({
      description:
        'A directed flow between two nodes of the same structure. Self-dependencies and repeated pairs ' +
        'are allowed. Other fields are allowed and carried into the `analyze` output.',
      examples: [{ from: 'A', to: 'B' }],
    }),
);

const NodeChangeSchema = z
  .strictObject({
    load: z.number().min(0).optional().meta({ description: 'Finite number >= 0: the load to set.' }),
    arrival: z.number().min(0).optional().meta({
      description: 'Finite number >= 0: the arrival to set (opens a closed structure).',
    }),
    capacity: z
      .number()
      .positive()
      .nullable()
      .optional()
      .meta({ description: 'Finite number > 0: the capacity to set; `null` removes the capacity.' }),
    down: z
      .literal(true)
      .optional()
      .meta({
        description:
          'The node is down: no way out while down. It keeps what it receives; its outgoing dependencies ' +
          'carry 0 (and are still listed), its exit and fan-out do nothing (it is described without them).',
      }),
    serviceTime: z
      .number()
      .positive()
      .optional()
      .meta({ description: 'Finite number > 0: the service time to set.' }),
    servers: z
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .meta({ description: 'The servers to set (the node needs a service time); its capacity follows.' }),
  })
  .meta({ description: 'What changes on one node: at least one field.', examples: [{ capacity: 2 }] });

const DependencyChangeSchema = z
  .strictObject({
    from: z.string().min(1),
    to: z.string().min(1),
    weight: z
      .number()
      .positive()
      .optional()
      .meta({ description: 'Finite number > 0, set on every copy of the pair.' }),
    cut: z
      .literal(true)
      .optional()
      .meta({ description: 'Removes every copy of the pair. Not with `weight`.' }),
  })
  .meta({
    description:
      'What changes on a dependency of the structure (a pair `from` → `to` that exists): `weight` or `cut`.',
    examples: [{ from: 'A', to: 'C', cut: true }],
  });

/** @internal test/api/schemas.test.ts checks it accepts every scenario the engine accepts. */
export const ScenarioSchema = named(
  'Scenario',
  z
    .strictObject({
      scale: z.number().min(0).optional().meta({
        description:
          "Finite number >= 0: multiplies every node's load and arrival (after the nodes' own values below are set).",
      }),
      nodes: z.record(z.string(), NodeChangeSchema).optional().meta({
        description: 'Changes per node id; every id must name a node of the structure.',
      }),
      dependencies: z.array(DependencyChangeSchema).optional().meta({
        description: 'Changes per dependency pair; each pair at most once.',
      }),
    })
    .meta({
      description:
        'What if: the request runs on the structure (for `systemId`: with its settings applied) changed ' +
        'this way. Except for `down`, and in `analyze` a cut that strands a node (its traffic lost where the ' +
        'structure sent without the dependency keeps it), the answer is byte for byte what the changed structure sent inline ' +
        'gets. At least one change; unknown fields, unknown ids, pairs that do not exist and numbers out ' +
        'of range are 500 `PAYLOAD_ERROR` naming the path (`scenario.nodes.B.capacity`).',
      examples: [{ nodes: { B: { capacity: 2 } } }, { scale: 2 }],
    }),
);

const CompareSchema = z.boolean().meta({
  description:
    'With a `scenario`: true adds `baseline` (the answer without the scenario) and `changes`. ' +
    'Without a scenario, `true` is 500 `PAYLOAD_ERROR`.',
});

/** `scenario` and `compare`, read at the top level or (nested format) in the container, like `mode`. */
const whatIfFields = { scenario: ScenarioSchema.optional(), compare: CompareSchema.optional() };

const nodesField = z.array(NodeSchema).meta({ description: 'The nodes. Must be an array (may be empty).' });
const dependenciesField = z.array(DependencySchema).meta({
  description: 'The dependencies. Must be an array (may be empty); every `from`/`to` names a node.',
});

// Requests are read by the engine itself; the schema documents them and stored systems.
const StructureSchema = named(
  'Structure',
  z.looseObject({ nodes: nodesField, dependencies: dependenciesField }).meta({
    description: 'Nodes and the dependencies between them.',
    examples: [WORKED_EXAMPLE],
  }),
);

/** @internal test/api/schemas.test.ts checks the direct and nested formats exclude each other. */
export const DirectRequestSchema = named(
  'DirectRequest',
  z
    .looseObject({
      mode: ModeSchema,
      ticks: requestTicks(),
      nodes: nodesField,
      dependencies: dependenciesField,
      ...whatIfFields,
    })
    .refine(ticksValidInModeTicks, TICKS_ISSUE)
    .meta({
      ...TICKS_WHEN_MODE_TICKS,
      description:
        'Direct format: the structure at the top level. A top-level `nodes` field always selects this ' +
        'format, even when a container key is present too.',
    }),
);

const ContainerSchema = named(
  'ContainerStructure',
  z
    .looseObject({
      mode: ModeSchema.optional(),
      ticks: requestTicks(),
      nodes: nodesField,
      dependencies: dependenciesField,
      ...whatIfFields,
    })
    .meta({
      description:
        'The structure inside a container. `mode`, `ticks`, `scenario` and `compare` may sit here too; they are read here only ' +
        'when absent at the top level.',
    }),
);

function nestedVariant(key: ContainerKey) {
  return z
    .looseObject({
      mode: ModeSchema.optional(),
      ticks: requestTicks(),
      ...whatIfFields,
      nodes: z.never().optional().meta({ description: 'Absent: a top-level `nodes` makes the body direct.' }),
      [key]: ContainerSchema,
    })
    .refine(ticksValidInModeTicks, TICKS_ISSUE)
    .meta({ ...TICKS_WHEN_MODE_TICKS, title: `Structure in \`${key}\`` });
}

/** @internal test/api/schemas.test.ts checks the direct and nested formats exclude each other. */
export const NestedRequestSchema = named(
  'NestedRequest',
  z.union(CONTAINER_KEYS.map(nestedVariant)).meta({
    description:
      'Nested format: the structure inside a container, `payload`, `system`, `record`, `data` or ' +
      '`graph`. When several are present, the first in that order that is an object holding a ' +
      '`nodes` array is used; the others are ignored. `mode` is required at the top level or inside ' +
      'the chosen container; `ticks` may be in either place. The top level wins when both have one.',
    examples: [{ mode: 'ticks', ticks: 2, payload: { nodes: [{ id: 'A', load: 1 }], dependencies: [] } }],
  }),
);

named(
  'SystemRequest',
  z
    .looseObject({
      mode: ModeSchema,
      ticks: requestTicks(),
      systemId: z
        .string()
        .meta({ description: 'The id `POST /api/connect` returned for a system of the key owner.' }),
      ...whatIfFields,
    })
    .refine(ticksValidInModeTicks, TICKS_ISSUE)
    .meta({
      ...TICKS_WHEN_MODE_TICKS,
      description:
        'A stored system instead of a structure: runs on the structure registered with `POST /api/connect`, ' +
        "when the API key's owner owns it (else 404 `SYSTEM_NOT_FOUND`). Byte for byte the answer the " +
        'stored structure sent inline gets. Used only when the body holds no structure. A `scenario` ' +
        "applies on top of the system's settings.",
    }),
);

// ---------------------------------------------------------------------------------------------
// Responses

const finite = (description: string) => z.number().meta({ description });

const RoleSchema = named(
  'Role',
  z.enum(['source', 'sink', 'relay', 'isolated']).meta({
    description:
      '`source`: only outgoing dependencies. `sink`: only incoming. `relay`: both. `isolated`: none. ' +
      'Self-dependencies count both ways.',
  }),
);

const NodeStateSchema = named(
  'NodeState',
  z
    .looseObject({
      id: z.string(),
      load: finite('Value on the node in this state.'),
      capacity: z.number().optional().meta({ description: 'As sent; absent when the node has none.' }),
      inflow: finite('Value arriving in the next step.'),
      outflow: finite('Value leaving in the next step.'),
      arrival: z.number().optional().meta({ description: 'As sent (open structures).' }),
      exit: z.number().optional().meta({ description: 'As sent (open structures).' }),
      fanout: z.boolean().optional().meta({ description: 'As sent (open structures).' }),
      exited: finite(
        'Open structures only: value that leaves the system at the node in the next step (through its ' +
          'exit, or completed by a fan-out node).',
      ).optional(),
      pressure: finite('Value left on the node after the next step beyond what it can pass on in one step.'),
      blocked: z.boolean().meta({
        description:
          '`pressure > 0`; in `analyze` of an open structure also a node the steady state overloads ' +
          '(utilization above 1, down and losing traffic, or unbounded).',
      }),
      role: RoleSchema,
      throughput: finite(
        '`analyze` of an open structure: value passing through the node per step in the steady state ' +
          '(capacities ignored); absent where there is none (see the `unbounded` event).',
      ).optional(),
      utilization: finite(
        '`throughput / capacity`, for a node with a capacity and a way out; above 1: over capacity.',
      ).optional(),
      responseTime: finite(
        '`analyze`, a node with a `serviceTime` below saturation: mean time a request spends there (M/M/c).',
      ).optional(),
      waiting: finite('The part of `responseTime` spent waiting for a server.').optional(),
      inFlight: finite('Requests at the node on average: `throughput × responseTime`.').optional(),
      p99: finite('The 99th percentile of the response time.').optional(),
      latency: finite(
        '`analyze`, an entry (a node with `arrival`) of a structure with service times: the expected time ' +
          'a request arriving there spends in the system.',
      ).optional(),
      latencyLimit: z
        .object({
          node: z.string(),
          reason: z.enum(['saturated', 'unbounded', 'down', 'stranded']),
        })
        .optional()
        .meta({ description: 'In place of `latency` where the requests reach a node that never answers.' }),
      lost: finite(
        "`analyze` of an open structure, a node that is down, or stranded by a scenario's cut: the traffic " +
          'it loses per step (its throughput).',
      ).optional(),
    })
    .meta({
      description:
        'A node in a described state. In `analyze` output it also carries the extra fields the ' +
        'caller sent on the node: on a system connect read, `observedLatency` ' +
        "(`{ value, statistic, unit }`: what the document measured, e.g. X-Ray's mean or Kiali's " +
        'p95, callees included; never taken as a `serviceTime`).',
    }),
);

const DependencyStateSchema = named(
  'DependencyState',
  z
    .looseObject({
      from: z.string(),
      to: z.string(),
      weight: z.number().optional().meta({ description: 'As sent; absent when the dependency has none.' }),
      flow: finite('Value this dependency carries in the next step.'),
      throughput: finite(
        '`analyze` of an open structure: what it carries per step in the steady state (calls per step ' +
          'for a fan-out source); absent from an unbounded node.',
      ).optional(),
    })
    .meta({
      description:
        'A dependency in a described state. In `analyze` output it also carries extra fields (on a ' +
        'system connect read, `observedLatency` as on a node).',
    }),
);

const tickField = z
  .int()
  .min(0)
  .meta({ description: '0 in `analyze`; `i` in the snapshot after `i` steps.' });

const EventSchema = named(
  'Event',
  z
    .discriminatedUnion('type', [
      z
        .object({
          tick: tickField,
          type: z.literal('cycle'),
          nodes: z.array(z.string()).meta({ description: 'The ids in the cycle, sorted.' }),
          closed: z.boolean().meta({ description: 'No dependency leaves the set.' }),
        })
        .meta({ title: 'cycle (analyze only)' }),
      z
        .object({
          tick: tickField,
          type: z.literal('unbounded'),
          nodes: z
            .array(z.string())
            .meta({ description: 'The ids where value grows without limit, sorted.' }),
        })
        .meta({ title: 'unbounded (analyze of an open structure only)' }),
      z
        .object({
          tick: tickField,
          type: z.literal('saturated'),
          node: z.string(),
          utilization: finite('Above 1: the node gets more per step than its capacity.').optional(),
          lost: finite(
            "A node that is down, or stranded by a scenario's cut (no way out left): the traffic it loses per step.",
          ).optional(),
        })
        .meta({
          title: 'saturated (analyze of an open structure only)',
          description:
            'A node the steady state overloads: `utilization` for one over capacity, `lost` for one down or stranded by a cut.',
        }),
      z
        .object({ tick: tickField, type: z.literal('blocked'), node: z.string(), pressure: z.number() })
        .meta({ title: 'blocked' }),
      z.object({ tick: tickField, type: z.literal('cleared'), node: z.string() }).meta({ title: 'cleared' }),
      z.object({ tick: tickField, type: z.literal('drained'), node: z.string() }).meta({ title: 'drained' }),
      z.object({ tick: tickField, type: z.literal('settled') }).meta({ title: 'settled' }),
    ])
    .meta({
      description:
        'Something that happened in a state. Within one result events are ordered by type ' +
        '(cycle, unbounded, saturated, blocked, cleared, drained, settled), then by node id.',
      examples: [{ tick: 0, type: 'blocked', node: 'B', pressure: 1 }],
    }),
);

const OriginSchema = named(
  'Origin',
  z
    .object({
      id: z.string(),
      load: z.number(),
      arrival: z.number().optional().meta({
        description: "Open structures only: the node's arrival per step, which counts with its load.",
      }),
      contribution: finite(
        '(Load + arrival) on this node times the expected visits of a unit of it to the primary blockage; ' +
          'only the arrival when the steady state names the blockage (`analyze` of an open structure).',
      ),
      share: finite("This node's contribution divided by the sum of all contributions."),
    })
    .meta({
      description: 'The node contributing most of the value that will pass through the primary blockage.',
    }),
);

const engineResultShape = {
  nodes: z.array(NodeStateSchema).meta({ description: 'The nodes, in input order.' }),
  dependencies: z.array(DependencyStateSchema).meta({ description: 'The dependencies, in input order.' }),
  primaryBlockage: z
    .string()
    .nullable()
    .meta({
      description:
        'Id of the blocked node that matters most, or null when nothing is blocked. In `analyze` of an open ' +
        'structure the steady state leads: the node losing most traffic (down, or stranded by a cut), an unbounded loop, the most ' +
        'over-utilized node, and only then the largest backlog now.',
    }),
  events: z.array(EventSchema),
  origin: OriginSchema.nullable().meta({ description: 'Null when nothing is blocked.' }),
  trace: z.array(z.string()).meta({
    description: 'Ids from the origin to the primary blockage, inclusive; empty when origin is null.',
  }),
};

const HeadroomSchema = named(
  'Headroom',
  z
    .object({
      scale: finite(
        "How many times today's arrivals the system can take before its first node saturates; below 1: " +
          'already over capacity.',
      ),
      node: z.string().meta({ description: 'The node that saturates first (ties: smallest id).' }),
    })
    .meta({ description: 'The capacity-planning answer of an open structure.' }),
);

const BottleneckSchema = named(
  'Bottleneck',
  z
    .object({
      node: z.string(),
      scale: finite("The factor of today's arrivals at which the node saturates (`capacity / throughput`)."),
      utilization: finite('Its utilization today.'),
      responseTime: finite(
        "With a `serviceTime`, below saturation: its mean response time today (the node's `responseTime`).",
      ).optional(),
    })
    .meta({ description: 'A node in the order nodes saturate as all traffic grows (ties: smallest id).' }),
);

const EngineResultSchema = named(
  'EngineResult',
  z
    .object({
      ...engineResultShape,
      headroom: HeadroomSchema.nullable()
        .optional()
        .meta({
          description:
            'Open structures only: null when nothing arrives, no reached node has a capacity, or some ' +
            "node is unbounded; `{ scale: 0, node }` while a node loses traffic (down, or stranded by a scenario's cut).",
        }),
      latencyHeadroom: HeadroomSchema.nullable()
        .optional()
        .meta({
          description:
            'Open structures with latency fields: the largest traffic scale at which every entry with an ' +
            '`slo` still meets it, and the entry that breaks first; `scale: 0` when one misses it even ' +
            'without traffic, or its requests reach a node that is down or unbounded (one stuck today only ' +
            "at a node over capacity is searched below that node's saturation: a scale below 1); null when " +
            'no entry has an `slo`.',
        }),
      bottlenecks: z.array(BottleneckSchema).optional().meta({
        description: 'Open structures only: up to 10 nodes that are up, in the order they saturate.',
      }),
      lost: finite(
        "Open structures only, when traffic is lost (at nodes that are down or stranded by a scenario's cut): the total lost per step.",
      ).optional(),
    })
    .meta({ description: 'The description of one state and the step that would follow it.' }),
);

const SnapshotSchema = named(
  'Snapshot',
  z
    .object({
      tick: z.int().min(1).meta({ description: 'Steps executed to reach this state.' }),
      ...engineResultShape,
    })
    .meta({ description: 'A state after `tick` steps. Nodes and dependencies carry no extra fields here.' }),
);

const NodeStatusSchema = z.object({ blocked: z.boolean(), role: RoleSchema });

const IncreaseSchema = z
  .object({
    id: z.string(),
    before: z.number().nullable().meta({ description: 'In the baseline; null where the node has none.' }),
    after: z.number().nullable().meta({ description: 'Under the scenario; null where the node has none.' }),
    increase: finite('`after − before` (a missing number counts as 0); always > 0.'),
  })
  .meta({ description: 'A number that grew under the scenario.' });

const ChangeSchema = z
  .object({
    id: z.string(),
    before: z.number().nullable().meta({ description: 'In the baseline; null where the node has none.' }),
    after: z.number().nullable().meta({ description: 'Under the scenario; null where the node has none.' }),
    change: finite('`after − before` (a missing number counts as 0): negative for a decrease.'),
  })
  .meta({ description: 'A number that changed under the scenario, either way.' });

const beforeAfter = <T extends z.ZodType>(schema: T, description: string) =>
  z.object({ before: schema, after: schema }).meta({ description });

const ChangesSchema = named(
  'Changes',
  z
    .object({
      tick: z.int().min(0).meta({
        description:
          'The state compared: 0 in `analyze` (the input state), the last snapshot in `tick` and `ticks`.',
      }),
      nodes: z
        .array(z.object({ id: z.string(), before: NodeStatusSchema, after: NodeStatusSchema }))
        .meta({ description: 'Nodes whose `blocked` or `role` differ, in input order; all of them.' }),
      pressure: z.array(IncreaseSchema).meta({
        description:
          'The 20 largest pressure increases, largest first; equal increases by id (plain string order).',
      }),
      utilization: z
        .array(ChangeSchema)
        .optional()
        .meta({
          description:
            '`analyze` when either structure is open: the 20 largest utilization changes either way, largest ' +
            '`|change|` first (ties: id); a node unbounded on either side is left out.',
        }),
      throughput: z.array(ChangeSchema).optional().meta({
        description:
          '`analyze` when either structure is open: the 20 largest throughput changes, the same way.',
      }),
      saturated: z
        .object({
          newly: z.array(z.string()).meta({ description: 'Saturated under the scenario only, in id order.' }),
          cleared: z.array(z.string()).meta({ description: 'Saturated in the baseline only, in id order.' }),
        })
        .optional()
        .meta({
          description:
            '`analyze` when either structure is open; a node unbounded on the other side is in `unbounded` instead.',
        }),
      unbounded: z
        .object({
          newly: z.array(z.string()).meta({
            description: 'Unbounded (a loop keeps what enters it) under the scenario only, in id order.',
          }),
          cleared: z.array(z.string()).meta({ description: 'Unbounded in the baseline only, in id order.' }),
        })
        .optional()
        .meta({ description: '`analyze` when either structure is open.' }),
      lost: beforeAfter(
        z.number(),
        '`analyze` when either structure is open: the traffic lost per step by nodes that are down or stranded by a cut (0 when none).',
      ).optional(),
      responseTime: z.array(ChangeSchema).optional().meta({
        description: 'With latency fields on either side: the 20 largest response time changes, either way.',
      }),
      latency: z
        .array(ChangeSchema)
        .optional()
        .meta({
          description:
            "With latency fields on either side: the 20 largest changes of an entry's latency; an entry " +
            'stuck on either side is left out, and one stuck on one side only is named in `latencyLimit`.',
        }),
      latencyLimit: z
        .object({
          newly: z.array(z.string()).meta({
            description:
              'Entries whose requests reach a node that never answers under the scenario only, in id order ' +
              "(the scenario's `latencyLimit` on each says which node and why).",
          }),
          cleared: z
            .array(z.string())
            .meta({ description: 'Entries stuck so in the baseline only, in id order.' }),
        })
        .optional()
        .meta({ description: 'With latency fields on either side.' }),
      primaryBlockage: beforeAfter(
        z.string().nullable(),
        'The primary blockage in the baseline and under the scenario.',
      ),
      origin: beforeAfter(OriginSchema.nullable(), 'The origin, before and after.'),
      trace: beforeAfter(z.array(z.string()), 'The trace, before and after.'),
      headroom: beforeAfter(
        HeadroomSchema.nullable(),
        '`analyze` when either structure is open: the headroom, before and after.',
      ).optional(),
      latencyHeadroom: beforeAfter(
        HeadroomSchema.nullable(),
        'With latency fields on either side: the latency headroom, before and after.',
      ).optional(),
    })
    .meta({ description: 'What the scenario changed, against the baseline (docs/engine.md, "What if").' }),
);

const compareFields = (baseline: z.ZodType) => ({
  baseline: baseline.optional().meta({
    description: 'With `compare: true`: the answer without the scenario, in the same shape.',
  }),
  changes: ChangesSchema.optional().meta({ description: 'With `compare: true`.' }),
});

/** @internal tests check the engine's answers and the document's examples conform to it. */
export const AnalyzeResponseSchema = named(
  'AnalyzeResponse',
  z.object({ mode: z.literal('analyze'), engine: EngineResultSchema, ...compareFields(EngineResultSchema) }),
);

/** @internal tests check the engine's answers and the document's examples conform to it. */
export const TickResponseSchema = named(
  'TickResponse',
  z.object({ mode: z.literal('tick'), snapshot: SnapshotSchema, ...compareFields(SnapshotSchema) }),
);

/** @internal tests check the engine's answers and the document's examples conform to it. */
export const TicksResponseSchema = named(
  'TicksResponse',
  z.object({
    mode: z.literal('ticks'),
    ticks: z.int().min(TICKS_MIN).meta({ description: 'Steps executed: the length of `snapshots`.' }),
    snapshots: z
      .array(SnapshotSchema)
      .meta({ description: 'The state after each step: `snapshots[i-1].tick == i`.' }),
    ...compareFields(z.array(SnapshotSchema)),
  }),
);

const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** @internal tests check error bodies and the document's error examples conform to it. */
export const ErrorBodySchema = named(
  'ErrorBody',
  z
    .object({
      error: z.object({
        code: z
          .enum(ERROR_CODES)
          .meta({ description: 'Stable, machine-readable; see the table in docs/api.md.' }),
        message: z.string().meta({ description: 'For people: which field or element, what was expected.' }),
        details: z
          .array(
            z.object({
              path: z.string().meta({ description: 'Where in the request body, e.g. `dependencies[3].to`.' }),
              message: z.string(),
            }),
          )
          .optional(),
      }),
    })
    .meta({
      description: 'Every error response has this body.',
      examples: [
        { error: { code: 'INVALID_MODE', message: 'mode must be one of "analyze", "tick", "ticks"' } },
      ],
    }),
);

// ---------------------------------------------------------------------------------------------
// Self-service API keys (user access token)

const apiKeyFields = {
  id: z.string().meta({ description: 'Public short id (12 hex characters): use it to revoke the key.' }),
  prefix: z
    .string()
    .meta({ description: '`sbe_` and the first 8 characters of the key, to tell keys apart.' }),
  name: z.string(),
  status: z.enum(['active', 'revoked']),
  createdAt: z.string().meta({ description: 'ISO 8601.' }),
};

const ApiKeySchema = named(
  'ApiKey',
  z
    .object({
      ...apiKeyFields,
      lastUsedAt: z
        .string()
        .optional()
        .meta({ description: 'ISO 8601, at most a minute old; absent when never used.' }),
      revokedAt: z.string().optional(),
    })
    .meta({ description: 'One of your API keys. Never the key itself, nor its digest.' }),
);

named(
  'CreatedApiKey',
  z
    .object({
      key: z
        .string()
        .meta({ description: 'The API key. Shown this once: it is stored only as a SHA-256 digest.' }),
      ...apiKeyFields,
    })
    .meta({ description: 'A new API key, acting for the user of the access token.' }),
);

named('ApiKeyList', z.object({ keys: z.array(ApiKeySchema) }));

// ---------------------------------------------------------------------------------------------
// Systems (user access token)

const SystemSchema = named(
  'System',
  z.object({
    id: z.string().meta({ description: 'ULID.' }),
    name: z.string(),
    url: z.string().optional().meta({
      description: 'Where the structure was fetched from; absent for a document sent to POST /api/systems.',
    }),
    nodes: z.int().meta({ description: 'Number of nodes stored.' }),
    dependencies: z.int().meta({ description: 'Number of dependencies stored.' }),
    createdAt: z.string().meta({ description: 'ISO 8601.' }),
    format: z
      .string()
      .optional()
      .meta({
        description: `The format the external API's answer was read in (${FORMAT_NAMES.map((name) => `\`${name}\``).join(', ')}); absent on systems registered before formats.`,
      }),
    unit: z
      .enum(['second', 'window', 'none', 'as-sent'])
      .optional()
      .meta({
        description:
          'What one engine step stands for: `second` (the source gives rates or a time span), `window` (counts ' +
          "over the source's window), `none` (no traffic in the source), `as-sent` (the engine's own format).",
      }),
    readOptions: z
      .object({
        window: z.number().optional(),
        sampleRate: z.number().optional(),
        labels: z.object({ from: z.string(), to: z.string() }).optional(),
      })
      .optional()
      .meta({
        description:
          'What the registration said of the document that it does not say (`window`, `sampleRate`, ' +
          '`labels`), as given; a refresh reads the new answer with them. Absent when none was given.',
      }),
    version: z
      .int()
      .meta({ description: '1 as registered, one more at every refresh that replaced the structure.' }),
    refreshedAt: z.string().optional().meta({
      description: 'ISO 8601: when a refresh last replaced the structure; absent before the first.',
    }),
    settings: z.optional(SettingsSchema),
  }),
);

named(
  'ConnectedSystem',
  SystemSchema.extend({
    warnings: z.array(z.string()).optional().meta({
      description: 'What reading the answer had to leave out or merge, in words; absent when nothing.',
    }),
  }),
);

named(
  'ConnectDryRun',
  z.object({
    dryRun: z.literal(true),
    format: z.string().meta({ description: 'The format the answer was read in.' }),
    unit: z.enum(['second', 'window', 'none', 'as-sent']),
    nodes: z.int(),
    dependencies: z.int(),
    entries: z.array(z.string()).meta({ description: 'Ids of the nodes that take arrivals, the first 100.' }),
    entryCount: z.int().meta({ description: 'How many nodes take arrivals in all.' }),
    warnings: z.array(z.string()),
    analysis: z
      .object({
        primaryBlockage: z.string().nullable(),
        origin: OriginSchema.nullable(),
        trace: z.array(z.string()),
        headroom: HeadroomSchema.nullable(),
        latencyHeadroom: HeadroomSchema.nullable().optional().meta({
          description:
            'With service times or SLOs (in the document or the settings): the latency headroom, as `analyze` gives it.',
        }),
        bottlenecks: z.array(BottleneckSchema).meta({ description: 'Empty for a closed structure.' }),
      })
      .meta({ description: "The engine's `analyze` of the mapped structure, summed up." }),
  }),
);

named(
  'SystemList',
  z.object({
    systems: z.array(SystemSchema),
    cursor: z
      .string()
      .optional()
      .meta({ description: 'Pass as `cursor` for the next page; absent on the last.' }),
  }),
);

named(
  'SystemWithStructure',
  SystemSchema.extend({
    structure: StructureSchema.meta({ description: 'As fetched, extra fields included.' }),
  }),
);
