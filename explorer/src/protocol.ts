import type { BareStructure } from './bare-structure';
import type { LatencyPoints } from './latency-points';

/** What the page asks the engine worker: run one request body, as the API would. */
export interface RunRequest {
  id: number;
  /**
   * `run`: a request body for `POST /api/engine`. `upstream`: an external API's answer, checked
   * as `POST /api/connect` checks it (the answer is the structure and its counts). `names`: a
   * request body the server ran, for its nodes' readable names alone. `structure`: a request body
   * that got no result, for its nodes and dependencies as written (and their names), to draw.
   */
  kind: 'run' | 'upstream' | 'names' | 'structure';
  body: string;
}

/**
 * The latency chart's points for entry `entry` of the structure a request body the worker ran
 * describes (its scenario applied, when it has one: the answer on show is the scenario's), with
 * the entry's `slo` to place on the curve.
 */
export interface LatencyRequest {
  id: number;
  kind: 'latency';
  body: string;
  entry: string;
  slo?: number;
}

export type WorkerRequest = RunRequest | LatencyRequest;

/**
 * What the worker answers: the response text the API would send (byte for byte, for a body the
 * API would run) and its status, 200 or the contract's error status with its error body.
 */
export interface RunAnswer {
  id: number;
  status: number;
  text: string;
  ms: number;
  /** Readable names of the body's nodes (see names.ts), for those that have one. */
  names?: Array<[string, string]>;
  /** `structure`: what the body holds; left out when it holds none the page can read. */
  structure?: BareStructure;
  /** `latency`: the chart's points; left out when the entry has no curve (stuck today). */
  latency?: LatencyPoints;
}
