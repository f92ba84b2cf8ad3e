/**
 * A system's settings: what a team knows that no source says — capacities (from load tests,
 * autoscaling limits, observed peaks) and arrivals — applied whenever the engine runs on the
 * system, kept across refreshes.
 */
import { createHash } from 'node:crypto';

export interface NodeSettings {
  capacity?: number;
  arrival?: number;
  serviceTime?: number;
  servers?: number;
  slo?: number;
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
