import type { CompiledStructure } from './compile';
import { type ReachWorkspace, solveReach } from './reach';
import { roundingError } from './step';
import { mostProbablePath } from './trace';
import type { Origin } from './types';

/**
 * Origin of the blockage's value and the most probable path from it. `fromArrivals`: only the
 * arrivals count (a blockage the steady state names is fed by the traffic per step, not by the
 * loads of the moment), so the contributions add up to its steady throughput.
 */
export function findOrigin(
  structure: CompiledStructure,
  loads: Float64Array,
  blockage: number,
  ws: ReachWorkspace,
  fromArrivals = false,
): { origin: Origin | null; trace: string[] } {
  solveReach(structure, blockage, ws);
  // A fan-out cycle of gain 1 or more on the way: expected visits, and so contributions, are unbounded.
  if (ws.unbounded) return { origin: null, trace: [] };
  const { reach, reachers, reacherCount } = ws;
  const { ids, open, arrival } = structure;
  let sum = 0;
  let compensation = 0;
  // Stryker disable next-line UnaryOperator: a blockage always has a positive contribution (its own load or what flows in), so best is always set
  let best = -1;
  let bestContribution = 0;
  for (let i = 0; i < reacherCount; i++) {
    const u = reachers[i]!;
    // An open structure's node also holds what arrives in the step.
    const load = fromArrivals ? arrival[u]! : open ? loads[u]! + arrival[u]! : loads[u]!;
    const r = reach[u]!;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: saves work; a zero contribution neither adds to the total nor wins a tie (no node is before index -1)
    if (!(load > 0 && r > 0)) continue;
    const contribution = load * r;
    const total = sum + contribution;
    compensation += roundingError(sum, contribution, total);
    sum = total;
    // Stryker disable next-line EqualityOperator: ids are unique, so < and <= agree
    if (contribution > bestContribution || (contribution === bestContribution && ids[u]! < ids[best]!)) {
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
