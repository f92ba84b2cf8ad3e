import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';
import { FormatError, readGraph } from '../../lib/formats';
import { nodeLink } from '../../lib/formats/node-link';
import { fixturesIn, mergedPairs, NO_TRAFFIC, otherFolders, pairsOf, thrown } from './fixtures';

const OWN = 'node-link';

const others = otherFolders(OWN);

/** The fixtures networkx wrote from undirected graphs: refused, naming `directed`. */
const UNDIRECTED = new Set([
  'networkx-3.3-node-link-data-docstring-links.json',
  'networkx-3.4-node-link-data-docstring-edges.json',
]);

describe('worked examples', () => {
  // networkx 3.3, directed: ids as they are, links source → target, nothing else added.
  it('maps a directed networkx graph', () => {
    const document = {
      directed: true,
      multigraph: false,
      graph: { name: 'shop' },
      nodes: [{ id: 'web' }, { id: 'api', tier: 2 }, { id: 'db' }],
      links: [
        { source: 'web', target: 'api' },
        { source: 'api', target: 'db', protocol: 'sql' },
      ],
    };
    expect(nodeLink.detect(document)).toBe(true);
    expect(nodeLink.toStructure(document)).toEqual({
      nodes: [{ id: 'web' }, { id: 'api', tier: 2 }, { id: 'db' }],
      dependencies: [
        { from: 'web', to: 'api' },
        { from: 'api', to: 'db', protocol: 'sql' },
      ],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });

  // D3 without ids: a node is named by `name`, else by its position; integer ends are positions.
  it('reads D3 index links as positions in nodes', () => {
    const document = {
      nodes: [{ name: 'web', group: 1 }, { name: 'api' }, { group: 3 }],
      links: [
        { source: 0, target: 1, value: 3 },
        { source: 1, target: 2 },
        { source: 'api', target: 'web' },
      ],
    };
    expect(nodeLink.toStructure(document)).toEqual({
      nodes: [
        { id: 'web', name: 'web', group: 1 },
        { id: 'api', name: 'api' },
        { id: '2', group: 3 },
      ],
      dependencies: [
        { from: 'web', to: 'api', value: 3 },
        { from: 'api', to: '2' },
        { from: 'api', to: 'web' },
      ],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });

  // Grafana's node graph: numeric-string ids, `mainStat` kept as a field, never read as traffic.
  it('maps a Grafana node graph answer without traffic', () => {
    const document = {
      nodes: [
        { id: '1', title: 'web', mainStat: '12/s', arc__ok: 1 },
        { id: '2', title: 'api', detail__zone: 'eu' },
      ],
      edges: [{ id: 'e1', source: '1', target: '2', mainStat: 12 }],
    };
    expect(nodeLink.toStructure(document)).toEqual({
      nodes: [
        { id: '1', title: 'web', mainStat: '12/s', arc__ok: 1 },
        { id: '2', title: 'api', detail__zone: 'eu' },
      ],
      dependencies: [{ from: '1', to: '2', id: 'e1', mainStat: 12 }],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });

  // networkx with `source="from", target="to"` and integer ids: ids become their decimal strings.
  it('reads from/to links and integer ids', () => {
    const document = { directed: true, nodes: [{ id: 0 }, { id: 1 }], edges: [{ from: 1, to: 0, key: 0 }] };
    expect(nodeLink.toStructure(document)).toEqual({
      nodes: [{ id: '0' }, { id: '1' }],
      dependencies: [{ from: '1', to: '0', key: 0 }],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });

  // Every node has an id: integer ends are ids first, even where they are also positions.
  it('prefers ids to positions when every node has an id', () => {
    const document = { nodes: [{ id: 2 }, { id: 1 }], links: [{ source: 1, target: 2 }] };
    expect(nodeLink.toStructure(document).dependencies).toEqual([{ from: '1', to: '2' }]);
  });

  // networkx 1.x: ids on the nodes, positions in the links; no end is an id, every end a position.
  it('reads ends that match no id as positions when all of them are', () => {
    const document = { nodes: [{ id: 'a' }, { id: 'b' }], links: [{ source: 0, target: 1 }] };
    const mapped = nodeLink.toStructure(document);
    expect(mapped.dependencies).toEqual([{ from: 'a', to: 'b' }]);
    expect(mapped.warnings).toEqual([
      NO_TRAFFIC,
      'not every end of the links is a node id (links[0].source is 0), but every one is a position in nodes, so all are read as positions, as networkx 1.x wrote them',
    ]);
  });

  // A field named like one the engine owns is kept under another name, never read as a number.
  it('renames fields the engine owns', () => {
    const document = {
      nodes: [
        { id: 'a', load: 'high', capacity: 3 },
        { id: 'b', load: 7, original_load: 'x' },
      ],
      links: [{ source: 'a', target: 'b', weight: 2, flow: 'x', from: 'elsewhere' }],
    };
    const mapped = nodeLink.toStructure(document);
    expect(mapped.nodes).toEqual([
      { id: 'a', original_load: 'high', original_capacity: 3 },
      { id: 'b', original_original_load: 7, original_load: 'x' },
    ]);
    expect(mapped.dependencies).toEqual([
      { from: 'a', to: 'b', original_weight: 2, original_flow: 'x', original_from: 'elsewhere' },
    ]);
    expect(mapped.warnings).toEqual([
      NO_TRAFFIC,
      '1 node has a field "load", a name the engine owns; it is kept as "original_load"',
      '1 node has a field "capacity", a name the engine owns; it is kept as "original_capacity"',
      '1 node has a field "load", a name the engine owns; it is kept as "original_original_load"',
      '1 link has a field "weight", a name the engine owns; it is kept as "original_weight"',
      '1 link has a field "flow", a name the engine owns; it is kept as "original_flow"',
      '1 link has a field "from", a name the engine owns; it is kept as "original_from"',
    ]);
    expect(() => compileStructure(mapped)).not.toThrow();
  });

  // A multigraph's parallel links are one dependency of weight 2: a's value splits as it would
  // over two separate copies.
  it('merges repeated pairs and says so', () => {
    const document = {
      directed: true,
      multigraph: true,
      nodes: [{ id: 'a' }, { id: 'b' }],
      links: [
        { source: 'a', target: 'b', key: 0 },
        { source: 'a', target: 'b', key: 1 },
      ],
    };
    const mapped = nodeLink.toStructure(document);
    expect(mapped.dependencies).toEqual([{ from: 'a', to: 'b', key: 0, weight: 2 }]);
    expect(mapped.warnings).toEqual([
      NO_TRAFFIC,
      "1 link repeats a pair seen before (links[1] repeats links[0]): merged into one dependency per pair whose weight is its number of copies, which gives the engine's numbers of separate copies; the first copy's fields are kept",
    ]);
  });

  // `__proto__` from parsed JSON is an ordinary field on the mapped node, never a prototype.
  it('keeps a __proto__ field as data', () => {
    const document = JSON.parse('{"nodes":[{"id":"a","__proto__":{"polluted":true}}],"links":[]}');
    const [node] = nodeLink.toStructure(document).nodes;
    expect(Object.getPrototypeOf(node)).toBe(Object.prototype);
    expect(Object.hasOwn(node!, '__proto__')).toBe(true);
    expect(JSON.stringify(node)).toBe('{"id":"a","__proto__":{"polluted":true}}');
  });
});

describe('real fixtures', () => {
  const fixtures = fixturesIn(OWN);

  it('has every fixture of the folder', () => {
    expect(fixtures.map(({ file }) => file)).toEqual([
      'd3-v1-miserables-index-links.json',
      'grafana-nodegraph-api-plugin-python-example-data.json',
      'grafana-nodegraph-api-plugin-readme-data.json',
      'networkx-3.3-node-link-data-docstring-directed-from-to.json',
      'networkx-3.3-node-link-data-docstring-links.json',
      'networkx-3.4-node-link-data-docstring-edges.json',
      'networkx-doc-force-index-links.json',
    ]);
  });

  it.each(fixtures)(
    '$file: detected, mapped, accepted by the engine (or refused as undirected)',
    ({ file, document }) => {
      expect(nodeLink.detect(document)).toBe(true);
      if (UNDIRECTED.has(file)) {
        const error = thrown(() => nodeLink.toStructure(document));
        expect(error.path).toBe('directed');
        expect(thrown(() => readGraph(document)).path).toBe('directed');
        return;
      }
      const mapped = nodeLink.toStructure(document);
      expect(mapped.unit).toBe('none');
      expect(mapped.nodes.every((node) => node.arrival === undefined && node.fanout === undefined)).toBe(
        true,
      );
      expect(mapped.dependencies.every((dependency) => dependency.weight === undefined)).toBe(true);
      const compiled = compileStructure(mapped);
      expect(compiled.nodeCount).toBe(mapped.nodes.length);
      expect(readGraph(document)).toEqual({ format: 'node-link', ...mapped });
    },
  );

  // Les Misérables: 77 characters named by `name`, 254 links by position, `value` kept.
  it('maps the D3 miserables graph by position', () => {
    const { document } = fixtures.find(({ file }) => file.startsWith('d3-v1-miserables'))!;
    const mapped = nodeLink.toStructure(document);
    expect(mapped.nodes).toHaveLength(77);
    expect(mapped.dependencies).toHaveLength(254);
    expect(mapped.nodes[0]).toEqual({ id: 'Myriel', name: 'Myriel', group: 1 });
    expect(mapped.dependencies[0]).toEqual({ from: 'Napoleon', to: 'Myriel', value: 1 });
  });

  // The plugin's example: edge id "2" twice and title "Service3" twice; nodes are told by `id`.
  it('identifies Grafana nodes by id, not title, and keeps repeated edge ids', () => {
    const { document } = fixtures.find(({ file }) => file.startsWith('grafana-nodegraph-api-plugin-python'))!;
    const mapped = nodeLink.toStructure(document);
    expect(mapped.nodes.map((node) => [node.id, node.title])).toEqual([
      ['1', 'Service1'],
      ['2', 'Service2'],
      ['3', 'Service3'],
      ['4', 'Service3'],
      ['5', 'Service4'],
    ]);
    expect(mapped.dependencies.map(({ from, to, id }) => `${id}:${from}→${to}`)).toEqual([
      '1:1→2',
      '2:2→3',
      '2:1→4',
      '3:3→5',
      '4:2→5',
    ]);
  });

  it('maps networkx from/to with integer ids', () => {
    const { document } = fixtures.find(({ file }) => file.includes('directed-from-to'))!;
    expect(nodeLink.toStructure(document)).toEqual({
      nodes: [{ id: '0' }, { id: '1' }],
      dependencies: [{ from: '1', to: '0' }],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });
});

describe('detection', () => {
  it("has other formats' fixtures to check against", () => {
    expect(others).toEqual(expect.arrayContaining(['backstage', 'cytoscape', 'jgf', 'xray']));
  });

  for (const folder of others) {
    it.each(fixturesIn(folder))(`does not detect ${folder}/$file`, ({ document }) => {
      expect(nodeLink.detect(document)).toBe(false);
    });
  }

  // Shapes of other formats close to node-link's: Cytoscape elements, the engine's own, JGF.
  it('leaves neighbouring shapes alone', () => {
    expect(nodeLink.detect({ nodes: [{ data: { id: 'a' } }], edges: [] })).toBe(false);
    expect(nodeLink.detect({ nodes: [], edges: [{ data: { source: 'a', target: 'b' } }] })).toBe(false);
    expect(nodeLink.detect({ nodes: [{ id: 'a' }], links: [], dependencies: [] })).toBe(false);
    expect(nodeLink.detect({ graph: { nodes: [{ id: 'a' }], edges: [] } })).toBe(false);
    expect(nodeLink.detect({ nodes: ['a'], links: [] })).toBe(false);
    expect(nodeLink.detect({ nodes: [{ id: 'a' }] })).toBe(false);
    expect(nodeLink.detect([{ id: 'a' }])).toBe(false);
  });

  // An empty answer (Grafana's node graph with nothing to show) is node-link's, in either spelling.
  it('detects empty graphs', () => {
    expect(nodeLink.detect({ nodes: [], edges: [] })).toBe(true);
    expect(nodeLink.detect({ nodes: [], links: [] })).toBe(true);
    expect(nodeLink.toStructure({ nodes: [], edges: [] })).toEqual({
      nodes: [],
      dependencies: [],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof nodeLink.detect(value)).toBe('boolean');
      }),
      { numRuns: 300 },
    );
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no');
        },
      },
    );
    expect(nodeLink.detect(hostile)).toBe(false);
  });
});

describe('malformed documents', () => {
  const two = [{ id: 'a' }, { id: 'b' }];
  const cases: Array<[string, unknown, string, string]> = [
    ['not an object', [1], '', 'must be an object with "nodes" and "links" arrays, got an array'],
    [
      'undirected',
      { directed: false, nodes: two, links: [] },
      'directed',
      'is false: an undirected graph does not say which way work flows, and the engine needs that direction',
    ],
    [
      'directed not a boolean',
      { directed: 'yes', nodes: two, links: [] },
      'directed',
      'must be true or false, got the string "yes"',
    ],
    ['nodes not an array', { nodes: {}, links: [] }, 'nodes', 'must be an array, got an object'],
    [
      'links not an array',
      { nodes: two, links: {} },
      'links',
      'must be an array of links (under "links" or "edges"), got an object',
    ],
    [
      'no links at all',
      { nodes: two },
      'edges',
      'must be an array of links (under "links" or "edges"), got nothing',
    ],
    [
      'links and edges both',
      { nodes: two, links: [], edges: [] },
      'edges',
      'is given beside "links": send the links under one of the two names',
    ],
    [
      'a node not an object',
      { nodes: [{ id: 'a' }, 'b'], links: [] },
      'nodes[1]',
      'must be an object, got the string "b"',
    ],
    [
      'an empty id',
      { nodes: [{ id: 'a' }, { id: '' }], links: [] },
      'nodes[1].id',
      'must be a non-empty string or a number, got the string ""',
    ],
    [
      'an id that is not text',
      { nodes: [{ id: true }], links: [] },
      'nodes[0].id',
      'must be a non-empty string or a number, got true',
    ],
    [
      'a null id',
      { nodes: [{ id: null }], links: [] },
      'nodes[0].id',
      'must be a non-empty string or a number, got null',
    ],
    [
      'a name that is not text',
      { nodes: [{ name: ['x'] }], links: [] },
      'nodes[0].name',
      'must be a non-empty string or a number, got an array',
    ],
    [
      'a duplicate id, as number and string',
      { nodes: [{ id: 1 }, { id: '1' }], links: [] },
      'nodes[1].id',
      'duplicate id "1" (first used by nodes[0])',
    ],
    [
      'a position taken as a name',
      { nodes: [{ name: '1' }, {}], links: [] },
      'nodes[1]',
      'has no id or name, and its position "1" is already the id of nodes[0]',
    ],
    [
      'a link not an object',
      { nodes: two, links: [{ source: 'a', target: 'b' }, 3] },
      'links[1]',
      'must be an object, got 3',
    ],
    [
      'an end that is no id and no position',
      {
        nodes: two,
        links: [
          { source: 'a', target: 'b' },
          { source: 'a', target: 'zz' },
        ],
      },
      'links[1].target',
      'must be a node id or a position in nodes, got the string "zz"',
    ],
    [
      'an end that is a boolean',
      { nodes: two, edges: [{ source: true, target: 'b' }] },
      'edges[0].source',
      'must be a node id or a position in nodes, got true',
    ],
    [
      'a missing end',
      { nodes: two, links: [{ target: 'b' }] },
      'links[0].source',
      'must be a node id or a position in nodes, got nothing',
    ],
    [
      'a missing to',
      { nodes: two, edges: [{ from: 'a' }] },
      'edges[0].target',
      'must be a node id or a position in nodes, got nothing',
    ],
    [
      'an object end (a D3 simulation dump)',
      { nodes: two, links: [{ source: { id: 'a' }, target: 'b' }] },
      'links[0].source',
      'must be a node id or a position in nodes, got an object',
    ],
    [
      'a position past the end (D3)',
      { nodes: [{ name: 'a' }, { name: 'b' }], links: [{ source: 0, target: 2 }] },
      'links[0].target',
      'must be a node id or a position in nodes, got 2',
    ],
    [
      'a negative position (D3)',
      { nodes: [{}, {}], links: [{ source: -1, target: 0 }] },
      'links[0].source',
      'must be a node id or a position in nodes, got -1',
    ],
    [
      'a fractional position (D3)',
      { nodes: [{}, {}], links: [{ source: 0.5, target: 0 }] },
      'links[0].source',
      'must be a node id or a position in nodes, got 0.5',
    ],
    [
      'ids and positions mixed',
      { nodes: two, links: [{ source: 'a', target: 1 }] },
      'links[0].target',
      '1 is no node id, and the ends cannot all be read as positions in nodes instead (links[0].source is the string "a")',
    ],
    [
      'a fixture-sized id is quoted short',
      { nodes: [{ id: 'x'.repeat(100) }, { id: 'x'.repeat(100) }], links: [] },
      'nodes[1].id',
      `duplicate id "${'x'.repeat(40)}…" (first used by nodes[0])`,
    ],
  ];

  it.each(cases)('%s', (_, document, path, message) => {
    const error = thrown(() => nodeLink.toStructure(document));
    expect(error.path).toBe(path);
    expect(error.message).toBe(path === '' ? message : `${path}: ${message}`);
  });

  // A broken end in a real fixture is named by its path there.
  it("names the path of a real fixture's link when its end is broken", () => {
    const { document } = fixturesIn(OWN).find(({ file }) => file.startsWith('d3-v1-miserables'))!;
    const broken = structuredClone(document) as { links: Array<Record<string, unknown>> };
    broken.links[200]!.target = 77;
    expect(thrown(() => nodeLink.toStructure(broken)).path).toBe('links[200].target');
    expect(thrown(() => readGraph(broken)).path).toBe('links[200].target');
  });
});

describe('properties', () => {
  /**
   * Field names a source may use, the engine's among them, with any JSON value (not `id`,
   * `name`, `source`, `target`, which say what a node or link is, nor Cytoscape's `data`).
   */
  const extraEntry = fc.tuple(
    fc.constantFrom(
      'label',
      'value',
      'weight',
      'load',
      'capacity',
      'arrival',
      'fanout',
      'exit',
      'from',
      'to',
      'flow',
      'role',
      'x',
      '__proto__',
      'original_load',
    ),
    fc.jsonValue(),
  );
  const extras = fc.array(extraEntry, { maxLength: 4 });

  /**
   * A random node-link document and the ids its links must map to. Node ids are distinct strings
   * or numbers (or absent: D3), links reference nodes by id or position, in either spelling.
   */
  const documentArbitrary = fc
    .record({
      count: fc.integer({ min: 1, max: 12 }),
      naming: fc.constantFrom('id-string', 'id-number', 'name', 'position'),
      spelling: fc.constantFrom('links', 'edges'),
      ends: fc.constantFrom<[string, string]>(['source', 'target'], ['from', 'to']),
    })
    .chain(({ count, naming, spelling, ends }) =>
      fc.record({
        naming: fc.constant(naming),
        spelling: fc.constant(spelling),
        ends: fc.constant(ends),
        names: fc.uniqueArray(
          fc.oneof(fc.string({ minLength: 1, maxLength: 6 }), fc.integer({ min: -5, max: 50 })),
          {
            minLength: count,
            maxLength: count,
            selector: (name) => String(name),
          },
        ),
        nodeExtras: fc.array(extras, { minLength: count, maxLength: count }),
        links: fc.array(fc.tuple(fc.nat({ max: count - 1 }), fc.nat({ max: count - 1 }), extras), {
          maxLength: 30,
        }),
      }),
    );

  it('maps random documents to structures the engine accepts, each link to the nodes it names', () => {
    fc.assert(
      fc.property(
        documentArbitrary,
        ({ naming, spelling, ends: [sourceKey, targetKey], names, nodeExtras, links }) => {
          const ids = names.map((name, i) => (naming === 'position' ? String(i) : String(name)));
          const nodes = names.map((name, i) => {
            const fields = Object.fromEntries(nodeExtras[i]!);
            if (naming === 'id-string') return { id: String(name), ...fields };
            if (naming === 'id-number') return { id: name, ...fields };
            if (naming === 'name') return { name, ...fields };
            return fields;
          });
          const byPosition = naming === 'name' || naming === 'position';
          // Parsed, as a source's answer is: `__proto__` arrives as an own field.
          const document = JSON.parse(
            JSON.stringify({
              directed: true,
              nodes,
              [spelling]: links.map(([from, to, fields]) => ({
                ...Object.fromEntries(fields),
                [sourceKey]: byPosition ? from : names[from],
                [targetKey]: byPosition ? to : names[to],
              })),
            }),
          );
          expect(nodeLink.detect(document)).toBe(true);
          const mapped = nodeLink.toStructure(document);
          expect(mapped.nodes.map((node) => node.id)).toEqual(ids);
          const expected = mergedPairs(links.map(([from, to]) => [ids[from]!, ids[to]!] as const));
          expect(pairsOf(mapped.dependencies)).toEqual(expected);
          const compiled = compileStructure(mapped);
          expect(compiled.nodeCount).toBe(ids.length);
          expect(compiled.dependencyCount).toBe(expected.length);
          expect(compiled.open).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('either maps a random near-miss document to a structure the engine accepts or throws a FormatError', () => {
    const end = fc.oneof(fc.nat({ max: 6 }), fc.constantFrom('a', 'b', 'c', '1'), fc.jsonValue());
    const near = fc.record(
      {
        directed: fc.oneof(fc.boolean(), fc.jsonValue()),
        nodes: fc.array(
          fc.oneof(
            fc.record(
              { id: fc.oneof(fc.constantFrom('a', 'b', 'c', 1, 2), fc.jsonValue()) },
              { requiredKeys: [] },
            ),
            fc.record({ name: fc.constantFrom('a', 'b', 'c') }),
            fc.jsonValue(),
          ),
          { maxLength: 6 },
        ),
        links: fc.array(
          fc.oneof(fc.record({ source: end, target: end }, { requiredKeys: [] }), fc.jsonValue()),
          {
            maxLength: 6,
          },
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(near, (document) => {
        let mapped: ReturnType<typeof nodeLink.toStructure>;
        try {
          mapped = nodeLink.toStructure(document);
        } catch (error) {
          expect(error).toBeInstanceOf(FormatError);
          return;
        }
        expect(() => compileStructure(mapped)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});

// The steady state's own fields (a node's `lost`, a dependency's `throughput`) are the engine's
// too: a document's fields of those names are kept under another name, not dropped from the answer.
describe('the steady state fields', () => {
  it('renames lost and throughput', () => {
    const mapped = nodeLink.toStructure({
      nodes: [{ id: 'a', lost: 3 }, { id: 'b' }],
      links: [{ source: 'a', target: 'b', throughput: 12 }],
    });
    expect(mapped.nodes[0]).toEqual({ id: 'a', original_lost: 3 });
    expect(mapped.dependencies).toEqual([{ from: 'a', to: 'b', original_throughput: 12 }]);
    expect(mapped.warnings).toContain(
      '1 node has a field "lost", a name the engine owns; it is kept as "original_lost"',
    );
  });
});
