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
  [extra: string]: unknown;
}

export interface DependencyState {
  from: string;
  to: string;
  weight?: number;
  flow: number;
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
}

/** One state of a timeline: the state after `tick` steps. */
export interface Snapshot extends EngineResult {
  tick: number;
}
