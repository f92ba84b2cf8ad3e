/**
 * How a system's settings (`settings` of connect and `PATCH /api/systems/{id}`) apply to its
 * structure, part of the contract: the server applies them on every engine run by id, and the
 * explorer page when it opens a stored system, so its run in the browser is the same.
 */
import type { Settings } from './connect-request';

interface NodeLike {
  id: unknown;
  capacity?: unknown;
  arrival?: unknown;
  [extra: string]: unknown;
}

/**
 * The structure the engine runs on: each node's capacity is its setting, else its own, else the
 * default; its arrival is its setting, else its own. Dependencies are the same array.
 */
export function applySettings<S extends { nodes: readonly unknown[]; dependencies: readonly unknown[] }>(
  structure: S,
  settings: Settings,
): { nodes: unknown[]; dependencies: readonly unknown[] } {
  const perNode = settings.nodes ?? {};
  const nodes = structure.nodes.map((value) => {
    const node = value as NodeLike;
    const own = typeof node.id === 'string' && Object.hasOwn(perNode, node.id) ? perNode[node.id] : undefined;
    const capacity = own?.capacity ?? node.capacity ?? settings.defaultCapacity;
    const arrival = own?.arrival ?? node.arrival;
    if (capacity === node.capacity && arrival === node.arrival) return node;
    return {
      ...node,
      ...(capacity === undefined ? {} : { capacity }),
      ...(arrival === undefined ? {} : { arrival }),
    };
  });
  return { nodes, dependencies: structure.dependencies };
}
