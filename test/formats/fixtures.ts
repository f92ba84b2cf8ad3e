/** The real payloads under test/formats/fixtures/<format>/, read for the format tests, and the checks those tests share. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../lib/engine';
import { FormatError, type MappedGraph } from '../../lib/formats';

const FIXTURES = join(import.meta.dirname, 'fixtures');

/** Every `.json` file of one format's folder, parsed. */
export function fixturesIn(folder: string): Array<{ file: string; document: unknown }> {
  return readdirSync(join(FIXTURES, folder))
    .filter((file) => file.endsWith('.json'))
    .map((file) => ({ file, document: JSON.parse(readFileSync(join(FIXTURES, folder, file), 'utf8')) }));
}

/** The folders of every other format: their payloads must not be detected as `own`. */
export function otherFolders(own: string): string[] {
  return readdirSync(FIXTURES, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== own)
    .map((entry) => entry.name);
}

/** The `FormatError` that `run` throws (anything else is rethrown; nothing thrown fails). */
export function thrown(run: () => unknown): FormatError {
  try {
    run();
  } catch (error) {
    if (error instanceof FormatError) return error;
    throw error;
  }
  throw new Error('expected a FormatError, nothing was thrown');
}

/**
 * What `links` become once repeated pairs are merged: each pair once, in first-seen order, with
 * its number of copies (the merged dependency's weight).
 */
export function mergedPairs(
  links: ReadonlyArray<readonly [string, string]>,
): Array<[string, string, number]> {
  const merged = new Map<string, [string, string, number]>();
  for (const [from, to] of links) {
    const key = JSON.stringify([from, to]);
    const entry = merged.get(key);
    if (entry === undefined) merged.set(key, [from, to, 1]);
    else entry[2]++;
  }
  return [...merged.values()];
}

/** A mapped structure's dependencies as `[from, to, weight]`, the default weight 1 written out. */
export function pairsOf(
  dependencies: ReadonlyArray<{ from: string; to: string; weight?: number }>,
): Array<[string, string, number]> {
  return dependencies.map(({ from, to, weight }) => [from, to, weight ?? 1]);
}

/**
 * The first warning of every structure without traffic (unit none), spelled out here rather than
 * imported, so a change of wording in the module is a change a test sees.
 */
export const NO_TRAFFIC =
  'no traffic in the document: no node has an arrival, so every flow and throughput is 0 and there is nothing to analyze until arrivals are set (settings.nodes.<id>.arrival: what enters each entry point per step)';

/**
 * How far the rounding of the weights alone can move the steady throughputs, relative: the
 * weights are quotients of counts rounded to doubles, and on a loop whose gain is near 1 that
 * rounding moves the answer the engine solves exactly (one random document, a self-call of
 * 161/162 inside a loop fed once a window, came out 1e-9 from its counts, where the exact
 * solution of its rounded weights agrees with the engine to 1e-11). Measured by nudging every
 * weight up by one rounding's worth.
 */
export function roundingReach(
  mapped: MappedGraph,
  throughput: ReadonlyMap<string, number | undefined>,
): number {
  const nudged = analyze({
    ...mapped,
    dependencies: mapped.dependencies.map((d) => ({ ...d, weight: d.weight! * (1 + 2 ** -52) })),
  });
  let reach = 0;
  for (const node of nudged.nodes) {
    const was = throughput.get(node.id)!;
    if (was > 0) reach = Math.max(reach, Math.abs(node.throughput! - was) / was);
  }
  return reach;
}
