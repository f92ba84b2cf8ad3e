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
  serviceTime?: unknown;
  servers?: unknown;
  slo?: unknown;
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
    const serviceTime = own?.serviceTime ?? node.serviceTime;
    const servers = own?.servers ?? node.servers;
    const slo = own?.slo ?? node.slo;
    // Servers set here give the node its capacity, servers / serviceTime: the structure's own
    // capacity and the default give way (a capacity set here beside them must still agree).
    const serversSetHere =
      servers !== undefined && (own?.servers !== undefined || own?.serviceTime !== undefined);
    const fallback = node.external === true || servers !== undefined ? undefined : settings.defaultCapacity;
    const capacity = own?.capacity ?? (serversSetHere ? undefined : node.capacity) ?? fallback;
    const arrival = own?.arrival ?? node.arrival;
    if (
      capacity === node.capacity &&
      arrival === node.arrival &&
      serviceTime === node.serviceTime &&
      servers === node.servers &&
      slo === node.slo
    ) {
      return node;
    }
    const { capacity: _ownCapacity, ...rest } = node;
    return {
      ...rest,
      ...(capacity === undefined ? {} : { capacity }),
      ...(arrival === undefined ? {} : { arrival }),
      ...(serviceTime === undefined ? {} : { serviceTime }),
      ...(servers === undefined ? {} : { servers }),
      ...(slo === undefined ? {} : { slo }),
    };
  });
  return { nodes, dependencies: structure.dependencies };
}
