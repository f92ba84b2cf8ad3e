/**
 * The engine's own format: `{ nodes, dependencies }` at the top level or inside one of the
 * containers `payload`, `system`, `record`, `data`, `graph` (top-level `nodes` first, then the
 * first container, in that order, holding a `nodes` array). Always tried first. It detects only
 * a holder with both arrays, so a JSON Graph Format document (`graph` with `nodes` and `edges`)
 * is left to its own format; the engine itself checks every element afterwards.
 */
import type { DependencyInput, NodeInput } from '../engine/types';
import { FormatError, type GraphFormat } from './types';

const CONTAINERS = ['payload', 'system', 'record', 'data', 'graph'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object holding the structure, as the engine's request rules find it. */
function holderOf(document: unknown): Record<string, unknown> | undefined {
  if (!isObject(document)) return undefined;
  if (Object.hasOwn(document, 'nodes')) return document;
  for (const key of CONTAINERS) {
    const candidate = document[key];
    if (isObject(candidate) && Array.isArray(candidate.nodes)) return candidate;
  }
  return undefined;
}

export const native: GraphFormat = {
  name: 'native',
  detect(document) {
    const holder = holderOf(document);
    return holder !== undefined && Array.isArray(holder.nodes) && Array.isArray(holder.dependencies);
  },
  toStructure(document) {
    const holder = holderOf(document);
    if (holder === undefined)
      throw new FormatError('', 'no "nodes" array at the top level or in a container');
    if (!Array.isArray(holder.nodes)) throw new FormatError('nodes', 'must be an array');
    if (!Array.isArray(holder.dependencies)) throw new FormatError('dependencies', 'must be an array');
    return {
      nodes: holder.nodes as NodeInput[],
      dependencies: holder.dependencies as DependencyInput[],
      unit: 'as-sent',
      warnings: [],
    };
  },
};
