/** A node as callers send it. Fields other than these are carried through to `analyze` output. */
export interface NodeInput {
  id: string;
  load?: number;
  capacity?: number;
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
  inflow: number;
  outflow: number;
  pressure: number;
  blocked: boolean;
  role: Role;
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
export type EngineEvent = CycleEvent | BlockedEvent | ClearedEvent | DrainedEvent | SettledEvent;

export interface Origin {
  id: string;
  load: number;
  contribution: number;
  share: number;
}

/** What `analyze` returns under `engine`. */
export interface EngineResult {
  nodes: NodeState[];
  dependencies: DependencyState[];
  primaryBlockage: string | null;
  events: EngineEvent[];
  origin: Origin | null;
  trace: string[];
}

/** One state of a timeline: the state after `tick` steps. */
export interface Snapshot extends EngineResult {
  tick: number;
}
