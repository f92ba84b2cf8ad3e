/** What the span format tests check on every real payload, and small builders of documents. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { analyze } from '../../../lib/engine';
import { type MappedGraph, parseJsonLines } from '../../../lib/formats';
import { FORMATS } from '../../../lib/formats/registry';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** Every payload of a format's folder: `.json` parsed, `.jsonl` parsed line by line. */
export function spanFixtures(folder: string): Array<{ file: string; document: unknown }> {
  return readdirSync(join(FIXTURES, folder))
    .filter((file) => file.endsWith('.json') || file.endsWith('.jsonl'))
    .map((file) => {
      const text = readFileSync(join(FIXTURES, folder, file), 'utf8');
      return { file, document: file.endsWith('.jsonl') ? parseJsonLines(text) : JSON.parse(text) };
    });
}

export function fixture(folder: string, file: string): unknown {
  return spanFixtures(folder).find((entry) => entry.file === file)!.document;
}

/** The formats that detect `document`. */
export function detecting(document: unknown): string[] {
  return FORMATS.filter((format) => format.detect(document)).map((format) => format.name);
}

/**
 * The engine's steady state reproduces what the spans count, over a window of `window` seconds:
 * every dependency carries its calls per second, and every traced service (not `external`)
 * processes its requests per second: its entry spans (the calls into it, and the requests
 * entering there) and the calls on it that only their callers' spans name (`untracedRequests`).
 */
export function expectObservedCounts(mapped: MappedGraph, window: number, sampleRate = 1): void {
  const result = analyze(mapped);
  for (const dependency of result.dependencies)
    expect(dependency.throughput, `${dependency.from} → ${dependency.to}`).toBeCloseTo(
      (dependency.callCount as number) / window / sampleRate,
      9,
    );
  for (const node of result.nodes)
    if (node.external !== true)
      expect(node.throughput, node.id).toBeCloseTo(
        ((node.entrySpans as number) + ((node.untracedRequests as number | undefined) ?? 0)) /
          window /
          sampleRate,
        9,
      );
}

export function nodeOf(mapped: MappedGraph, id: string) {
  const node = mapped.nodes.find((candidate) => candidate.id === id);
  if (node === undefined) throw new Error(`no node ${id}`);
  return node;
}

/** `from → to: weight` for every dependency. */
export function weightsOf(mapped: MappedGraph): Record<string, number | undefined> {
  return Object.fromEntries(mapped.dependencies.map((d) => [`${d.from} → ${d.to}`, d.weight]));
}

/** The time `[start, end]` intervals cover (overlaps once), for checks written apart from the module. */
export function unionLength(intervals: ReadonlyArray<readonly [bigint, bigint]>): bigint {
  const sorted = [...intervals].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let total = 0n;
  let open: [bigint, bigint] | undefined;
  for (const [start, end] of sorted) {
    if (open === undefined || start > open[1]) {
      if (open !== undefined) total += open[1] - open[0];
      open = [start, end];
    } else if (end > open[1]) open[1] = end;
  }
  if (open !== undefined) total += open[1] - open[0];
  return total;
}
