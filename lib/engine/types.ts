/** A node as callers send it. Fields other than these are carried through to `analyze` output. */
export interface NodeInput {
  id: string;
  load?: number;
  capacity?: number;
  /** Value entering the node from outside at every step (open systems). */
  arrival?: number;
  /** A way out of the system, weighted like a dependency (open systems). */
  exit?: number;
  /** What the node processes completes there; each dependency receives `out × weight`. */
  fanout?: boolean;
  /** Mean time one request occupies one server, in steps (open structures). */
  serviceTime?: number;
  /** How many servers serve it (with `serviceTime`: capacity `servers / serviceTime`, M/M/c). */
  servers?: number;
  /** A latency target for requests entering here, in steps. */
  slo?: number;
  [extra: string]: unknown;
}

/** A dependency as callers send it: value flows from `from` to `to`. */
export interface DependencyInput {
  from: string;
  to: string;
  weight?: number;
  [extra: string]: unknown;
}

export interface Structure {
  nodes: readonly NodeInput[];
  dependencies: readonly DependencyInput[];
}

export type Role = 'source' | 'sink' | 'relay' | 'isolated';

/** A node as it appears in a described state. `analyze` adds the caller's extra fields. */
export interface NodeState {
  id: string;
  load: number;
  capacity?: number;
  arrival?: number;
  exit?: number;
  fanout?: boolean;
  inflow: number;
  outflow: number;
  /** Open structures only: value that left the system at the node in the step. */
  exited?: number;
  pressure: number;
  blocked: boolean;
  role: Role;
  /** `analyze` of an open structure: the steady throughput per step, when it exists. */
  throughput?: number;
  /** `throughput / capacity`, for a node with a capacity and a way out. */
  utilization?: number;
  /** `analyze`, a node with a `serviceTime` below saturation: mean time a request spends there. */
  responseTime?: number;
  /** The part of `responseTime` spent waiting for a server. */
  waiting?: number;
  /** Requests at the node on average: `throughput × responseTime` (Little's law). */
  inFlight?: number;
  /** The 99th percentile of the response time. */
  p99?: number;
  /** `analyze`, an entry of a structure with latency fields: a request's expected time in the system. */
  latency?: number;
  /** In place of `latency`: the node its requests get stuck at, and why. */
  latencyLimit?: { node: string; reason: 'saturated' | 'unbounded' | 'down' | 'stranded' };
  /** `analyze` of an open structure, a node that is down or stranded by a scenario's cut: the traffic it loses per step (its throughput). */
  lost?: number;
  [extra: string]: unknown;
}

export interface DependencyState {
  from: string;
  to: string;
  weight?: number;
  flow: number;
  /** `analyze` of an open structure: the calls per step it carries in the steady state, when bounded. */
  throughput?: number;
  [extra: string]: unknown;
}

export interface CycleEvent {
  tick: number;
  type: 'cycle';
  nodes: string[];
  closed: boolean;
}
/** `analyze` of an open structure: nodes where value grows without limit (no steady state). */
export interface UnboundedEvent {
  tick: number;
  type: 'unbounded';
  nodes: string[];
}
/**
 * `analyze` of an open structure: a node the steady state overloads, over capacity
 * (`utilization` above 1) or down while traffic reaches it (`lost` per step).
 */
export type SaturatedEvent =
  | { tick: number; type: 'saturated'; node: string; utilization: number }
  | { tick: number; type: 'saturated'; node: string; lost: number };
export interface BlockedEvent {
  tick: number;
  type: 'blocked';
  node: string;
  pressure: number;
}
export interface ClearedEvent {
  tick: number;
  type: 'cleared';
  node: string;
}
export interface DrainedEvent {
  tick: number;
  type: 'drained';
  node: string;
}
export interface SettledEvent {
  tick: number;
  type: 'settled';
}
export type EngineEvent =
  | CycleEvent
  | UnboundedEvent
  | SaturatedEvent
  | BlockedEvent
  | ClearedEvent
  | DrainedEvent
  | SettledEvent;

export interface Origin {
  id: string;
  load: number;
  /** Open structures only: the node's arrival per step, which counts with its load. */
  arrival?: number;
  contribution: number;
  share: number;
}

/**
 * How many times today's arrivals the system can take before its first node saturates
 * (`scale`), and that node.
 */
export interface Headroom {
  scale: number;
  node: string;
}

/** A node in the order nodes saturate as every arrival grows by the same factor. */
export interface Bottleneck {
  node: string;
  /** The factor of today's arrivals at which it saturates (`capacity / throughput`). */
  scale: number;
  utilization: number;
  /** With a `serviceTime`, below saturation: its mean response time today (the node's own `responseTime`). */
  responseTime?: number;
}

/** What `analyze` returns under `engine`. */
export interface EngineResult {
  nodes: NodeState[];
  dependencies: DependencyState[];
  primaryBlockage: string | null;
  events: EngineEvent[];
  origin: Origin | null;
  trace: string[];
  /** `analyze` of an open structure only. */
  headroom?: Headroom | null;
  /**
   * `analyze` of an open structure with latency fields: the traffic scale at which the first
   * entry misses its `slo`, and that entry; `null` when no entry has an `slo`.
   */
  latencyHeadroom?: Headroom | null;
  /** `analyze` of an open structure only: up to 10 nodes, in the order they saturate. */
  bottlenecks?: Bottleneck[];
  /** `analyze` of an open structure, when nodes lose traffic (down, or stranded by a cut): the total lost per step. */
  lost?: number;
}

/** One state of a timeline: the state after `tick` steps. */
export interface Snapshot extends EngineResult {
  tick: number;
}
