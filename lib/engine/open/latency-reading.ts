import type { CompiledStructure } from '../compile';
import { PayloadError } from '../errors';
import type { SteadyReading } from '../steady-reading';
import { type LatencyLimit, solveEntryLatency } from './entry-latency';
import { nodeResponseTime, saturates } from './node-latency';

/** The latency side of an open `analyze`, when some node has a `serviceTime`. */
export interface LatencyReading {
  /** Per node, its end-to-end latency (`Infinity` where stuck). */
  latency: Float64Array;
  /** Per node, where its requests get stuck; −1 where its latency is finite. */
  limitedBy: Int32Array;
  /** Per node, why the node at `limitedBy` never answers. */
  reasonOf: (v: number) => LatencyLimit;
}

/**
 * Reads the latencies of an open structure from its steady state, or `undefined` when no node
 * has a `serviceTime` (then nothing about latency is said, and the answer is the one without).
 * A node's own time is its response time (0 without a service time); it never answers when it
 * is unbounded, down, or saturated (over capacity, or an M/M/c queue at or above its servers).
 */
export function readLatency(structure: CompiledStructure, steady: SteadyReading): LatencyReading | undefined {
  if (structure.latency.serviceTime.length === 0) return undefined;
  return readLatencyAnyway(structure, steady);
}

/**
 * Where each node's requests get stuck (`limitedBy`, −1 where they finish), for a structure
 * without service times too (every time 0): a comparison whose scenario adds them needs to know
 * which entries were stuck in the baseline, so that it never names one as newly stuck.
 */
export function readLatencyLimits(structure: CompiledStructure, steady: SteadyReading): Int32Array {
  return readLatencyAnyway(structure, steady).limitedBy;
}

function readLatencyAnyway(structure: CompiledStructure, steady: SteadyReading): LatencyReading {
  const { serviceTime } = structure.latency;
  const { nodeCount, down } = structure;
  const { throughput } = steady.steady;
  const own = new Float64Array(nodeCount);
  const reasons = new Uint8Array(nodeCount);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < nodeCount; v++) {
    const x = throughput[v]!;
    let reason: LatencyLimit | undefined;
    if (x === Number.POSITIVE_INFINITY) reason = 'unbounded';
    else if (
      // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (without a scenario that downs a node, down[v] is undefined)
      down.length > 0 &&
      down[v] === 1
    )
      reason = 'down';
    // Stranded by a scenario's cut: its traffic is lost, as a down node's (docs/engine.md).
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (an empty array reads undefined, never 1)
    else if (structure.stranded.length > 0 && structure.stranded[v] === 1) reason = 'stranded';
    else if (saturates(structure, v, x, steady.utilization[v]!)) reason = 'saturated';
    else if (serviceTime[v]! > 0) {
      const response = nodeResponseTime(structure, v, x, steady.utilization[v]!);
      // Stryker disable next-line ConditionalExpression,StringLiteral: a guard never met: `saturates` above refuses every queue whose load is not below its servers, the one case the queue's times leave undefined, with the same arithmetic
      if (response === undefined) reason = 'saturated';
      else own[v] = response;
    }
    if (reason !== undefined) {
      own[v] = Number.POSITIVE_INFINITY;
      reasons[v] = REASONS.indexOf(reason);
    }
  }
  const { latency, limitedBy } = solveEntryLatency(structure, own);
  const { arrival } = structure;
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < nodeCount; v++) {
    if (arrival[v]! > 0 && limitedBy[v]! < 0 && !Number.isFinite(latency[v]!)) {
      // Calls that multiply along the paths, times long service times: past the largest double.
      throw new PayloadError(
        `nodes[${v}]`,
        "its requests' end-to-end latency (expected calls times response times on their paths) is larger than the largest number a result can hold (about 1.8e308); give the times in a larger unit",
      );
    }
  }
  return { latency, limitedBy, reasonOf: (v) => REASONS[reasons[v]!]! };
}

/**
 * The reasons by their index in `reasons`. A node named by the latency solve's own loop check
 * (calls that grow without bound on an entry's paths) has no reason set here: the 0 every entry
 * starts at reads `unbounded`, which that is, never `saturated`.
 */
const REASONS: readonly LatencyLimit[] = ['unbounded', 'saturated', 'down', 'stranded'];
