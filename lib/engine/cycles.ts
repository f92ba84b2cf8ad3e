import { compareIds } from './compare-ids';
import type { CompiledStructure } from './compile';
import { sortIds } from './sort-ids';
import type { CycleEvent } from './types';

/**
 * One `cycle` event per strongly connected set of more than one node, and per node with a
 * self-dependency; `closed` when nothing leaves the set: no dependency to a node outside it and,
 * in an open structure, no exit and no fan-out node. Ordered by first node id.
 */
export function cycleEvents(structure: CompiledStructure, tick: number): CycleEvent[] {
  const { ids, outStart, outTarget, selfShare } = structure;
  const { count, start, members, componentOf } = structure.components();
  const events: CycleEvent[] = [];
  for (let c = 0; c < count; c++) {
    const first = start[c]!;
    const end = start[c + 1]!;
    if (end - first === 1 && selfShare[members[first]!] === 0) continue;
    let closed = true;
    const nodeIds: string[] = [];
    for (let m = first; m < end; m++) {
      const v = members[m]!;
      nodeIds.push(ids[v]!);
      // Value leaves an open structure's set through an exit too, and a fan-out node completes
      // what it processes (its calls are new requests): not closed.
      // By the fields, not the shares: an exit of 1e-300 beside a weight of 1e300 has a share of 0.
      if (structure.open && (structure.exit[v]! > 0 || structure.isFanout(v))) closed = false;
      for (let k = outStart[v]!; closed && k < outStart[v + 1]!; k++) {
        if (componentOf[outTarget[k]!] !== c) closed = false;
      }
    }
    sortIds(nodeIds);
    events.push({ tick, type: 'cycle', nodes: nodeIds, closed });
  }
  return events.sort((a, b) => compareIds(a.nodes[0]!, b.nodes[0]!));
}
