/**
 * A system's settings: what a team knows that no source says — capacities (from load tests,
 * autoscaling limits, observed peaks) and arrivals — applied whenever the engine runs on the
 * system, kept across refreshes.
 */
import { createHash } from 'node:crypto';

export interface NodeSettings {
  capacity?: number;
  arrival?: number;
}

export interface SystemSettings {
  /** The capacity of every node that has none of its own (in the structure or below). */
  defaultCapacity?: number;
  /** Per node id. */
  nodes?: Record<string, NodeSettings>;
}

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
  settings: SystemSettings,
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

/** Ids the settings name that the structure does not hold, in the settings' order. */
export function unknownSettingsIds(
  structure: { nodes: readonly unknown[] },
  settings: SystemSettings,
): string[] {
  const ids = new Set<unknown>(structure.nodes.map((node) => (node as NodeLike).id));
  return Object.keys(settings.nodes ?? {}).filter((id) => !ids.has(id));
}

/** A short fingerprint of settings, for cache keys: equal settings, equal key. */
export function settingsKey(settings: SystemSettings | undefined): string {
  if (settings === undefined) return '';
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16);
}
