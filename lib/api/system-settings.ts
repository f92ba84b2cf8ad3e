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
  external?: unknown;
  [extra: string]: unknown;
}

/**
 * The structure the engine runs on: each node's capacity is its setting, else its own, else the
 * default; its arrival is its setting, else its own. The default never reaches a node marked
 * `external: true` (one the source marks outside the system, or one a format invents: X-Ray's
 * client, Kiali's `unknown`, a catalog entity named but not listed): the default is meant for the
 * user's own services, and given to the users or a third party it would make them the
 * bottleneck. A setting for such a node by id still applies, as the user asked for it.
 * Dependencies are the same array.
 */
export function applySettings<S extends { nodes: readonly unknown[]; dependencies: readonly unknown[] }>(
  structure: S,
  settings: Settings,
): { nodes: unknown[]; dependencies: readonly unknown[] } {
  const perNode = settings.nodes ?? {};
  const nodes = structure.nodes.map((value) => {
    const node = value as NodeLike;
    const own = typeof node.id === 'string' && Object.hasOwn(perNode, node.id) ? perNode[node.id] : undefined;
    // A node with servers has its own capacity, servers / serviceTime: the default is not for it.
    const fallback =
      node.external === true || node.servers !== undefined ? undefined : settings.defaultCapacity;
    const capacity = own?.capacity ?? node.capacity ?? fallback;
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
