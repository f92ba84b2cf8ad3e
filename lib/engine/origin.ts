import type { CompiledStructure } from './compile';
import { type ReachWorkspace, solveReach } from './reach';
import { mostProbablePath } from './trace';
import type { Origin } from './types';

/** Origin of the blockage's value and the most probable path from it. */
export function findOrigin(
  structure: CompiledStructure,
  loads: Float64Array,
  blockage: number,
  ws: ReachWorkspace,
): { origin: Origin | null; trace: string[] } {
  solveReach(structure, blockage, ws);
  const { reach, reachers, reacherCount } = ws;
  const { ids } = structure;
  let sum = 0;
  let compensation = 0;
  let best = -1;
  let bestContribution = 0;
  for (let i = 0; i < reacherCount; i++) {
    const u = reachers[i]!;
    const load = loads[u]!;
    const r = reach[u]!;
    if (!(load > 0 && r > 0)) continue;
    const contribution = load * r;
    // Knuth's TwoSum, as in the step: the exact rounding error of `sum + contribution` whichever is larger.
    const total = sum + contribution;
    const part = total - sum;
    compensation += sum - (total - part) + (contribution - part);
    sum = total;
    if (contribution > bestContribution || (contribution === bestContribution && ids[u]! < ids[best]!)) {
      bestContribution = contribution;
      best = u;
    }
  }
  if (best < 0) return { origin: null, trace: [] };
  const totalContribution = sum + compensation;
  const share = bestContribution >= totalContribution ? 1 : bestContribution / totalContribution;
  return {
    origin: { id: ids[best]!, load: loads[best]!, contribution: bestContribution, share },
    trace: mostProbablePath(structure, best, blockage, ws),
  };
}
