/**
 * docs/connect.md's worked examples, format by format: reading each example's source document
 * gives exactly the structure the page shows, and, where the source has traffic, the engine's
 * steady throughput is the calls the page says each service processes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../lib/engine';
import { FORMAT_NAMES, readGraph } from '../../lib/formats';

const page = readFileSync(join(import.meta.dirname, '../../docs/connect.md'), 'utf8');
const section = page.slice(
  page.indexOf('### Worked examples, format by format'),
  page.indexOf('### Capacities and arrivals: settings'),
);
const examples = section
  .split(/^#### /m)
  .slice(1)
  .map((part) => {
    const name = /^`([^`]+)`/.exec(part)![1]!;
    const blocks = [...part.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => JSON.parse(match[1]!));
    return { name, blocks };
  });

describe('docs/connect.md worked examples', () => {
  it('has one example per format but the engine own, each a source and its structure', () => {
    expect(examples.map((example) => example.name)).toEqual(FORMAT_NAMES.filter((name) => name !== 'native'));
    for (const example of examples) expect(example.blocks, example.name).toHaveLength(2);
  });

  it.each(examples.map((example) => [example.name, example]))(
    '%s reads as the page shows',
    (_name, example) => {
      const [source, shown] = example.blocks;
      const read = readGraph(source);
      expect({
        format: read.format,
        unit: read.unit,
        nodes: read.nodes,
        dependencies: read.dependencies,
        warnings: read.warnings,
      }).toEqual(shown);
    },
  );

  // The throughputs the prose states.
  it.each([
    ['dependency-links', { frontend: 300, checkout: 100, catalog: 350, payment: 100 }],
    [
      'cytoscape',
      {
        unknown: 30,
        'bookinfo/productpage/v1': 20,
        'bookinfo/details/v1': 10,
        'bookinfo/reviews/v2': 20,
        'bookinfo/ratings': 10,
        'bookinfo/mysql/v1': 0,
      },
    ],
    ['xray', { web: 10, scorekeep: 10, 'scorekeep-game': 20 }],
    ['otlp-traces', { checkout: 25, payments: 25, postgres: 25 }],
    ['jaeger-traces', { frontend: 10, search: 20 }],
    ['zipkin-spans', { web: 12.5, api: 12.5, redis: 12.5 }],
    ['prometheus', { user: 12, frontend: 10, api: 17, db: 34 }],
  ] as const)('%s: the steady throughputs the page states', (name, expected) => {
    const example = examples.find((candidate) => candidate.name === name)!;
    const result = analyze(readGraph(example.blocks[0]));
    const throughputs = Object.fromEntries(result.nodes.map((node) => [node.id, node.throughput]));
    for (const [id, value] of Object.entries(expected)) expect(throughputs[id], id).toBeCloseTo(value, 9);
  });
});
