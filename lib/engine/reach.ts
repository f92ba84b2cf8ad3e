import type { CompiledStructure } from './compile';
import { type GainBounds, gainBounds } from './gain-bounds';
import { type LargeCycleInput, solveLargeCycle } from './large-cycle';
import { leakingSystemOf } from './leaking-system';
import { factorMMatrix, solveFactored, solveLeakingSystem } from './linear-system';
import { type ScratchMemory, scratch } from './scratch';
import { DENSE_FALLBACK_LIMIT, GAIN_MARGIN } from './steady-state';
import { checkpoint } from './stop-check';

/**
 * Cycles with at most this many unknowns are solved exactly by Gaussian elimination.
 * @internal tests build cycles at and past the limit.
 */
export const DENSE_SOLVE_LIMIT = 64;

/**
 * Scratch space reused across states of one structure (a timeline solves once per tick).
 */
export class ReachWorkspace {
  readonly reach: Float64Array;
  readonly canReach: Uint8Array;
  /** The nodes that can reach the target, in breadth-first order from it (target first). */
  readonly reachers: Int32Array;
  reacherCount = 0;
  readonly localIndex: Int32Array;
  readonly unknowns: Int32Array;
  readonly queue: Int32Array;
  /**
   * The target `reach` currently holds the answer for. Reach depends on the structure and
   * the target only, never on loads, so a timeline whose blockage stays put solves it once.
   */
  solvedFor = -1;
  /** Sweeps the last solve spent on large cycles: a figure for tests and benchmarks. */
  sweeps = 0;
  /**
   * Fan-out only: some node's expected visits in the last solve have no finite value (a fan-out
   * cycle on its way to the target whose gain is 1 or more); its `reach` is then `Infinity`, as
   * is every node's that reaches it. The others keep their finite reach: a loop that takes no
   * value makes no contribution infinite.
   */
  // Stryker disable next-line BooleanLiteral: solveReach sets it before every solve
  unbounded = false;

  /** Arrays from `memory` (fresh ones outside an engine call). */
  constructor(nodeCount: number, memory: ScratchMemory = scratch) {
    this.reach = memory.float64(nodeCount);
    this.canReach = memory.uint8(nodeCount);
    this.reachers = memory.int32(nodeCount);
    this.localIndex = memory.int32(nodeCount, -1);
    this.unknowns = memory.int32(nodeCount);
    this.queue = memory.int32(nodeCount);
  }
}

/**
 * Fills `ws.reach[u]` with the probability that a unit of value now at `u` passes through
 * `target` later, moving along dependencies in proportion to their weights (the target
 * itself has 1). Capacity delays value but never redirects it, so it plays no part.
 *
 * Nodes that cannot reach the target are found by a reverse search and keep 0. The rest are
 * solved one strongly connected component at a time, in reverse topological order, so every
 * component only needs the already-solved values of the components after it: a closed form
 * for a single unknown, Gaussian elimination for small cycles, and accelerated Gauss–Seidel
 * sweeps with a fixed cap for large ones (large-cycle.ts).
 */
export function solveReach(structure: CompiledStructure, target: number, ws: ReachWorkspace): void {
  // Stryker disable next-line ConditionalExpression: solving again gives the same values; this only saves the work
  if (ws.solvedFor === target) return;
  ws.sweeps = 0;
  ws.unbounded = false;
  const kept = structure.keptReach(target);
  if (kept !== undefined) {
    restoreReach(kept, ws);
  } else {
    computeReach(structure, target, ws);
    structure.keepReach(() => copyReach(target, ws));
  }
  ws.solvedFor = target;
}

/**
 * A reach solved for one target, kept for another structure of the very same dependencies and
 * shares (a what-if of other loads, arrivals or capacities): its reach is this one, number for
 * number, since reach depends on nothing else.
 */
export interface KeptReach {
  target: number;
  /** The nodes that can reach the target, as `ReachWorkspace.reachers` held them. */
  reachers: Int32Array;
  /** Their reach, in the same order. */
  reach: Float64Array;
  unbounded: boolean;
}

function copyReach(target: number, ws: ReachWorkspace): KeptReach {
  const count = ws.reacherCount;
  const reachers = ws.reachers.slice(0, count);
  const reach = new Float64Array(count);
  // Stryker disable next-line EqualityOperator: one past the end: a typed array keeps no such index
  for (let i = 0; i < count; i++) reach[i] = ws.reach[reachers[i]!]!;
  return { target, reachers, reach, unbounded: ws.unbounded };
}

function restoreReach(kept: KeptReach, ws: ReachWorkspace): void {
  const { reach, canReach, reachers } = ws;
  // Stryker disable next-line EqualityOperator: one past the end resets a node that is already 0 (no reacher of the last solve), as computeReach's reset does
  for (let i = 0; i < ws.reacherCount; i++) {
    const v = reachers[i]!;
    canReach[v] = 0;
    reach[v] = 0;
  }
  const count = kept.reachers.length;
  reachers.set(kept.reachers);
  // Stryker disable next-line EqualityOperator: one past the end reads undefined, whose writes are dropped
  for (let i = 0; i < count; i++) {
    const v = kept.reachers[i]!;
    canReach[v] = 1;
    reach[v] = kept.reach[i]!;
  }
  ws.reacherCount = count;
  ws.unbounded = kept.unbounded;
}

function computeReach(structure: CompiledStructure, target: number, ws: ReachWorkspace): void {
  const { reach, canReach, reachers, localIndex, unknowns } = ws;
  const { inStart, inSource } = structure;

  // (One past the end resets a node that is already 0: no reacher of the last solve.)
  // Stryker disable next-line EqualityOperator: see above
  for (let i = 0; i < ws.reacherCount; i++) {
    const v = reachers[i]!;
    canReach[v] = 0;
    reach[v] = 0;
  }
  let count = 0;
  reachers[count++] = target;
  canReach[target] = 1;
  for (let head = 0; head < count; head++) {
    const v = reachers[head]!;
    const end = inStart[v + 1]!;
    for (let j = inStart[v]!; j < end; j++) {
      const u = inSource[j]!;
      if (canReach[u] === 0) {
        canReach[u] = 1;
        reachers[count++] = u;
      }
    }
  }
  ws.reacherCount = count;
  reach[target] = 1;
  // Stryker disable next-line ConditionalExpression: with only the target, every component below has no unknowns
  if (count === 1) return;

  const { count: componentCount, start, members } = structure.components();
  // Stryker disable next-line EqualityOperator: a component past the last has no members
  for (let c = 0; c < componentCount; c++) {
    let unknownCount = 0;
    const end = start[c + 1]!;
    for (let m = start[c]!; m < end; m++) {
      const v = members[m]!;
      if (canReach[v] === 1 && v !== target) unknowns[unknownCount++] = v;
    }
    // Stryker disable next-line ConditionalExpression: no unknowns make an empty system below, which changes nothing
    if (unknownCount === 0) continue;
    // A component that calls a node of unbounded visits has unbounded visits itself: every member
    // reaches that call, and its share is above 0. (Solved, it would come out infinite or NaN,
    // which `finiteVisits` marks the same; a large loop would sweep on to its cap first.)
    // Stryker disable next-line ConditionalExpression,LogicalOperator,BlockStatement: same answer, other work (see above)
    if (ws.unbounded && callsUnbounded(structure, reach, unknowns, unknownCount)) {
      markUnbounded(reach, unknowns, unknownCount);
      continue;
    }
    // Stryker disable next-line ConditionalExpression: same answer, other work (elimination of one unknown is the same closed form)
    if (unknownCount === 1) {
      const u = unknowns[0]!;
      reach[u] = singleUnknown(structure, reach, u);
    } else {
      // A fan-out loop at or past the steady state's line has no finite visits: elimination of a
      // gain of exactly 1 gives a pivot that rounding leaves above 0, and visits of 3e15.
      const gain = structure.hasFanout ? visitGain(structure, unknowns, unknownCount, localIndex) : undefined;
      if (gain !== undefined && gain.low >= 1 - GAIN_MARGIN) {
        ws.unbounded = true;
        markUnbounded(reach, unknowns, unknownCount);
        continue;
      }
      if (
        // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (elimination and the sweeps agree to 1e-13)
        unknownCount <= DENSE_SOLVE_LIMIT
      ) {
        // Each elimination is up to some 260,000 steps: the caller may be out of time between them.
        checkpoint();
        solveDense(structure, reach, unknowns, unknownCount, localIndex);
      } else {
        // A routing loop's reach is a probability: bounded, as is a fan-out loop bounded below the line.
        // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator,ArithmeticOperator: same answer, other work (rounds of sweeps for a loop, or none: each starts where the last stopped, and finiteVisits judges the values either way)
        const bounded = gain === undefined || gain.high < 1 - GAIN_MARGIN;
        const input = { reach, localIndex, unknowns, order: ws.queue, bounded };
        const swept = solveLargeCycle(structure, input, unknownCount);
        ws.sweeps += swept.sweeps;
        // Sweeps that settled in neither order, or slowly, or where sweeps from above do not
        // settle on the same answer: elimination where it is affordable, as for the steady
        // state; a larger component keeps their estimate.
        if (
          // Stryker disable next-line EqualityOperator: a component of exactly 1,024 unknowns eliminated or kept as swept: within the tests' tolerance alike
          unknownCount <= DENSE_FALLBACK_LIMIT &&
          // Stryker disable next-line ConditionalExpression,LogicalOperator: same answer, other work (sweeps that did not settle, or settled slowly, fail the check from above too, and are eliminated by it)
          (!swept.converged || swept.slow || !settledFromAbove(structure, input, unknownCount, ws))
        ) {
          checkpoint();
          solveDense(structure, reach, unknowns, unknownCount, localIndex);
        }
      }
    }
    if (structure.hasFanout && !finiteVisits(reach, unknowns, unknownCount)) {
      // Stryker disable next-line BooleanLiteral: same answer, other work (the flag only lets later components skip their solve: callsUnbounded)
      ws.unbounded = true;
      markUnbounded(reach, unknowns, unknownCount);
    }
  }
}

/**
 * Whether sweeps started above the answer the sweeps from zeros settled on settle on it too (to
 * `AGREE` of the largest): a stopping rule that reads how far a sweep moves can be fooled where
 * the sweeps crawl (weights spread over 1e-6…1e6: a tangle of 600 settled on a reach of 0.135
 * for 0.667 after 16 sweeps), and sweeps from below and from above stop on either side of the
 * answer there. The first answer is kept (`reach` holds it again on return), so a component that
 * passes answers as before, bit for bit. A routing loop's reach is a probability, so 1 is above
 * it; a fan-out loop's visits are started at twice the answer plus 1.
 */
function settledFromAbove(
  structure: CompiledStructure,
  input: LargeCycleInput,
  count: number,
  ws: ReachWorkspace,
): boolean {
  const { reach, unknowns } = input;
  const first = new Float64Array(count);
  let largest = 0;
  // Stryker disable all: same answer, other work: where the second sweeps start (any start above the answer, or another), the scale of the agreement (the largest, or another reach of the same order) and its edge only decide whether a loop is eliminated; the tests hold the answers either way, to their tolerance (one past the end: a typed array keeps no such index)
  for (let i = 0; i < count; i++) {
    const r = reach[unknowns[i]!]!;
    first[i] = r;
    if (r > largest) largest = r;
    reach[unknowns[i]!] = structure.hasFanout ? 2 * r + 1 : 1;
  }
  const again = solveLargeCycle(structure, { ...input, bounded: true }, count, true);
  ws.sweeps += again.sweeps;
  let agree = again.converged;
  for (let i = 0; i < count; i++) {
    if (!(Math.abs(reach[unknowns[i]!]! - first[i]!) <= AGREE * largest)) agree = false;
    reach[unknowns[i]!] = first[i]!;
  }
  // Stryker restore all
  return agree;
}

/**
 * How near, relative to the largest, the answers of sweeps from below and from above must settle.
 * Sweeps that settle well stop within some 1e-9 of each other on ordinary loops (a loop of 1,000
 * with weights of 1–2: 2e-10), where elimination would cost 100 ms a solve; those that settled
 * on a wrong answer were 1e-3 to 1 away.
 */
const AGREE = 1e-8;

/** Whether any of the unknowns calls a node (outside them: they are not solved yet) of unbounded visits. */
// Stryker disable all: same answer, other work (computeReach's shortcut: the solve marks the same nodes)
function callsUnbounded(
  structure: CompiledStructure,
  reach: Float64Array,
  unknowns: Int32Array,
  count: number,
): boolean {
  const { outStart, outTarget } = structure;
  for (let i = 0; i < count; i++) {
    const u = unknowns[i]!;
    for (let k = outStart[u]!; k < outStart[u + 1]!; k++)
      if (reach[outTarget[k]!] === Number.POSITIVE_INFINITY) return true;
  }
  return false;
}
// Stryker restore all

/** Unbounded visits: `Infinity`, never NaN, so that a node holding value there makes its contribution infinite. */
function markUnbounded(reach: Float64Array, unknowns: Int32Array, count: number): void {
  for (let i = 0; i < count; i++) reach[unknowns[i]!] = Number.POSITIVE_INFINITY;
}

/**
 * Bounds on the gain (spectral radius) of the unknowns' own coefficients. A low bound of at least
 * `1 − GAIN_MARGIN`, the steady state's line for an unbounded loop, means the visits have no finite
 * value, and sweeping would only run to the cap (at a gain of exactly 1 the system is singular
 * and the sweeps never settle; they used to end at the cap with a finite, wrong count). Collatz–
 * Wielandt's lower bound holds for any nonnegative coefficients, so the unknowns need not form one
 * strongly connected component (they are one less the target). An undecided gain is left to the
 * sweeps and `finiteVisits`.
 */
function visitGain(
  structure: CompiledStructure,
  unknowns: Int32Array,
  count: number,
  localIndex: Int32Array,
): GainBounds {
  const members = unknowns.subarray(0, count);
  // Stryker disable next-line EqualityOperator: one past the end: members[count] is undefined, and a typed array keeps no such index
  for (let i = 0; i < count; i++) localIndex[members[i]!] = i;
  // Stryker disable next-line ArithmeticOperator: same answer, other work (where the bounds stop iterating: they hold wherever they stop, and an undecided gain is left to the sweeps and finiteVisits)
  const bounds = gainBounds(structure, members, localIndex, 1 - GAIN_MARGIN);
  // Stryker disable next-line EqualityOperator: one past the end, as above (the workspace left clean is tested)
  for (let i = 0; i < count; i++) localIndex[members[i]!] = -1;
  return bounds;
}

/**
 * With fan-out, reach counts expected visits, which can exceed 1 and have no finite value when
 * a fan-out cycle's gain is 1 or more: the solves then give a negative, infinite or NaN value
 * (for a nonnegative matrix of spectral radius below 1, `(I − P)⁻¹` is nonnegative, so a
 * negative value means the radius is not below 1).
 */
function finiteVisits(reach: Float64Array, unknowns: Int32Array, count: number): boolean {
  // Stryker disable next-line EqualityOperator: one past the end (unknowns[count] is a stale entry or 0, a node already judged or the first)
  for (let i = 0; i < count; i++) {
    const r = reach[unknowns[i]!]!;
    if (!(r >= 0 && r < Number.POSITIVE_INFINITY)) return false;
  }
  return true;
}

/** `r(u) = (Σ share·r(next) over edges leaving u) / (1 − share of u's self-dependencies)`. */
function singleUnknown(structure: CompiledStructure, reach: Float64Array, u: number): number {
  const { outStart, outTarget, outShare, selfShare } = structure;
  let sum = 0;
  const end = outStart[u + 1]!;
  for (let k = outStart[u]!; k < end; k++) {
    const t = outTarget[k]!;
    // Stryker disable next-line ConditionalExpression: reach[u] is still 0 while u is solved, so its self-dependencies add 0
    if (t !== u) sum += outShare[k]! * reach[t]!;
  }
  const stay = selfShare[u]!;
  // Fan-out counts visits: no clamp, and a self-dependency that sends back 1 or more is unbounded.
  if (structure.hasFanout) return stay < 1 ? sum / (1 - stay) : Number.POSITIVE_INFINITY;
  // A node whose every dependency points to itself never reaches the target, so is never solved.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
  // What the node does not keep, summed from its other shares: a self-dependency of 1e16 beside
  // one of 1 has a self share that rounds to 1, and still passes 1e-16 of what it holds on.
  const notKept = structure.shareNotKept(u);
  return notKept > 0 ? clampProbability(sum / notKept) : 0;
}

function clampProbability(p: number): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: only rounding puts a probability above 1, by an ulp or so
  return p > 1 ? 1 : Math.max(p, 0);
}

/**
 * Solves `(I − P) r = b` on the unknowns by elimination. A routing loop (shares that sum to at
 * most 1) by `solveLeakingSystem`, each diagonal the share that leaves the node (to the solved
 * nodes, to those that cannot reach the target, out of the system) plus what it passes to the
 * other unknowns, so heavy self-dependencies and weights spread over orders of magnitude keep
 * their digits. With fan-out (visits: a row may pass on more than 1) by elimination without
 * pivoting (`factorMMatrix`), as the steady state's loops: a pivot that is not positive means the
 * visits have no finite value.
 */
function solveDense(
  structure: CompiledStructure,
  reach: Float64Array,
  unknowns: Int32Array,
  n: number,
  localIndex: Int32Array,
): void {
  const { hasFanout } = structure;
  for (let i = 0; i < n; i++) localIndex[unknowns[i]!] = i;
  const b = new Float64Array(n);
  // What leaves the system at a node (an exit) never reaches the target; a dependency to a node
  // outside the unknowns brings that node's reach.
  const { offDiagonal: a, leak } = leakingSystemOf(structure, unknowns, n, localIndex, (i, share, t) => {
    b[i]! += share * reach[t]!;
  });
  let solved: boolean;
  if (!hasFanout) solved = solveLeakingSystem(a, leak, b, n);
  else {
    // I − P: 1 − the self share on the diagonal, the shares to other unknowns below 0.
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) a[i * n + j] = -a[i * n + j]!;
      a[i * n + i] = 1 - structure.selfShare[unknowns[i]!]!;
    }
    solved = factorMMatrix(a, n) && solveFactored(a, b, n);
  }
  // Stryker disable next-line EqualityOperator: one past the end: localIndex[undefined] is no index
  for (let i = 0; i < n; i++) {
    const u = unknowns[i]!;
    // Stryker disable next-line ConditionalExpression: defensive: a fan-out loop whose elimination fails has a gain of 1 or more, which visitGain finds before it is eliminated in every structure the tests and the oracle build
    if (hasFanout) reach[u] = solved ? b[i]! : Number.NaN;
    else reach[u] = solved ? clampProbability(b[i]!) : 0;
    localIndex[u] = -1;
  }
}
