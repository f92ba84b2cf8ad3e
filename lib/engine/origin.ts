import type { CompiledStructure } from './compile';
import { type ReachWorkspace, solveReach } from './reach';
import { roundingError } from './step';
import { mostProbablePath } from './trace';
import type { Origin } from './types';

/** Contributions this close to the largest (a fraction of it) are a tie: see `findOrigin`. */
const TIE = 1e-9;

/**
 * Origin of the blockage's value and the most probable path from it. `fromArrivals`: only the
 * arrivals count (a blockage the steady state names is fed by the traffic per step, not by the
 * loads of the moment), so the contributions add up to the traffic that reaches it each step
 * (each request counted once there: its returns round a loop through it are not).
 */
export function findOrigin(
  structure: CompiledStructure,
  loads: Float64Array,
  blockage: number,
  ws: ReachWorkspace,
  fromArrivals = false,
): { origin: Origin | null; trace: string[] } {
  solveReach(structure, blockage, ws);
  // A fan-out cycle of gain 1 or more on the way from a node that holds value: its expected
  // visits, and so its contribution, are unbounded (Infinity, below), and no origin is named. A
  // loop that holds none contributes nothing, however it loops (0 × its visits).
  const { reach, reachers, reacherCount } = ws;
  const { ids, open, arrival } = structure;
  // An open structure's node also holds what arrives in the step.
  const loadOf = (u: number) => (fromArrivals ? arrival[u]! : open ? loads[u]! + arrival[u]! : loads[u]!);
  let sum = 0;
  let compensation = 0;
  let largest = 0;
  for (let i = 0; i < reacherCount; i++) {
    const u = reachers[i]!;
    const load = loadOf(u);
    const r = reach[u]!;
    // A node that holds no value contributes nothing, through unbounded visits too (0 × Infinity
    // would be NaN, and read as unbounded). A reach of 0 adds 0 either way.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: see above (a reach of 0: the same sums)
    if (!(load > 0 && r > 0)) continue;
    const contribution = load * r;
    const total = sum + contribution;
    // Visits multiply along fan-out weights, so a contribution (or their sum) can pass the
    // largest double (2 arriving at a node that calls another 1e308 times): unbounded, like the
    // visits of a fan-out loop of gain 1 or more, and named by no origin.
    if (!(total < Number.POSITIVE_INFINITY)) return { origin: null, trace: [] };
    compensation += roundingError(sum, contribution, total);
    sum = total;
    // Stryker disable next-line EqualityOperator: equal replaces equal
    if (contribution > largest) largest = contribution;
  }
  // Contributions within `TIE` of the largest are a tie, named by the smallest id: a loop's reach
  // comes from sweeps settled to about 1e-13 of itself, so nodes whose contributions are equal
  // (equal loads, each reaching the blockage for sure) differ in their last digits, and the
  // greatest of those was a node picked by rounding.
  const floor = largest - largest * TIE;
  // Stryker disable next-line UnaryOperator: a blockage always has a positive contribution (its own load or what flows in), so best is always set
  let best = -1;
  let bestContribution = 0;
  // Stryker disable next-line EqualityOperator: one past the end: reachers[reacherCount] is a node this solve did not reach, whose reach is 0, so it contributes nothing
  for (let i = 0; i < reacherCount; i++) {
    const u = reachers[i]!;
    const contribution = loadOf(u) * reach[u]!;
    // Stryker disable next-line EqualityOperator: ids are unique, so < and <= agree
    // Stryker disable next-line ConditionalExpression: a contribution of 0 is below the floor of a positive largest, which a blockage always has
    if (contribution > 0 && contribution >= floor && (best < 0 || ids[u]! < ids[best]!)) {
      bestContribution = contribution;
      best = u;
    }
  }
  // Stryker disable next-line ConditionalExpression,ObjectLiteral,ArrayDeclaration: the engine model's rule for no positive contribution, which a blockage always has (see best above)
  if (best < 0) return { origin: null, trace: [] };
  const totalContribution = sum + compensation;
  // Stryker disable next-line EqualityOperator,ConditionalExpression: caps rounding above 1; at equality the division gives 1 too
  const share = bestContribution >= totalContribution ? 1 : bestContribution / totalContribution;
  const origin: Origin = open
    ? { id: ids[best]!, load: loads[best]!, arrival: arrival[best]!, contribution: bestContribution, share }
    : { id: ids[best]!, load: loads[best]!, contribution: bestContribution, share };
  return {
    origin,
    trace: mostProbablePath(structure, best, blockage, ws),
  };
}
