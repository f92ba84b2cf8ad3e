import { describe, expect, it } from 'vitest';
import { analyze, applyScenario, compileStructure, tick, ticks } from '../../lib/engine';

// A caller's service map with its own fields: labels, owners, nested metadata.
const structure = JSON.parse(`{
  "nodes": [
    { "id": "web", "load": 3, "label": "Web tier", "tags": ["edge"] },
    { "id": "db", "capacity": 1, "owner": { "team": "data" }, "__proto__": { "polluted": true }, "constructor": 5 }
  ],
  "dependencies": [
    { "from": "web", "to": "db", "weight": 2, "protocol": "sql", "flow": "ignored", "__proto__": 1 }
  ]
}`);

describe('extra fields', () => {
  it('are carried into analyze output, between the given fields and the computed ones', () => {
    const result = analyze(structure);
    expect(Object.keys(result.nodes[0]!)).toEqual([
      'id',
      'load',
      'label',
      'tags',
      'inflow',
      'outflow',
      'pressure',
      'blocked',
      'role',
    ]);
    expect(result.nodes[0]).toMatchObject({ label: 'Web tier', tags: ['edge'] });
    expect(result.nodes[1]).toMatchObject({ owner: { team: 'data' }, constructor: 5, load: 0, capacity: 1 });
  });

  it('named __proto__ stay ordinary fields and never change a prototype', () => {
    const result = analyze(structure);
    const db = result.nodes[1]!;
    expect(Object.getPrototypeOf(db)).toBe(Object.prototype);
    expect(Object.hasOwn(db, '__proto__')).toBe(true);
    expect((db as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(db)).toContain('"__proto__":{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never override what the engine computes', () => {
    const dependency = analyze(structure).dependencies[0]!;
    expect(dependency.flow).toBe(3);
    expect(Object.keys(dependency)).toEqual(['from', 'to', 'weight', 'protocol', '__proto__', 'flow']);
  });

  it('are not carried into snapshots', () => {
    const snapshot = tick(structure);
    expect(Object.keys(snapshot.nodes[0]!)).toEqual([
      'id',
      'load',
      'inflow',
      'outflow',
      'pressure',
      'blocked',
      'role',
    ]);
    expect(Object.keys(snapshot.dependencies[0]!)).toEqual(['from', 'to', 'weight', 'flow']);
  });

  it('leave the input untouched', () => {
    const before = JSON.stringify(structure);
    analyze(structure);
    tick(structure);
    expect(JSON.stringify(structure)).toBe(before);
  });

  // A caller's map that already holds fields the engine computes (say, from an earlier answer):
  // they are the engine's to fill, so the input's values are dropped, and keys keep the order
  // every result uses, the caller's own field between the given ones and the computed ones.
  // A(2, capacity 1) passes 1 to B (capacity 0.5), which keeps a backlog of 0.5.
  it('never take the place of a field the engine owns', () => {
    const owned = { inflow: 'x', outflow: 'x', pressure: 'x', blocked: 'x', role: 'x', note: 'kept' };
    const structure = {
      nodes: [
        { ...owned, id: 'A', load: 2, capacity: 1 },
        { ...owned, id: 'B', load: 0, capacity: 0.5 },
      ],
      dependencies: [
        { from: 'A', to: 'B', weight: 1, flow: 'x', note: 'kept' },
        { from: 'B', to: 'A', note: 'no weight given' },
      ],
    };
    const result = analyze(structure);
    const computed = (inflow: number, outflow: number, pressure: number) => ({
      inflow,
      outflow,
      pressure,
      blocked: pressure > 0,
      role: 'relay',
    });
    expect(JSON.stringify(result.nodes)).toBe(
      JSON.stringify([
        { id: 'A', load: 2, capacity: 1, note: 'kept', ...computed(0, 1, 0) },
        { id: 'B', load: 0, capacity: 0.5, note: 'kept', ...computed(1, 0, 0.5) },
      ]),
    );
    expect(JSON.stringify(result.dependencies)).toBe(
      JSON.stringify([
        { from: 'A', to: 'B', weight: 1, note: 'kept', flow: 1 },
        { from: 'B', to: 'A', note: 'no weight given', flow: 0 },
      ]),
    );

    // The result is the caller's plain data: its fields can be changed and removed.
    const a = result.nodes[0] as unknown as Record<string, unknown>;
    a.note = 'changed';
    expect(a.note).toBe('changed');
    delete a.note;
    expect('note' in a).toBe(false);

    // Snapshots carry no extra fields.
    expect(Object.keys(tick(structure).nodes[1]!)).toEqual([
      'id',
      'load',
      'capacity',
      'inflow',
      'outflow',
      'pressure',
      'blocked',
      'role',
    ]);
  });
});

describe('extra fields named like the latency model', () => {
  // Without a latency model (no node gives serviceTime, servers or slo) nothing of latency is
  // computed: a caller's fields of those names come back as sent, as they did before the model
  // existed. With one, they are the engine's, on every node, computed or not.
  const mine = { responseTime: 123, waiting: 'w', inFlight: 1, p99: 'p', latency: 5, latencyLimit: 'l' };
  it('come back as sent when nothing of latency is computed', () => {
    const result = analyze({ nodes: [{ id: 'a', arrival: 1, exit: 1, ...mine }], dependencies: [] });
    expect(result.nodes[0]).toMatchObject(mine);
  });

  it('are the engine’s once some node has a service time', () => {
    const result = analyze({
      nodes: [
        { id: 'a', arrival: 1, fanout: true, ...mine },
        { id: 'b', exit: 1, serviceTime: 0.5, ...mine },
      ],
      dependencies: [{ from: 'a', to: 'b' }],
    });
    const [a, b] = result.nodes as unknown as Record<string, unknown>[];
    // a has no service time: no response time of its own; b has no servers, so its response time
    // is its service time, and a's latency is b's 0.5.
    expect(a).toEqual({
      id: 'a',
      load: 0,
      arrival: 1,
      fanout: true,
      inflow: 0,
      outflow: 1,
      exited: 1,
      pressure: 0,
      blocked: false,
      role: 'source',
      throughput: 1,
      latency: 0.5,
    });
    expect(b!.responseTime).toBe(0.5);
    expect(b).not.toHaveProperty('latency');
  });
});

describe('extra fields with numbers JSON cannot write', () => {
  // JSON.parse reads 1e400 as Infinity and -1e999 as -Infinity: the answer could only print them as
  // null. Refused, naming the number wherever it sits; a number past 2^53 is an ordinary double.
  it('are refused in analyze, naming the number at any depth', () => {
    const nested = JSON.parse(`{
      "nodes": [
        { "id": "a", "big": 12345678901234567890 },
        { "id": "b", "meta": { "list": [1, 2, { "odd key": -1e999 }] } }
      ],
      "dependencies": [{ "from": "a", "to": "b", "tag": { "n": 1e400 } }]
    }`);
    expect(() => analyze(nested)).toThrow(
      'nodes[1].meta.list[2]["odd key"]: a number too large for a double (read as -Infinity, as 1e400 is), which the answer could only write as null; send it as a string or leave it out',
    );
    nested.nodes[1].meta.list[2]['odd key'] = '-1e999';
    expect(() => analyze(nested)).toThrow(
      /^dependencies\[0\]\.tag\.n: a number too large for a double \(read as Infinity,/,
    );
    delete nested.dependencies[0].tag;
    const result = analyze(nested);
    expect(result.nodes[0]).toMatchObject({ big: 12345678901234567000 });
    expect(result.nodes[1]).toMatchObject({ meta: { list: [1, 2, { 'odd key': '-1e999' }] } });
    // Open structures carry extras the same way; snapshots carry none, so they do not look.
    // First in an array, and past finite numbers of every depth.
    const first = JSON.parse(
      '{ "nodes": [{ "id": "a", "m": { "k": 1, "list": [[1e400, 2], 3] } }], "dependencies": [] }',
    );
    expect(() => analyze(first)).toThrow(/^nodes\[0\]\.m\.list\[0\]\[0\]: a number too large/);
    const open = JSON.parse(
      '{ "nodes": [{ "id": "s", "arrival": 1, "exit": 1, "x": 1e400 }], "dependencies": [] }',
    );
    expect(() => analyze(open)).toThrow(/^nodes\[0\]\.x: a number too large/);
    // A key of 3 million characters is named by its two ends: the error once repeated it whole
    // (twice over in the answer: 6 MB from a 3 MB body, past what Lambda may return).
    const plain = `K${'Z'.repeat(255)}`;
    expect(() =>
      analyze(JSON.parse(`{ "nodes": [{ "id": "a", "${plain}": 1e400 }], "dependencies": [] }`)),
    ).toThrow(`nodes[0].${plain}: a number too large for a double`);
    const key = `K${'Z'.repeat(3_000_000)}`;
    const long = JSON.parse(`{ "nodes": [{ "id": "a", "${key}": 1e400 }], "dependencies": [] }`);
    expect(() => analyze(long)).toThrow(
      `nodes[0]["K${'Z'.repeat(127)}…${'Z'.repeat(127)}"]: a number too large for a double`,
    );
    expect(tick(open).nodes[0]!.id).toBe('s');
  });
});

describe('extra fields of an open structure', () => {
  // An open service map with its own fields, including names the open model owns (`throughput`,
  // `lost`, `utilization` on a node; `throughput` on a dependency) and one it does not own
  // elsewhere: the caller's are kept where the engine says nothing, replaced where it does.
  const open = {
    nodes: [
      { id: 'web', arrival: 4, fanout: true, team: 'edge', throughput: 'x', utilization: 'x' },
      { id: 'db', capacity: 8, exit: 1, owner: { team: 'data' }, lost: 'x' },
    ],
    dependencies: [{ from: 'web', to: 'db', weight: 2, protocol: 'sql', throughput: 'x' }],
  };

  it('are carried into analyze output, and the steady state replaces the fields it owns', () => {
    const result = analyze(open);
    expect(JSON.stringify(result.nodes)).toBe(
      JSON.stringify([
        {
          id: 'web',
          load: 0,
          arrival: 4,
          fanout: true,
          team: 'edge',
          inflow: 0,
          outflow: 4,
          exited: 4,
          pressure: 0,
          blocked: false,
          role: 'source',
          throughput: 4,
        },
        {
          id: 'db',
          load: 0,
          capacity: 8,
          exit: 1,
          owner: { team: 'data' },
          inflow: 8,
          outflow: 0,
          exited: 0,
          pressure: 0,
          blocked: false,
          role: 'sink',
          throughput: 8,
          utilization: 1,
        },
      ]),
    );
    expect(JSON.stringify(result.dependencies)).toBe(
      JSON.stringify([{ from: 'web', to: 'db', weight: 2, protocol: 'sql', flow: 8, throughput: 8 }]),
    );
  });

  // A closed structure's dependency may carry a field named `throughput`: the closed model says
  // nothing of throughput, so it is the caller's.
  it("keep a closed structure's own throughput field", () => {
    const closed = {
      nodes: [{ id: 'a', load: 1 }, { id: 'b' }],
      dependencies: [{ from: 'a', to: 'b', throughput: 'measured' }],
    };
    expect(analyze(closed).dependencies[0]).toEqual({ from: 'a', to: 'b', throughput: 'measured', flow: 1 });
  });

  it('are not carried into an open snapshot', () => {
    const snapshot = tick(open);
    expect(Object.keys(snapshot.nodes[0]!)).not.toContain('team');
    expect(Object.keys(snapshot.dependencies[0]!)).not.toContain('protocol');
    for (const state of ticks(open, 2)) {
      expect(Object.keys(state.nodes[0]!)).not.toContain('team');
      expect(Object.keys(state.nodes[1]!)).not.toContain('owner');
    }
  });

  // Nothing is down: no node has a `lost` field, not even one left undefined.
  it('leave out what the steady state has nothing to say of', () => {
    expect(Object.keys(analyze(open).nodes[1]!)).not.toContain('lost');
  });

  // `exited` sent by the caller is the engine's: it keeps the engine's place among the computed
  // fields, after inflow and outflow, not the caller's among the extras.
  it("put a field the engine owns in the engine's place", () => {
    const plain = analyze(open);
    const sent = analyze({ ...open, nodes: open.nodes.map((node) => ({ ...node, exited: 'mine' })) });
    expect(JSON.stringify(sent.nodes)).toBe(JSON.stringify(plain.nodes));
  });

  // A scenario's service time and servers are the scenario's, on a node that carries extras too.
  it("show a scenario's service time and servers, not the structure's", () => {
    const base = compileStructure({
      nodes: [
        { id: 'a', arrival: 1, fanout: true, team: 'edge' },
        { id: 'b', exit: 1, serviceTime: 0.5, servers: 2, owner: 'data' },
      ],
      dependencies: [{ from: 'a', to: 'b' }],
    });
    const changed = analyze(applyScenario(base, { nodes: { b: { serviceTime: 0.8, servers: 3 } } }))
      .nodes[1]!;
    expect(changed).toMatchObject({ serviceTime: 0.8, servers: 3, owner: 'data', capacity: 3.75 });
  });
});
