import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';
import { FormatError, readGraph } from '../../lib/formats';
import { jgf } from '../../lib/formats/jgf';
import { fixturesIn, mergedPairs, NO_TRAFFIC, otherFolders, pairsOf, thrown } from './fixtures';

const OWN = 'jgf';

const others = otherFolders(OWN);

function fixture(name: string): unknown {
  return fixturesIn(OWN).find(({ file }) => file === name)!.document;
}

describe('worked examples', () => {
  // Version 1: nodes in an array; label, metadata and relation kept, `metadata.value` not traffic.
  it('maps a v1 graph', () => {
    const document = {
      graph: {
        directed: true,
        label: 'shop',
        nodes: [
          { id: 'web', label: 'Web' },
          { id: 'db', metadata: { tier: 'data' } },
        ],
        edges: [{ source: 'web', target: 'db', relation: 'reads', metadata: { value: 3 } }],
      },
    };
    expect(jgf.detect(document)).toBe(true);
    expect(jgf.toStructure(document)).toEqual({
      nodes: [
        { id: 'web', label: 'Web' },
        { id: 'db', metadata: { tier: 'data' } },
      ],
      dependencies: [{ from: 'web', to: 'db', relation: 'reads', metadata: { value: 3 } }],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });

  // Version 2: nodes keyed by id, in key order; `directed` left out means directed.
  it('maps a v2 graph with object nodes', () => {
    const document = {
      graph: {
        nodes: { web: { label: 'Web' }, 'Keyser Söze': {}, db: { metadata: { tier: 'data' } } },
        edges: [
          { source: 'web', target: 'db', directed: true },
          { source: 'Keyser Söze', target: 'web', id: 'e2', label: 'calls' },
        ],
      },
    };
    expect(jgf.toStructure(document)).toEqual({
      nodes: [{ id: 'web', label: 'Web' }, { id: 'Keyser Söze' }, { id: 'db', metadata: { tier: 'data' } }],
      dependencies: [
        { from: 'web', to: 'db', directed: true },
        { from: 'Keyser Söze', to: 'web', id: 'e2', label: 'calls' },
      ],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });

  // `graphs`: the first is read, and the warning counts the others.
  it('reads the first of several graphs and says how many were left out', () => {
    const graph = (id: string) => ({ nodes: [{ id }], edges: [] });
    const mapped = jgf.toStructure({ graphs: [graph('a'), graph('b'), graph('c')] });
    expect(mapped.nodes).toEqual([{ id: 'a' }]);
    expect(mapped.warnings).toEqual([
      NO_TRAFFIC,
      'only graphs[0] is read; 2 other graphs (graphs[1] to graphs[2]) are left out',
    ]);
    expect(jgf.toStructure({ graphs: [graph('a'), graph('b')] }).warnings).toEqual([
      NO_TRAFFIC,
      'only graphs[0] is read; 1 other graph (graphs[1]) is left out',
    ]);
  });

  // A Flux resource graph is a containment tree, not a call graph: a cluster contains a node,
  // the node two cores (Flux marks each edge metadata.subsystem "containment"). Read as calls,
  // work would flow from the cluster to the cores; no traffic is read either way. Two warnings,
  // once each: nothing to analyze until arrivals are set, and the tree read as calls.
  it('says when the edges are a containment tree, read as calls', () => {
    const resource = (id: string, type: string) => ({ id, metadata: { type, name: `${type}0` } });
    const contains = (source: string, target: string) => ({
      source,
      target,
      metadata: { subsystem: 'containment' },
    });
    const mapped = jgf.toStructure({
      graph: {
        nodes: [
          resource('0', 'cluster'),
          resource('1', 'node'),
          resource('2', 'core'),
          resource('3', 'core'),
        ],
        edges: [contains('0', '1'), contains('1', '2'), contains('1', '3')],
      },
    });
    expect(mapped.dependencies.map(({ from, to }) => [from, to])).toEqual([
      ['0', '1'],
      ['1', '2'],
      ['1', '3'],
    ]);
    expect(mapped.warnings).toEqual([
      NO_TRAFFIC,
      'all 3 edges in graph.edges say containment or hierarchy, not calls (graph.edges[0], metadata.subsystem "containment"): they were read as calls all the same, work flowing from each edge\'s source to its target, so an answer follows the tree, not requests',
    ]);
  });

  // JGF leaves `relation` free text: its containment and hierarchy words count whatever their
  // case and separators (part_of, isPartOf, "member of"), as does Flux's newer
  // metadata.name { containment: "contains" }; a call ("reads") does not. A graph `type` of
  // "tree" says it of every edge.
  it('finds containment in relations, Flux metadata and the graph type', () => {
    const graph = (edges: unknown[], extra: Record<string, unknown> = {}) => ({
      graph: { ...extra, nodes: { a: {}, b: {}, c: {}, d: {}, e: {} }, edges },
    });
    const warningOf = (document: unknown) =>
      jgf.toStructure(document).warnings.filter((warning) => warning.includes('containment'));
    expect(
      warningOf(
        graph([
          { source: 'a', target: 'b', relation: 'reads' },
          { source: 'c', target: 'a', relation: 'isPartOf' },
          { source: 'd', target: 'a', relation: 'member of' },
          { source: 'a', target: 'e', metadata: { name: { containment: 'contains' } } },
        ]),
      ),
    ).toEqual([
      '3 of the 4 edges in graph.edges say containment or hierarchy, not calls (graph.edges[1], relation "isPartOf"): they were read as calls all the same, work flowing from each edge\'s source to its target, so an answer follows the tree, not requests',
    ]);
    expect(warningOf(graph([{ source: 'a', target: 'b', relation: 'part_of' }]))).toEqual([
      'the one edge in graph.edges says containment or hierarchy, not calls (graph.edges[0], relation "part_of"): they were read as calls all the same, work flowing from each edge\'s source to its target, so an answer follows the tree, not requests',
    ]);
    expect(
      warningOf({
        graphs: [
          graph(
            [
              { source: 'a', target: 'b' },
              { source: 'b', target: 'c' },
            ],
            { type: 'Tree' },
          ).graph,
        ],
      }),
    ).toEqual([
      'all 2 edges in graphs[0].edges say containment or hierarchy, not calls (graphs[0].type "Tree"): they were read as calls all the same, work flowing from each edge\'s source to its target, so an answer follows the tree, not requests',
    ]);
    expect(warningOf(graph([{ source: 'a', target: 'b', relation: 'calls' }]))).toEqual([]);
  });

  // Numbers are ids too: a v1 node id 7 and an edge end 7 meet as "7".
  it('reads numeric ids as their decimal strings', () => {
    const document = { graph: { nodes: [{ id: 7 }, { id: '8' }], edges: [{ source: '7', target: 8 }] } };
    expect(jgf.toStructure(document).dependencies).toEqual([{ from: '7', to: '8' }]);
  });

  // Hyperedges beside edges are left out, with a warning; the edges are read.
  it('leaves hyperedges beside edges out', () => {
    const document = {
      graph: {
        nodes: { a: {}, b: {} },
        edges: [{ source: 'a', target: 'b' }],
        hyperedges: [{ source: ['a'], target: ['b'] }],
      },
    };
    const mapped = jgf.toStructure(document);
    expect(mapped.dependencies).toEqual([{ from: 'a', to: 'b' }]);
    expect(mapped.warnings).toEqual([
      NO_TRAFFIC,
      'graph.hyperedges: 1 hyperedge left out (only "edges" are read)',
    ]);
  });

  // A field named like one the engine owns is kept under another name; so is a v2 node's own `id`.
  it('renames fields the engine owns', () => {
    const document = {
      graph: {
        nodes: { a: { id: 'other', capacity: 'big' }, b: { pressure: 1 } },
        edges: [{ source: 'a', target: 'b', weight: 0, to: 'x' }],
      },
    };
    const mapped = jgf.toStructure(document);
    expect(mapped.nodes).toEqual([
      { id: 'a', original_id: 'other', original_capacity: 'big' },
      { id: 'b', original_pressure: 1 },
    ]);
    expect(mapped.dependencies).toEqual([{ from: 'a', to: 'b', original_weight: 0, original_to: 'x' }]);
    expect(mapped.warnings).toEqual([
      NO_TRAFFIC,
      '1 node has a field "id", a name the engine owns; it is kept as "original_id"',
      '1 node has a field "capacity", a name the engine owns; it is kept as "original_capacity"',
      '1 node has a field "pressure", a name the engine owns; it is kept as "original_pressure"',
      '1 edge has a field "weight", a name the engine owns; it is kept as "original_weight"',
      '1 edge has a field "to", a name the engine owns; it is kept as "original_to"',
    ]);
    expect(() => compileStructure(mapped)).not.toThrow();
  });

  // A repeated pair (the car graph's nissan → japan twice) is one dependency of weight 2, with a
  // warning: the engine's numbers are those of two copies.
  it('merges repeated pairs and says so', () => {
    const document = {
      graph: {
        nodes: [{ id: 'nissan' }, { id: 'japan' }],
        edges: [
          { source: 'nissan', target: 'japan', relation: 'country_of_origin' },
          { source: 'nissan', target: 'japan', relation: 'country_of_origin' },
        ],
      },
    };
    const mapped = jgf.toStructure(document);
    expect(mapped.dependencies).toEqual([
      { from: 'nissan', to: 'japan', relation: 'country_of_origin', weight: 2 },
    ]);
    expect(mapped.warnings).toEqual([
      NO_TRAFFIC,
      "1 edge repeats a pair seen before (graph.edges[1] repeats graph.edges[0]): merged into one dependency per pair whose weight is its number of copies, which gives the engine's numbers of separate copies; the first copy's fields are kept",
    ]);
  });

  // JGF v1 allows `"directed": null`: not said, so directed.
  it('reads a null directed as directed', () => {
    expect(jgf.toStructure({ graph: { directed: null, nodes: [], edges: [] } }).nodes).toEqual([]);
  });
});

describe('real fixtures', () => {
  const fixtures = fixturesIn(OWN);

  it('has every fixture of the folder', () => {
    expect(fixtures.map(({ file }) => file)).toEqual([
      'jgf-v1-car-graphs.json',
      'jgf-v1-usual-suspects.json',
      'jgf-v2-car-graphs.json',
      'jgf-v2-empty.json',
      'jgf-v2-hyper-directed.json',
      'jgf-v2-les-miserables.json',
      'jgf-v2-usual-suspects.json',
    ]);
  });

  it.each(fixtures)(
    '$file: detected, mapped, accepted by the engine (or refused as a hypergraph)',
    ({ file, document }) => {
      expect(jgf.detect(document)).toBe(true);
      if (file === 'jgf-v2-hyper-directed.json') {
        const error = thrown(() => jgf.toStructure(document));
        expect(error.path).toBe('graph.hyperedges');
        expect(error.message).toBe(
          'graph.hyperedges: are not read: a hyperedge joins sets of nodes and the engine\'s dependencies join two; send the graph with "edges"',
        );
        expect(thrown(() => readGraph(document)).path).toBe('graph.hyperedges');
        return;
      }
      const mapped = jgf.toStructure(document);
      expect(mapped.unit).toBe('none');
      expect(mapped.dependencies.every((dependency) => dependency.weight === undefined)).toBe(true);
      const compiled = compileStructure(mapped);
      expect(compiled.nodeCount).toBe(mapped.nodes.length);
      expect(compiled.open).toBe(false);
      expect(readGraph(document)).toEqual({ format: 'jgf', ...mapped });
    },
  );

  // The same example in v1 (node array) and v2 (node object) maps to the same structure.
  it.each(['car-graphs', 'usual-suspects'])('maps %s alike in v1 and v2', (name) => {
    const v1 = jgf.toStructure(fixture(`jgf-v1-${name}.json`));
    const v2 = jgf.toStructure(fixture(`jgf-v2-${name}.json`));
    expect(v2).toEqual(v1);
  });

  it('reads the first car graph and leaves the second out', () => {
    expect(jgf.toStructure(fixture('jgf-v2-car-graphs.json'))).toEqual({
      nodes: [
        { id: 'nissan', label: 'Nissan' },
        { id: 'infiniti', label: 'Infiniti' },
        { id: 'toyota', label: 'Toyota' },
        { id: 'lexus', label: 'Lexus' },
      ],
      dependencies: [
        { from: 'nissan', to: 'infiniti', relation: 'has_luxury_division' },
        { from: 'toyota', to: 'lexus', relation: 'has_luxury_division' },
      ],
      unit: 'none',
      warnings: [NO_TRAFFIC, 'only graphs[0] is read; 1 other graph (graphs[1]) is left out'],
    });
  });

  it('keeps non-ASCII ids and metadata', () => {
    expect(jgf.toStructure(fixture('jgf-v1-usual-suspects.json'))).toEqual({
      nodes: [
        { id: 'Roger Kint', label: 'Roger Kint', metadata: { nickname: 'Verbal', actor: 'Kevin Spacey' } },
        { id: 'Keyser Söze', label: 'Keyser Söze', metadata: { actor: 'Kevin Spacey' } },
      ],
      dependencies: [{ from: 'Roger Kint', to: 'Keyser Söze', relation: 'is' }],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });

  it('maps the les miserables graph with its values kept in metadata', () => {
    const mapped = jgf.toStructure(fixture('jgf-v2-les-miserables.json'));
    expect(mapped.nodes).toHaveLength(77);
    expect(mapped.dependencies).toHaveLength(254);
    expect(mapped.dependencies[0]).toEqual({ from: 'Napoleon', to: 'Myriel', metadata: { value: 1 } });
  });

  it('maps the empty graph to an empty structure', () => {
    expect(jgf.toStructure(fixture('jgf-v2-empty.json'))).toEqual({
      nodes: [],
      dependencies: [],
      unit: 'none',
      warnings: [NO_TRAFFIC],
    });
  });
});

describe('detection', () => {
  it("has other formats' fixtures to check against", () => {
    expect(others).toEqual(expect.arrayContaining(['backstage', 'cytoscape', 'node-link', 'xray']));
  });

  for (const folder of others) {
    it.each(fixturesIn(folder))(`does not detect ${folder}/$file`, ({ document }) => {
      expect(jgf.detect(document)).toBe(false);
    });
  }

  // The engine's own `graph` container, networkx's `graph` attributes, and graphs without nodes.
  it('leaves neighbouring shapes alone', () => {
    expect(jgf.detect({ graph: { nodes: [], dependencies: [] } })).toBe(false);
    expect(
      jgf.detect({ data: { nodes: [], dependencies: [] }, graph: { nodes: [{ id: 'a' }], edges: [] } }),
    ).toBe(false);
    expect(jgf.detect({ directed: true, graph: {}, nodes: [], links: [] })).toBe(false);
    expect(jgf.detect({ nodes: [], graph: { nodes: [], edges: [] } })).toBe(false);
    expect(jgf.detect({ graph: { edges: [] } })).toBe(false);
    expect(jgf.detect({ graph: { nodes: 'a' } })).toBe(false);
    expect(jgf.detect({ graphs: [] })).toBe(false);
    expect(jgf.detect({ graphs: [{ edges: [] }] })).toBe(false);
    expect(jgf.detect([{ graph: { nodes: [] } }])).toBe(false);
  });

  it('detects both versions under graph and graphs', () => {
    expect(jgf.detect({ graph: { nodes: [] } })).toBe(true);
    expect(jgf.detect({ graph: { nodes: {} } })).toBe(true);
    expect(jgf.detect({ graphs: [{ nodes: {} }, 'anything'] })).toBe(true);
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof jgf.detect(value)).toBe('boolean');
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
    expect(jgf.detect({ graph: hostile })).toBe(false);
  });
});

describe('malformed documents', () => {
  const nodes = [{ id: 'a' }, { id: 'b' }];
  const cases: Array<[string, unknown, string, string]> = [
    [
      'not an object',
      'graph',
      '',
      'must be an object with a "graph" object or a "graphs" array, got the string "graph"',
    ],
    ['no graph', {}, '', 'must have a "graph" object or a "graphs" array'],
    ['graphs not an array', { graphs: {} }, 'graphs', 'must be an array of graphs, got an object'],
    ['graphs empty', { graphs: [] }, 'graphs', 'is empty: there is no graph to read'],
    ['graph not an object', { graph: [] }, 'graph', 'must be a graph object, got an array'],
    ['first graph not an object', { graphs: [3] }, 'graphs[0]', 'must be a graph object, got 3'],
    [
      'undirected graph',
      { graph: { directed: false, nodes, edges: [] } },
      'graph.directed',
      'is false: an undirected graph does not say which way work flows, and the engine needs that direction',
    ],
    [
      'undirected first graph',
      { graphs: [{ directed: false, nodes, edges: [] }] },
      'graphs[0].directed',
      'is false: an undirected graph does not say which way work flows, and the engine needs that direction',
    ],
    [
      'undirected edge',
      { graph: { nodes, edges: [{ source: 'a', target: 'b', directed: false }] } },
      'graph.edges[0].directed',
      'is false: an undirected graph does not say which way work flows, and the engine needs that direction',
    ],
    [
      'directed not a boolean',
      { graph: { directed: 'no', nodes } },
      'graph.directed',
      'must be true or false, got the string "no"',
    ],
    [
      'nodes neither array nor object',
      { graph: { nodes: 'a' } },
      'graph.nodes',
      'must be an array (version 1) or an object keyed by id (version 2), got the string "a"',
    ],
    [
      'a v1 node not an object',
      { graph: { nodes: [{ id: 'a' }, null] } },
      'graph.nodes[1]',
      'must be an object, got null',
    ],
    [
      'a v1 node without id',
      { graph: { nodes: [{ label: 'a' }] } },
      'graph.nodes[0].id',
      'must be a non-empty string or a number, got nothing',
    ],
    [
      'a v1 empty id',
      { graph: { nodes: [{ id: '' }] } },
      'graph.nodes[0].id',
      'must be a non-empty string or a number, got the string ""',
    ],
    [
      'a v1 duplicate id',
      { graph: { nodes: [{ id: 'a' }, { id: 'b' }, { id: 'a' }] } },
      'graph.nodes[2].id',
      'duplicate id "a" (first used by graph.nodes[0])',
    ],
    [
      'a v2 empty key',
      { graph: { nodes: { '': {} } } },
      'graph.nodes[""]',
      'is keyed by an empty id: a node id must be non-empty',
    ],
    [
      'a v2 node not an object',
      { graph: { nodes: { a: 'A' } } },
      'graph.nodes.a',
      'must be an object, got the string "A"',
    ],
    [
      'a v2 node with an odd key',
      { graph: { nodes: { 'Keyser Söze': [] } } },
      'graph.nodes["Keyser Söze"]',
      'must be an object, got an array',
    ],
    [
      // Kept whole up to 256 characters, as every path keeps a key: two ARNs of one account differ at their ends.
      'a v2 node with a long key',
      { graph: { nodes: { [`arn:aws:lambda:eu-west-1:123456789012:function:${'x'.repeat(40)}-b`]: [] } } },
      `graph.nodes["arn:aws:lambda:eu-west-1:123456789012:function:${'x'.repeat(40)}-b"]`,
      'must be an object, got an array',
    ],
    ['edges not an array', { graph: { nodes, edges: {} } }, 'graph.edges', 'must be an array, got an object'],
    ['an edge not an object', { graph: { nodes, edges: [1] } }, 'graph.edges[0]', 'must be an object, got 1'],
    [
      'an unknown target',
      { graph: { nodes, edges: [{ source: 'a', target: 'x' }] } },
      'graph.edges[0].target',
      'unknown node "x"',
    ],
    [
      'a source that is no id',
      { graph: { nodes, edges: [{ source: true, target: 'a' }] } },
      'graph.edges[0].source',
      'must be a node id, got true',
    ],
    [
      'a missing source',
      { graph: { nodes, edges: [{ target: 'a' }] } },
      'graph.edges[0].source',
      'must be a node id, got nothing',
    ],
    [
      'only hyperedges',
      { graph: { nodes: { a: {} }, hyperedges: [{ source: ['a'], target: ['a'] }] } },
      'graph.hyperedges',
      'are not read: a hyperedge joins sets of nodes and the engine\'s dependencies join two; send the graph with "edges"',
    ],
    [
      'an unknown node in the second graph... of which only the first is read, so in graphs[0]',
      { graphs: [{ nodes, edges: [{ source: 'a', target: 'c' }] }, { nodes: [{ id: 'c' }] }] },
      'graphs[0].edges[0].target',
      'unknown node "c"',
    ],
  ];

  it.each(cases)('%s', (_, document, path, message) => {
    const error = thrown(() => jgf.toStructure(document));
    expect(error.path).toBe(path);
    expect(error.message).toBe(path === '' ? message : `${path}: ${message}`);
  });

  it("names the path of a real fixture's edge when its end is broken", () => {
    const broken = structuredClone(fixture('jgf-v2-les-miserables.json')) as {
      graph: { edges: Array<Record<string, unknown>> };
    };
    broken.graph.edges[100]!.source = 'Javert ';
    expect(thrown(() => readGraph(broken)).message).toBe('graph.edges[100].source: unknown node "Javert "');
  });
});

describe('properties', () => {
  /** Field names a source may use, the engine's among them, with any JSON value. */
  const extras = fc.array(
    fc.tuple(
      fc.constantFrom(
        'label',
        'metadata',
        'relation',
        'weight',
        'load',
        'arrival',
        'fanout',
        'id',
        'from',
        'flow',
        '__proto__',
      ),
      fc.jsonValue(),
    ),
    { maxLength: 4 },
  );

  const documentArbitrary = fc
    .record({
      count: fc.integer({ min: 0, max: 12 }),
      version: fc.constantFrom(1, 2),
      container: fc.constantFrom('graph', 'graphs'),
    })
    .chain(({ count, version, container }) =>
      fc.record({
        version: fc.constant(version),
        container: fc.constant(container),
        ids: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), {
          minLength: count,
          maxLength: count,
        }),
        nodeExtras: fc.array(extras, { minLength: count, maxLength: count }),
        edges:
          count === 0
            ? fc.constant([] as Array<[number, number, Array<[string, unknown]>]>)
            : fc.array(fc.tuple(fc.nat({ max: count - 1 }), fc.nat({ max: count - 1 }), extras), {
                maxLength: 30,
              }),
        directed: fc.constantFrom(true, undefined),
      }),
    );

  it('maps random v1 and v2 documents to structures the engine accepts, each edge to its nodes', () => {
    fc.assert(
      fc.property(documentArbitrary, ({ version, container, ids, nodeExtras, edges, directed }) => {
        const fieldsOf = (i: number) =>
          Object.fromEntries(nodeExtras[i]!.filter(([key]) => version === 2 || key !== 'id'));
        const nodes =
          version === 1
            ? ids.map((id, i) => ({ ...fieldsOf(i), id }))
            : Object.fromEntries(ids.map((id, i) => [id, fieldsOf(i)]));
        const graph = {
          directed,
          nodes,
          edges: edges.map(([from, to, fields]) => ({
            ...Object.fromEntries(fields.filter(([key]) => key !== 'directed')),
            source: ids[from],
            target: ids[to],
          })),
        };
        const document = JSON.parse(
          JSON.stringify(container === 'graph' ? { graph } : { graphs: [graph, { nodes: [] }] }),
        );
        expect(jgf.detect(document)).toBe(true);
        const mapped = jgf.toStructure(document);
        // v2 lists nodes in the object's key order (integer-like keys first, as JSON.parse keeps them).
        const read = container === 'graph' ? document.graph : document.graphs[0];
        const order = version === 1 ? ids : Object.keys(read.nodes);
        expect(mapped.nodes.map((node) => node.id)).toEqual(order);
        const expected = mergedPairs(edges.map(([from, to]) => [ids[from]!, ids[to]!] as const));
        expect(pairsOf(mapped.dependencies)).toEqual(expected);
        const compiled = compileStructure(mapped);
        expect(compiled.dependencyCount).toBe(expected.length);
        expect(compiled.open).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('either maps a random near-miss document to a structure the engine accepts or throws a FormatError', () => {
    const id = fc.oneof(fc.constantFrom('a', 'b', '1', 1), fc.jsonValue());
    const graph = fc.record(
      {
        directed: fc.oneof(fc.boolean(), fc.jsonValue()),
        nodes: fc.oneof(
          fc.array(fc.oneof(fc.record({ id }, { requiredKeys: [] }), fc.jsonValue()), { maxLength: 5 }),
          fc.dictionary(
            fc.constantFrom('a', 'b', '', '1', 'x y'),
            fc.oneof(fc.record({ label: fc.string() }), fc.jsonValue()),
          ),
          fc.jsonValue(),
        ),
        edges: fc.oneof(
          fc.array(
            fc.oneof(
              fc.record({ source: id, target: id, directed: fc.jsonValue() }, { requiredKeys: [] }),
              fc.jsonValue(),
            ),
            {
              maxLength: 5,
            },
          ),
          fc.jsonValue(),
        ),
        hyperedges: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    const near = fc.oneof(
      fc.record({ graph }),
      fc.record({ graphs: fc.array(fc.oneof(graph, fc.jsonValue()), { maxLength: 3 }) }),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(near, (document) => {
        let mapped: ReturnType<typeof jgf.toStructure>;
        try {
          mapped = jgf.toStructure(document);
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
