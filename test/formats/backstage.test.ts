import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileStructure } from '../../lib/engine';
import { FormatError, readGraph } from '../../lib/formats';
import { backstage } from '../../lib/formats/backstage';
import { fixturesIn, NO_TRAFFIC, otherFolders, thrown } from './fixtures';

const OWN = 'backstage';

const others = otherFolders(OWN);

function fixture(name: string): unknown {
  return fixturesIn(OWN).find(({ file }) => file === name)!.document;
}

const API_VERSION = 'backstage.io/v1alpha1';

describe('worked examples', () => {
  // A short ref (`resource:artists-db`) and its relation (`resource:default/artists-db`) are one
  // dependency; the resource is not in the document, so it becomes an external node.
  it('maps short refs, merges them with relations, and adds an external node', () => {
    const document = [
      {
        apiVersion: API_VERSION,
        kind: 'Component',
        metadata: { name: 'artist-lookup', title: 'Artist Lookup', description: 'not kept' },
        spec: {
          type: 'service',
          lifecycle: 'experimental',
          owner: 'team-a',
          dependsOn: ['resource:artists-db', 'Component:default/Artist-Web'],
        },
        relations: [
          { type: 'dependsOn', targetRef: 'resource:default/artists-db' },
          { type: 'ownedBy', targetRef: 'group:default/team-a' },
        ],
      },
      {
        apiVersion: API_VERSION,
        kind: 'Component',
        metadata: { name: 'Artist-Web' },
        spec: { type: 'website', lifecycle: 'production', owner: 'team-a', system: 'portal' },
      },
    ];
    expect(backstage.detect(document)).toBe(true);
    expect(backstage.toStructure(document)).toEqual({
      nodes: [
        {
          id: 'component:default/artist-lookup',
          kind: 'Component',
          name: 'artist-lookup',
          title: 'Artist Lookup',
          type: 'service',
          lifecycle: 'experimental',
          owner: 'team-a',
        },
        {
          id: 'component:default/artist-web',
          kind: 'Component',
          name: 'Artist-Web',
          type: 'website',
          lifecycle: 'production',
          owner: 'team-a',
          system: 'portal',
        },
        { id: 'resource:default/artists-db', kind: 'resource', name: 'artists-db', external: true },
      ],
      dependencies: [
        { from: 'component:default/artist-lookup', to: 'resource:default/artists-db' },
        { from: 'component:default/artist-lookup', to: 'component:default/artist-web' },
      ],
      unit: 'none',
      warnings: [
        NO_TRAFFIC,
        '1 entity named in dependencies is not in the document (first: "resource:default/artists-db"); each is a node of its own, with external: true',
      ],
    });
  });

  // A ref without a namespace takes the entity's; without a kind it is a component, with a warning.
  // `by-refs` answers `null` for a ref it did not find: left out, with a warning.
  it('reads the by-query answer with namespaces, kindless refs and null items', () => {
    const document = {
      items: [
        {
          kind: 'Component',
          metadata: { name: 'billing', namespace: 'Ops' },
          spec: { dependsOn: ['ledger'] },
        },
        null,
        { kind: 'Component', metadata: { name: 'ledger', namespace: 'ops' } },
      ],
      totalItems: 3,
      pageInfo: {},
    };
    expect(backstage.detect(document)).toBe(true);
    expect(backstage.toStructure(document)).toEqual({
      nodes: [
        { id: 'component:ops/billing', kind: 'Component', name: 'billing' },
        { id: 'component:ops/ledger', kind: 'Component', name: 'ledger' },
      ],
      dependencies: [{ from: 'component:ops/billing', to: 'component:ops/ledger' }],
      unit: 'none',
      warnings: [
        NO_TRAFFIC,
        '1 null item in items (refs the catalog did not find) left out',
        '1 entity ref without a kind is read as a component (first: items[0].spec.dependsOn[0])',
      ],
    });
  });

  // In a catalog file, `dependsOn:` followed by `- component: auth-service` (a space after the
  // colon) is a list of one object, { component: 'auth-service' }, to YAML. It means the ref
  // `component:auth-service` and reads exactly as that string does: same kind, the entity's
  // namespace, one dependency with the string form of the same ref; a namespace in the value
  // counts too. The compound form { kind, namespace?, name } reads the same way.
  it('reads { <kind>: "[<namespace>/]<name>" } refs as the string <kind>:[<namespace>/]<name>', () => {
    const document = [
      {
        kind: 'Component',
        metadata: { name: 'checkout', namespace: 'shop' },
        spec: {
          dependsOn: [
            { component: 'auth-service' },
            'component:auth-service',
            { Resource: 'ops/orders-db' },
            { kind: 'API', name: 'payments' },
          ],
          dependencyOf: [{ system: 'storefront' }],
        },
        relations: [{ type: 'dependsOn', target: { component: 'auth-service' } }],
      },
      { kind: 'Component', metadata: { name: 'auth-service', namespace: 'shop' } },
    ];
    const mapped = backstage.toStructure(document);
    expect(mapped.dependencies).toEqual([
      { from: 'component:shop/checkout', to: 'component:shop/auth-service' },
      { from: 'component:shop/checkout', to: 'resource:ops/orders-db' },
      { from: 'component:shop/checkout', to: 'api:shop/payments' },
      { from: 'system:shop/storefront', to: 'component:shop/checkout' },
    ]);
    expect(mapped.nodes.map((node) => node.id)).toEqual([
      'component:shop/checkout',
      'component:shop/auth-service',
      'resource:ops/orders-db',
      'api:shop/payments',
      'system:shop/storefront',
    ]);
    // Every ref had its kind: nothing was read as a component by default.
    expect(mapped.warnings).toEqual([
      NO_TRAFFIC,
      '3 entities named in dependencies are not in the document (first: "resource:ops/orders-db"); each is a node of its own, with external: true',
    ]);
  });

  // `dependencyOf` (spec or relation) points the other way; the older `target` object is read too.
  it('reads dependencyOf the other way round, and relation targets as objects', () => {
    const document = [
      {
        kind: 'Resource',
        metadata: { name: 'db' },
        spec: { dependencyOf: ['component:api'] },
        relations: [
          { type: 'dependencyOf', target: { kind: 'Component', namespace: 'default', name: 'api' } },
          { type: 'dependencyOf', targetRef: 'component:default/worker' },
        ],
      },
      {
        kind: 'Component',
        metadata: { name: 'api' },
        relations: [{ type: 'dependsOn', target: { kind: 'Resource', name: 'db' } }],
      },
    ];
    const mapped = backstage.toStructure(document);
    expect(mapped.dependencies).toEqual([
      { from: 'component:default/api', to: 'resource:default/db' },
      { from: 'component:default/worker', to: 'resource:default/db' },
    ]);
    expect(mapped.nodes.at(-1)).toEqual({
      id: 'component:default/worker',
      kind: 'component',
      name: 'worker',
      external: true,
    });
  });

  // A single entity, as `GET /entities/by-name/…` answers: one node, its refs as externals.
  it('maps a single entity', () => {
    const document = {
      apiVersion: API_VERSION,
      kind: 'API',
      metadata: { name: 'Petstore', namespace: 'external-systems' },
      spec: { dependsOn: ['internal/streetlights', { kind: 'Group', name: 'aegis-imports/pet' }] },
    };
    const mapped = backstage.toStructure(document);
    expect(mapped.nodes.map((node) => node.id)).toEqual([
      'api:external-systems/petstore',
      'component:internal/streetlights',
      'group:external-systems/aegis-imports/pet',
    ]);
    expect(mapped.dependencies).toHaveLength(2);
    expect(() => compileStructure(mapped)).not.toThrow();
  });

  // Backstage's parse: a colon after the namespace's slash belongs to the name.
  it('parses refs as Backstage does', () => {
    const document = [
      {
        kind: 'Component',
        metadata: { name: 'a' },
        spec: { dependsOn: ['default/foo:bar', 'component:ns/foo:bar'] },
      },
    ];
    expect(backstage.toStructure(document).nodes.map((node) => node.id)).toEqual([
      'component:default/a',
      'component:default/foo:bar',
      'component:ns/foo:bar',
    ]);
  });
});

describe('real fixtures', () => {
  const fixtures = fixturesIn(OWN);

  it('has every fixture of the folder', () => {
    expect(fixtures.map(({ file }) => file)).toEqual([
      'backstage-catalog-client-test-get-entities-response.json',
      'backstage-catalog-pages-test-entity-artist-lookup.json',
      'backstage-docs-api-entities-by-query-response.json',
      'backstage-docs-descriptor-format-entity-artist-web.json',
    ]);
  });

  it.each(fixtures)('$file: detected, mapped, accepted by the engine', ({ document }) => {
    expect(backstage.detect(document)).toBe(true);
    const mapped = backstage.toStructure(document);
    expect(mapped.unit).toBe('none');
    expect(mapped.dependencies.every((dependency) => dependency.weight === undefined)).toBe(true);
    const compiled = compileStructure(mapped);
    expect(compiled.nodeCount).toBe(mapped.nodes.length);
    expect(compiled.open).toBe(false);
    expect(readGraph(document)).toEqual({ format: 'backstage', ...mapped });
  });

  // The catalog's processed entity: `dependsOn` and its relation are one dependency, on an
  // external resource; `apiConsumedBy`, `ownedBy`, `partOf` are not dependencies.
  it('maps the processed artist-lookup entity', () => {
    expect(backstage.toStructure(fixture('backstage-catalog-pages-test-entity-artist-lookup.json'))).toEqual({
      nodes: [
        {
          id: 'component:default/artist-lookup',
          kind: 'Component',
          name: 'artist-lookup',
          type: 'service',
          lifecycle: 'experimental',
          owner: 'team-a',
          system: 'artist-engagement-portal',
        },
        { id: 'resource:default/artists-db', kind: 'resource', name: 'artists-db', external: true },
      ],
      dependencies: [{ from: 'component:default/artist-lookup', to: 'resource:default/artists-db' }],
      unit: 'none',
      warnings: [
        NO_TRAFFIC,
        '1 entity named in dependencies is not in the document (first: "resource:default/artists-db"); each is a node of its own, with external: true',
      ],
    });
  });

  // No `spec`, `apiVersion: "1"`, mixed-case names in a namespace: nodes without dependencies.
  it('maps the catalog client entities without spec', () => {
    const mapped = backstage.toStructure(fixture('backstage-catalog-client-test-get-entities-response.json'));
    expect(mapped.nodes).toEqual([
      { id: 'component:test1/test2', kind: 'Component', name: 'Test2' },
      { id: 'component:test1/test1', kind: 'Component', name: 'Test1' },
    ]);
    expect(mapped.dependencies).toEqual([]);
  });
});

describe('detection', () => {
  it("has other formats' fixtures to check against", () => {
    expect(others).toEqual(expect.arrayContaining(['cytoscape', 'jgf', 'node-link', 'xray']));
  });

  for (const folder of others) {
    it.each(fixturesIn(folder))(`does not detect ${folder}/$file`, ({ document }) => {
      expect(backstage.detect(document)).toBe(false);
    });
  }

  it('detects an empty by-query page, and null items before an entity', () => {
    expect(backstage.detect({ items: [], totalItems: 0, pageInfo: {} })).toBe(true);
    expect(backstage.detect({ items: [null, { kind: 'Component', metadata: { name: 'a' } }] })).toBe(true);
  });

  it('leaves shapes without an entity alone', () => {
    expect(backstage.detect([])).toBe(false);
    expect(backstage.detect({ items: [] })).toBe(false);
    expect(backstage.detect({ items: {} })).toBe(false);
    expect(backstage.detect([{ kind: 'Component' }])).toBe(false);
    expect(backstage.detect([{ metadata: { name: 'a' } }])).toBe(false);
    expect(backstage.detect({ kind: 'Component', metadata: { name: 'a' }, nodes: [] })).toBe(false);
    expect(backstage.detect([{ parent: 'a', child: 'b', callCount: 1 }])).toBe(false);
    expect(backstage.detect('Component')).toBe(false);
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof backstage.detect(value)).toBe('boolean');
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
    expect(backstage.detect([hostile])).toBe(false);
  });
});

describe('malformed documents', () => {
  const entity = (name: string, extra: Record<string, unknown> = {}) => ({
    kind: 'Component',
    metadata: { name },
    ...extra,
  });
  const cases: Array<[string, unknown, string, string]> = [
    [
      'not an entity at all',
      5,
      '',
      'must be a catalog entity, an array of entities or { "items": [...] }, got 5',
    ],
    ['items not an array', { items: {} }, 'items', 'must be an array of entities, got an object'],
    ['an element not an object', [entity('a'), 3], '[1]', 'must be an entity object, got 3'],
    ['null in a bare array', [entity('a'), null], '[1]', 'must be an entity object, got null'],
    ['no kind', [{ metadata: { name: 'a' } }], '[0].kind', 'must be a non-empty string, got nothing'],
    [
      'metadata not an object',
      [{ kind: 'Component', metadata: 'a' }],
      '[0].metadata',
      'must be an object, got the string "a"',
    ],
    [
      'no metadata.name',
      { items: [entity('a'), { kind: 'Component', metadata: {} }] },
      'items[1].metadata.name',
      'must be a non-empty string, got nothing',
    ],
    [
      'no metadata.name, single entity',
      { kind: 'Component', metadata: { title: 'A' } },
      'metadata.name',
      'must be a non-empty string, got nothing',
    ],
    [
      'an empty namespace',
      [{ kind: 'Component', metadata: { name: 'a', namespace: '' } }],
      '[0].metadata.namespace',
      'must be a non-empty string, got the string ""',
    ],
    [
      'the same entity twice, in another case',
      [entity('a'), entity('B'), { kind: 'component', metadata: { name: 'A', namespace: 'default' } }],
      '[2].metadata.name',
      'duplicate entity "component:default/a" (first at [0])',
    ],
    ['spec not an object', [entity('a', { spec: [] })], '[0].spec', 'must be an object, got an array'],
    [
      'dependsOn not an array',
      [entity('a', { spec: { dependsOn: 'b' } })],
      '[0].spec.dependsOn',
      'must be an array of entity refs, got the string "b"',
    ],
    [
      'a ref that is a number',
      [entity('a', { spec: { dependsOn: [3] } })],
      '[0].spec.dependsOn[0]',
      'must be an entity ref ("[<kind>:][<namespace>/]<name>", { kind?, namespace?, name } or { <kind>: "[<namespace>/]<name>" }), got 3',
    ],
    [
      'a ref with an empty name',
      [entity('a', { spec: { dependsOn: ['component:b', 'resource:'] } })],
      '[0].spec.dependsOn[1]',
      'must be an entity ref of the form [<kind>:][<namespace>/]<name>, got the string "resource:"',
    ],
    [
      'a ref with an empty namespace',
      [entity('a', { spec: { dependencyOf: ['component:/b'] } })],
      '[0].spec.dependencyOf[0]',
      'must be an entity ref of the form [<kind>:][<namespace>/]<name>, got the string "component:/b"',
    ],
    // The ref itself is named, with the keys it has: not a "name" field it lacks.
    [
      'a compound ref without a name',
      [entity('a', { spec: { dependsOn: [{ kind: 'Resource', namespace: 'ops' }] } })],
      '[0].spec.dependsOn[0]',
      'must be an entity ref ("[<kind>:][<namespace>/]<name>", { kind?, namespace?, name } or { <kind>: "[<namespace>/]<name>" }), got an object with the keys "kind", "namespace" and no "name"',
    ],
    [
      'an object ref of two keys, neither a field of the compound form',
      [entity('a', { spec: { dependsOn: [{ component: 'auth', resource: 'db' }] } })],
      '[0].spec.dependsOn[0]',
      'must be an entity ref ("[<kind>:][<namespace>/]<name>", { kind?, namespace?, name } or { <kind>: "[<namespace>/]<name>" }), got an object with the keys "component", "resource"',
    ],
    [
      'an empty object ref',
      [entity('a', { spec: { dependencyOf: [{}] } })],
      '[0].spec.dependencyOf[0]',
      'must be an entity ref ("[<kind>:][<namespace>/]<name>", { kind?, namespace?, name } or { <kind>: "[<namespace>/]<name>" }), got an empty object',
    ],
    [
      'a single-key ref whose value is not a string',
      [entity('a', { spec: { dependsOn: [{ component: ['auth'] }] } })],
      '[0].spec.dependsOn[0].component',
      'must be "[<namespace>/]<name>", the ref of a "component" (its kind is the key), got an array',
    ],
    [
      'a single-key ref with an empty name',
      [entity('a', { spec: { dependsOn: [{ Resource: 'ops/' }] } })],
      '[0].spec.dependsOn[0].Resource',
      'must be "[<namespace>/]<name>", the ref of a "Resource" (its kind is the key), got the string "ops/"',
    ],
    [
      'a single key that is no kind',
      [entity('a', { spec: { dependsOn: [{ 'component:default': 'auth' }] } })],
      '[0].spec.dependsOn[0]',
      'must be an entity ref ("[<kind>:][<namespace>/]<name>", { kind?, namespace?, name } or { <kind>: "[<namespace>/]<name>" }), got an object with the key "component:default"',
    ],
    [
      'relations not an array',
      [entity('a', { relations: {} })],
      '[0].relations',
      'must be an array, got an object',
    ],
    [
      'a relation not an object',
      [entity('a', { relations: [{ type: 'ownedBy', targetRef: 'group:x' }, 'b'] })],
      '[0].relations[1]',
      'must be an object, got the string "b"',
    ],
    [
      'a dependsOn relation without a target',
      [entity('a', { relations: [{ type: 'dependsOn' }] })],
      '[0].relations[0].targetRef',
      'must be an entity ref ("[<kind>:][<namespace>/]<name>", { kind?, namespace?, name } or { <kind>: "[<namespace>/]<name>" }), got nothing',
    ],
    [
      'an old-style target with a bad name',
      { items: [entity('a', { relations: [{ type: 'dependsOn', target: { kind: 'Resource', name: 5 } }] })] },
      'items[0].relations[0].target.name',
      'must be a non-empty string, got 5',
    ],
  ];

  it.each(cases)('%s', (_, document, path, message) => {
    const error = thrown(() => backstage.toStructure(document));
    expect(error.path).toBe(path);
    expect(error.message).toBe(path === '' ? message : `${path}: ${message}`);
  });

  // Relations of other types are not read, so their shape is not checked either.
  it('ignores other relation types whatever their target', () => {
    const mapped = backstage.toStructure([entity('a', { relations: [{ type: 'ownedBy' }, { type: 7 }] })]);
    expect(mapped.dependencies).toEqual([]);
  });

  it("names the path of a real fixture's entity when its name is broken", () => {
    const broken = structuredClone(fixture('backstage-docs-api-entities-by-query-response.json')) as {
      items: Array<{ metadata: Record<string, unknown> }>;
    };
    broken.items[0]!.metadata.name = '';
    expect(thrown(() => readGraph(broken)).path).toBe('items[0].metadata.name');
  });
});

describe('properties', () => {
  const KINDS = ['Component', 'Resource', 'API', 'System'] as const;
  const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_.-]{0,6}$/);
  const namespace = fc.option(fc.constantFrom('default', 'ops', 'Team-A'), { nil: undefined });

  /** Per dependency: a present entity (by index) or an external one, and how the ref is written. */
  const dependency = fc.record({
    target: fc.oneof(
      fc.record({ entity: fc.nat() }),
      fc.record({ kind: fc.constantFrom(...KINDS), namespace, name }),
    ),
    spelling: fc.constantFrom('full', 'upper', 'short', 'compound', 'relation', 'dependencyOf'),
  });

  const catalog = fc.record({
    entities: fc.uniqueArray(
      fc.record({
        kind: fc.constantFrom(...KINDS),
        namespace,
        name,
        dependsOn: fc.array(dependency, { maxLength: 4 }),
        title: fc.option(fc.string(), { nil: undefined }),
      }),
      {
        minLength: 1,
        maxLength: 10,
        selector: (entity) => `${entity.kind}:${entity.namespace ?? 'default'}/${entity.name}`.toLowerCase(),
      },
    ),
    wrapper: fc.constantFrom('array', 'items'),
  });

  it('maps random catalogs to structures the engine accepts, one dependency per stated pair', () => {
    fc.assert(
      fc.property(catalog, ({ entities, wrapper }) => {
        const refOf = (kind: string, ns: string | undefined, entityName: string) =>
          `${kind}:${ns ?? 'default'}/${entityName}`.toLowerCase();
        const expected = new Set<string>();
        const externals = new Set<string>();
        const own = new Set(entities.map((entity) => refOf(entity.kind, entity.namespace, entity.name)));
        const documents = entities.map((entity) => {
          const self = refOf(entity.kind, entity.namespace, entity.name);
          const dependsOn: unknown[] = [];
          const dependencyOf: unknown[] = [];
          const relations: unknown[] = [];
          for (const { target, spelling } of entity.dependsOn) {
            const other = 'entity' in target ? entities[target.entity % entities.length]! : target;
            const ns = other.namespace ?? 'default';
            const ref = refOf(other.kind, ns, other.name);
            if (!own.has(ref)) externals.add(ref);
            const full = `${other.kind}:${ns}/${other.name}`;
            if (spelling === 'dependencyOf') {
              relations.push({ type: 'dependencyOf', targetRef: full });
              expected.add(`${ref} → ${self}`);
              continue;
            }
            expected.add(`${self} → ${ref}`);
            if (spelling === 'full') dependsOn.push(full);
            else if (spelling === 'upper') dependsOn.push(full.toUpperCase());
            else if (spelling === 'compound')
              dependsOn.push({ kind: other.kind, namespace: ns, name: other.name });
            else if (spelling === 'relation')
              relations.push({ type: 'dependsOn', targetRef: full.toLowerCase() });
            // Short: no namespace where it is the entity's own, no kind where it is a component.
            else {
              const sameNamespace = ns.toLowerCase() === (entity.namespace ?? 'default').toLowerCase();
              const kind = other.kind === 'Component' ? '' : `${other.kind}:`;
              dependsOn.push(sameNamespace ? `${kind}${other.name}` : `${kind}${ns}/${other.name}`);
            }
            // The catalog states a dependsOn twice: the spec and the relation it derives.
            relations.push({ type: 'dependsOn', targetRef: ref });
          }
          return {
            apiVersion: API_VERSION,
            kind: entity.kind,
            metadata: { name: entity.name, namespace: entity.namespace, title: entity.title },
            spec: { dependsOn, dependencyOf },
            relations,
          };
        });
        const document = JSON.parse(
          JSON.stringify(
            wrapper === 'items' ? { items: documents, totalItems: documents.length } : documents,
          ),
        );
        expect(backstage.detect(document)).toBe(true);
        const mapped = backstage.toStructure(document);
        // The document's entities in order, then the others (in order of first mention: spec, then relations).
        const ids = mapped.nodes.map((node) => node.id);
        expect(ids.slice(0, own.size)).toEqual([...own]);
        expect(new Set(ids.slice(own.size))).toEqual(externals);
        expect(ids).toHaveLength(own.size + externals.size);
        const pairs = mapped.dependencies.map(({ from, to }) => `${from} → ${to}`);
        expect(new Set(pairs).size).toBe(pairs.length);
        expect(new Set(pairs)).toEqual(expected);
        const compiled = compileStructure(mapped);
        expect(compiled.open).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('either maps a random near-miss catalog to a structure the engine accepts or throws a FormatError', () => {
    const ref = fc.oneof(
      fc.constantFrom('a', 'component:a', 'resource:default/b', 'x/', ':a', 'A:B/C'),
      fc.record({ kind: fc.jsonValue(), name: fc.jsonValue() }, { requiredKeys: [] }),
      fc.jsonValue(),
    );
    const entity = fc.record(
      {
        kind: fc.oneof(fc.constantFrom('Component', 'Resource'), fc.jsonValue()),
        metadata: fc.oneof(
          fc.record(
            { name: fc.oneof(fc.constantFrom('a', 'b', 'A'), fc.jsonValue()), namespace: fc.jsonValue() },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        ),
        spec: fc.oneof(
          fc.record(
            { dependsOn: fc.oneof(fc.array(ref, { maxLength: 3 }), fc.jsonValue()) },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        ),
        relations: fc.oneof(
          fc.array(
            fc.oneof(
              fc.record(
                {
                  type: fc.constantFrom('dependsOn', 'dependencyOf', 'ownedBy'),
                  targetRef: ref,
                  target: ref,
                },
                { requiredKeys: [] },
              ),
              fc.jsonValue(),
            ),
            { maxLength: 3 },
          ),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: [] },
    );
    const near = fc.oneof(
      fc.array(fc.oneof(entity, fc.jsonValue()), { maxLength: 5 }),
      fc.record({ items: fc.array(fc.oneof(entity, fc.constant(null), fc.jsonValue()), { maxLength: 5 }) }),
      entity,
    );
    fc.assert(
      fc.property(near, (document) => {
        let mapped: ReturnType<typeof backstage.toStructure>;
        try {
          mapped = backstage.toStructure(document);
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
