import type { EngineResult } from '../../lib/engine/types';

/**
 * The nodes and dependencies a request body holds, as written: what the graph shows when a run
 * gives no result (an error, the server unreachable), so a node can still be picked to fix it.
 */
export interface BareStructure {
  /** Node ids, each once, in the body's order. */
  nodes: string[];
  /** Dependencies whose two ends are among `nodes`, as `[from, to]`. */
  dependencies: Array<[string, string]>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * What can be read of a structure the engine may refuse: the nodes with a string id (a repeated
 * id once), and the dependencies between them. Anything else in it is left out, not checked:
 * the error answer says what is wrong.
 */
export function bareStructureOf(holder: Readonly<Record<string, unknown>>): BareStructure {
  const ids = new Set<string>();
  for (const node of Array.isArray(holder.nodes) ? holder.nodes : []) {
    if (isRecord(node) && typeof node.id === 'string') ids.add(node.id);
  }
  const dependencies: Array<[string, string]> = [];
  for (const dependency of Array.isArray(holder.dependencies) ? holder.dependencies : []) {
    if (!isRecord(dependency)) continue;
    const { from, to } = dependency;
    if (typeof from === 'string' && typeof to === 'string' && ids.has(from) && ids.has(to))
      dependencies.push([from, to]);
  }
  return { nodes: [...ids], dependencies };
}

/**
 * A result that says nothing: every number 0, no blockage, no events. The graph draws a bare
 * structure through it (with `withoutResult`, so no number of it is shown), laid out as the
 * structure's answer would be.
 */
export function emptyResult(structure: BareStructure): EngineResult {
  return {
    nodes: structure.nodes.map((id) => ({
      id,
      load: 0,
      inflow: 0,
      outflow: 0,
      pressure: 0,
      blocked: false,
      role: 'isolated',
    })),
    dependencies: structure.dependencies.map(([from, to]) => ({ from, to, flow: 0 })),
    primaryBlockage: null,
    events: [],
    origin: null,
    trace: [],
  };
}
