/**
 * Prometheus instant-query answers (`GET /api/v1/query`): worked examples built from the shapes
 * the projects document (no file holds a whole answer of service graph or Istio request rates:
 * test/formats/fixtures/README.md), the real answers (Prometheus's and Istio's docs), detection
 * against every other format's fixtures, malformed answers, and a property over random service
 * graphs: the engine's steady state reproduces every rate.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze, compileStructure } from '../../lib/engine';
import { type MappedGraph, readGraph } from '../../lib/formats';
import { prometheus } from '../../lib/formats/prometheus';
import { fixturesIn, otherFolders, roundingReach, thrown } from './fixtures';

const OWN = 'prometheus';
const others = otherFolders(OWN);

type Labels = Record<string, string>;

/** An instant vector answer, as Prometheus writes one, of `[labels, value]` series. */
function answer(series: ReadonlyArray<readonly [Labels, string]>, time = 1_767_225_600.123) {
  return {
    status: 'success',
    data: {
      resultType: 'vector',
      result: series.map(([metric, value]) => ({ metric, value: [time, value] })),
    },
  };
}

/** A series of Tempo's and the Collector's service graph metrics, summed by client and server. */
function call(client: string, server: string, value: string): readonly [Labels, string] {
  return [{ client, server }, value];
}

/** The steady throughputs, by node id, to 9 digits. */
function throughputs(mapped: MappedGraph): Record<string, number> {
  compileStructure(mapped);
  return Object.fromEntries(analyze(mapped).nodes.map((node) => [node.id, node.throughput!]));
}

function expectClose(actual: Record<string, number>, expected: Record<string, number>): void {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const [id, value] of Object.entries(expected)) expect(actual[id], id).toBeCloseTo(value, 9);
}

describe('prometheus: worked examples', () => {
  // Tempo's metrics-generator (or the Collector's servicegraph connector), queried with
  // sum by (client, server) (rate(traces_service_graph_request_total[5m])): the users send
  // frontend 10 requests a second; each makes two calls on api and one on auth; api calls db once
  // and, for one request in four, a service that sent no spans (the Collector names it unknown).
  it('a service graph: the users are the entry, weights are calls per request', () => {
    const mapped = readGraph(
      answer([
        call('user', 'frontend', '10'),
        call('frontend', 'api', '20'),
        call('frontend', 'auth', '10'),
        call('api', 'db', '20'),
        call('api', 'unknown', '5'),
      ]),
    );
    expect(mapped).toEqual({
      format: 'prometheus',
      unit: 'second',
      nodes: [
        { external: true, id: 'user', fanout: true, arrival: 10 },
        { id: 'frontend', fanout: true },
        { id: 'api', fanout: true },
        { id: 'auth', fanout: true },
        { id: 'db', fanout: true },
        { external: true, id: 'unknown', fanout: true },
      ],
      dependencies: [
        { rate: 10, from: 'user', to: 'frontend', weight: 1 },
        { rate: 20, from: 'frontend', to: 'api', weight: 2 },
        { rate: 10, from: 'frontend', to: 'auth', weight: 1 },
        { rate: 20, from: 'api', to: 'db', weight: 1 },
        { rate: 5, from: 'api', to: 'unknown', weight: 0.25 },
      ],
      warnings: [],
    });
    expectClose(throughputs(mapped), { user: 10, frontend: 10, api: 20, auth: 10, db: 20, unknown: 5 });
  });

  // The users reach two services: the entry `user` takes every request once, and its calls
  // split them (weights 3/4 and 1/4), where its busiest call alone would count a quarter short.
  it("the users' arrival is their total outgoing rate", () => {
    const mapped = readGraph(
      answer([
        call('user', 'web', '0.75'),
        call('user', 'mobile-api', '0.25'),
        call('web', 'mobile-api', '1.5'),
      ]),
    );
    expect(mapped.nodes[0]).toEqual({ external: true, id: 'user', fanout: true, arrival: 1 });
    expect(mapped.dependencies.map((d) => [d.from, d.to, d.weight])).toEqual([
      ['user', 'web', 0.75],
      ['user', 'mobile-api', 0.25],
      ['web', 'mobile-api', 2],
    ]);
    expectClose(throughputs(mapped), { user: 1, web: 0.75, 'mobile-api': 1.75 });
  });

  // Istio, sum by (source_workload, destination_workload) (rate(istio_requests_total{reporter=
  // "destination"}[5m])) on Bookinfo: nothing in the mesh calls the ingress gateway (the
  // destination proxies report what it forwards), so it is an entry whose arrival is its calls,
  // named in a warning; `unknown` (requests from outside the mesh, no sidecar on the caller) is
  // an outside entry.
  it('an Istio mesh: the gateway and the outside are entries', () => {
    const istio = (from: string, to: string, value: string): readonly [Labels, string] => [
      { destination_workload: to, source_workload: from },
      value,
    ];
    const mapped = readGraph(
      answer([
        istio('istio-ingressgateway', 'productpage-v1', '4'),
        istio('unknown', 'productpage-v1', '1'),
        istio('productpage-v1', 'details-v1', '5'),
        istio('productpage-v1', 'reviews-v2', '5'),
        istio('reviews-v2', 'ratings-v1', '5'),
      ]),
    );
    expect(mapped.nodes).toEqual([
      { id: 'istio-ingressgateway', fanout: true, arrival: 4 },
      { id: 'productpage-v1', fanout: true },
      { external: true, id: 'unknown', fanout: true, arrival: 1 },
      { id: 'details-v1', fanout: true },
      { id: 'reviews-v2', fanout: true },
      { id: 'ratings-v1', fanout: true },
    ]);
    expect(mapped.warnings).toEqual([
      '1 service is called by no other ("istio-ingressgateway"): each is an entry whose arrival is the sum of its calls\' rates, exact when each request it takes makes one call (a gateway, a load generator) and an upper bound otherwise; set arrivals in settings where they are known',
    ]);
    expectClose(throughputs(mapped), {
      'istio-ingressgateway': 4,
      'productpage-v1': 5,
      unknown: 1,
      'details-v1': 5,
      'reviews-v2': 5,
      'ratings-v1': 5,
    });
  });

  // Istio reports every request twice, once per proxy: an answer that kept both reporters would
  // count each twice, and is refused where the second reporter of a pair shows.
  it("refuses a pair Istio's two proxies both report", () => {
    const error = thrown(() =>
      prometheus.toStructure(
        answer([
          [{ source_workload: 'web', destination_workload: 'api', reporter: 'source' }, '3'],
          [{ source_workload: 'web', destination_workload: 'db', reporter: 'source' }, '1'],
          [{ source_workload: 'web', destination_workload: 'api', reporter: 'destination' }, '3'],
        ]),
      ),
    );
    expect(error.message).toBe(
      'data.result[2].metric.reporter: the calls of "web" on "api" are reported by both proxies (reporter "source" at data.result[0], "destination" at data.result[2]): every request would count twice; keep one in the query, reporter="destination"',
    );
  });

  // The Collector's servicegraph connector, not summed: series keep `connection_type` and
  // `failed` (its testdata virtual-node-label-expected-metrics.yaml has these labels, a root span
  // called by `user` and a call on a server that sent no spans, `unknown`). The two series of a
  // pair are added; the labels they share stay on the dependency.
  it('series of one pair are added, their shared labels kept', () => {
    const mapped = readGraph(
      answer([
        [{ client: 'user', connection_type: 'virtual_node', failed: 'false', server: 'bar-requester' }, '2'],
        [{ client: 'bar-requester', connection_type: '', failed: 'false', server: 'foo-server' }, '3.5'],
        [{ client: 'bar-requester', connection_type: '', failed: 'true', server: 'foo-server' }, '0.5'],
        [{ client: 'foo-server', connection_type: 'virtual_node', failed: 'false', server: 'unknown' }, '4'],
      ]),
    );
    expect(mapped.dependencies).toEqual([
      {
        rate: 2,
        labels: { connection_type: 'virtual_node', failed: 'false' },
        from: 'user',
        to: 'bar-requester',
        weight: 1,
      },
      { rate: 4, labels: { connection_type: '' }, from: 'bar-requester', to: 'foo-server', weight: 2 },
      {
        rate: 4,
        labels: { connection_type: 'virtual_node', failed: 'false' },
        from: 'foo-server',
        to: 'unknown',
        weight: 1,
      },
    ]);
    expect(mapped.warnings).toEqual([
      '1 series repeats a pair seen before (data.result[2] repeats the pair of data.result[1]): the query kept labels beside "client" and "server", and the rates of a pair are added (sum by (client, server) answers one series per pair)',
    ]);
    expectClose(throughputs(mapped), { user: 2, 'bar-requester': 2, 'foo-server': 4, unknown: 4 });
  });

  // Labels of another exporter, named by the option; a series without them is left out.
  it('reads the labels the option names', () => {
    const document = answer([
      [{ source_app: 'web', destination_app: 'api' }, '6'],
      [{ destination_app: 'api' }, '1'],
      [{ source_app: 'api', destination_app: 'db' }, '12'],
    ]);
    const mapped = readGraph(document, 'auto', { labels: { from: 'source_app', to: 'destination_app' } });
    expect(mapped.dependencies.map((d) => [d.from, d.to, d.weight])).toEqual([
      ['web', 'api', 1],
      ['api', 'db', 2],
    ]);
    expect(mapped.warnings).toEqual([
      '1 series lacks the label "source_app" or "destination_app" (first: data.result[1]): left out, since it names no call',
      '1 service is called by no other ("web"): each is an entry whose arrival is the sum of its calls\' rates, exact when each request it takes makes one call (a gateway, a load generator) and an upper bound otherwise; set arrivals in settings where they are known',
    ]);
    // Without the option, no known pair is there.
    expect(thrown(() => readGraph(document)).message).toMatch(
      /^data\.result: no series names a caller and a callee: looked for "client" and "server" .*; the first series is \{source_app="web", destination_app="api"\}; name the labels with "labels": \{ "from", "to" \}$/,
    );
  });

  // Metrics computed from sampled spans count the spans kept: a 10% sampling rate makes every
  // rate ten times what was counted; weights are ratios and do not change. `window` is not read.
  it('divides the rates by the sampling rate, and says that a window is not read', () => {
    const mapped = readGraph(answer([call('user', 'web', '2'), call('web', 'api', '3')]), 'prometheus', {
      sampleRate: 0.1,
      window: 300,
    });
    expect(mapped.nodes[0]).toMatchObject({ id: 'user', arrival: 20 });
    expect(mapped.dependencies.map((d) => [d.rate, d.weight])).toEqual([
      [2, 1],
      [3, 1.5],
    ]);
    expect(mapped.warnings).toEqual([
      'the option window is not read by the prometheus format (it reads sampleRate and labels): ignored',
    ]);
    expectClose(throughputs(mapped), { user: 20, web: 20, api: 30 });
  });

  // A self-call, a silent call, and two services that only call each other, as call graphs do.
  it('self-calls, zero rates and a cycle with no way in', () => {
    const mapped = readGraph(
      answer([
        call('user', 'a', '1'),
        call('a', 'a', '0.5'),
        call('a', 'b', '0'),
        call('c', 'd', '2'),
        call('d', 'c', '1'),
      ]),
    );
    expect(mapped.nodes.map((node) => [node.id, node.arrival])).toEqual([
      ['user', 1],
      ['a', undefined],
      ['b', undefined],
      ['c', 2],
      ['d', undefined],
    ]);
    expect(mapped.warnings).toEqual([
      '"c", "d" call each other and nothing else calls them: "c" is taken as their entry (it gets the arrivals)',
      '1 entry has no count of its own requests in the document: its arrival is the largest count among its calls ("c": 2), a lower bound on the requests it takes while a request makes at most one call on each service, so the weights of its calls (calls per request) are upper bounds; set arrivals in settings where they are known',
      '1 call with a count of 0 left out (no traffic to carry)',
    ]);
    expectClose(throughputs(mapped), { user: 1, a: 1.5, b: 0, c: 3, d: 2 });
  });

  // The bare `data` object reads the same, with paths from `result`.
  it('the bare data object', () => {
    const { data } = answer([call('user', 'web', '1'), call('web', 'api', 'NaN')]);
    expect(prometheus.detect(data)).toBe(true);
    expect(thrown(() => readGraph(data)).path).toBe('result[1].value[1]');
    expect(
      readGraph({ resultType: 'vector', result: [{ metric: { client: 'a', server: 'b' }, value: [1, '1'] }] })
        .nodes,
    ).toHaveLength(2);
  });

  // A partial answer (a store that did not reply) says so beside its data: passed on, first.
  it("passes on the server's warnings and infos", () => {
    const mapped = readGraph({
      ...answer([call('user', 'web', '1')]),
      warnings: ['store 10.0.0.7:10901 did not answer', 'another'],
      infos: ['metric may not be a counter'],
    });
    expect(mapped.warnings).toEqual([
      'warnings[0]: the Prometheus server warned "store 10.0.0.7:10901 did not answer" (and 1 more) beside its answer',
      'infos[0]: the Prometheus server noted "metric may not be a counter" beside its answer',
    ]);
    expect(readGraph({ ...answer([call('user', 'web', '1')]), infos: [7] }).warnings).toEqual([
      'infos[0]: the Prometheus server noted 7 beside its answer',
    ]);
  });

  // Numbers as Prometheus and other stores write them.
  it('reads decimal sample values', () => {
    const mapped = readGraph(
      answer([
        call('user', 'a', '0.016666666666666666'),
        call('a', 'b', '1e-05'),
        call('a', 'c', '+3'),
        call('a', 'd', '.5'),
        call('a', 'e', '-0'),
      ]),
    );
    expect(mapped.dependencies.map((d) => d.rate)).toEqual([0.016666666666666666, 1e-5, 3, 0.5]);
    expect(mapped.warnings).toContain('1 call with a count of 0 left out (no traffic to carry)');
  });
});

describe('prometheus: the real answers', () => {
  const real = fixturesIn(OWN);

  it('has the three answers of the docs', () => {
    expect(real.map(({ file }) => file).sort()).toEqual([
      'istio-blog-passthrough-tcp-connections-closed.json',
      'prometheus-docs-instant-query-up.json',
      'prometheus-docs-range-query-up.json',
    ]);
    for (const { file, document } of real) expect(prometheus.detect(document), file).toBe(true);
  });

  const fixture = (file: string) => real.find((entry) => entry.file === file)!.document;

  // Prometheus's own instant-query example: `up` has no caller and callee.
  it("Prometheus's `up`: says which labels it looked for", () => {
    const error = thrown(() => readGraph(fixture('prometheus-docs-instant-query-up.json')));
    expect(error.path).toBe('data.result');
    expect(error.message).toBe(
      'data.result: no series names a caller and a callee: looked for "client" and "server" (traces_service_graph_request_total of Tempo, the OpenTelemetry Collector, Alloy), or "source_workload" and "destination_workload" (Istio\'s istio_requests_total); the first series is {__name__="up", job="prometheus", instance="localhost:9090"}; name the labels with "labels": { "from", "to" }',
    );
    // Named, they are read: `job` calling `instance`, whatever that means to the caller (the
    // target that is down, `up` 0, carries nothing and is left out).
    const mapped = readGraph(fixture('prometheus-docs-instant-query-up.json'), 'prometheus', {
      labels: { from: 'job', to: 'instance' },
    });
    expect(mapped.nodes.map((node) => node.id)).toEqual([
      'prometheus',
      'localhost:9090',
      'node',
      'localhost:9100',
    ]);
    expect(mapped.dependencies.map((d) => [d.from, d.to, d.rate])).toEqual([
      ['prometheus', 'localhost:9090', 1],
    ]);
    expect(mapped.warnings).toContain('1 call with a count of 0 left out (no traffic to carry)');
  });

  // The range query's answer is a matrix: refused, saying what to send instead.
  it('a range query: refused at its resultType', () => {
    const error = thrown(() => readGraph(fixture('prometheus-docs-range-query-up.json')));
    expect(error.message).toBe(
      'data.resultType: is "matrix", the answer of a range query (GET /api/v1/query_range): a series of values over time, where one rate per series is read; send the answer of an instant query (GET /api/v1/query) such as sum by (client, server) (rate(traces_service_graph_request_total[5m]))',
    );
  });

  // Istio's docs show the raw counter: its value counts since the proxy started, not per second.
  it("Istio's raw counter: refused, with the query to send", () => {
    const error = thrown(() => readGraph(fixture('istio-blog-passthrough-tcp-connections-closed.json')));
    expect(error.path).toBe('data.result[0].metric.__name__');
    expect(error.message).toBe(
      'data.result[0].metric.__name__: the series {__name__="istio_tcp_connections_closed_total", connection_security_policy="unknown", destination_app="unknown", destination_ip="52.22.188.80", destination_principal="unknown", destination_service="unknown", … (20 labels)} is the counter "istio_tcp_connections_closed_total" itself, whose value is a running total since its process started, not a rate: send the answer of a query of its rate, such as sum by (source_workload, destination_workload) (rate(istio_tcp_connections_closed_total{reporter="destination"}[5m]))',
    );
  });
});

describe('prometheus: a series in a message', () => {
  // A label name past 40 characters is cut short between code points: an emoji straddling the
  // cut is left out whole, never half of it (a lone surrogate, which JSON writes as \ud83d).
  it('cuts a long label name between code points', () => {
    const name = `${'a'.repeat(39)}😀tail`;
    const error = thrown(() =>
      readGraph({
        status: 'success',
        data: {
          resultType: 'vector',
          result: [{ metric: { __name__: 'calls_total', [name]: 'v' }, value: [1, '2'] }],
        },
      }),
    );
    expect(error.message).toContain(`${'a'.repeat(39)}…="v"`);
    expect(error.message).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

describe('prometheus: detection', () => {
  for (const folder of others) {
    // Another format's document is never taken for a Prometheus answer.
    it(`detects none of the ${folder} fixtures`, () => {
      for (const { file, document } of fixturesIn(folder))
        expect(prometheus.detect(document), `${folder}/${file}`).toBe(false);
    });
  }

  it('decides on the envelope', () => {
    expect(prometheus.detect({ status: 'success', data: { resultType: 'vector', result: [] } })).toBe(true);
    expect(prometheus.detect({ status: 'success', data: { resultType: 'scalar', result: [1, '2'] } })).toBe(
      true,
    );
    expect(prometheus.detect({ status: 'error', errorType: 'bad_data', error: 'parse error' })).toBe(true);
    expect(prometheus.detect({ status: 'error', data: null, error: 'timeout' })).toBe(true);
    expect(prometheus.detect({ resultType: 'vector', result: [] })).toBe(true);
    expect(prometheus.detect({ status: 'success', data: [] })).toBe(false);
    expect(prometheus.detect({ status: 'success', data: { result: [] } })).toBe(false);
    expect(prometheus.detect({ status: 'error' })).toBe(false);
    expect(prometheus.detect({ status: 'ok', resultType: 'vector', result: [] })).toBe(false);
    expect(prometheus.detect({ resultType: 'vector', result: [], nodes: [] })).toBe(false);
    expect(prometheus.detect([{ resultType: 'vector', result: [] }])).toBe(false);
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof prometheus.detect(value)).toBe('boolean');
      }),
    );
  });
});

describe('prometheus: malformed answers', () => {
  const series = (value: unknown, metric: unknown = { client: 'a', server: 'b' }) => ({
    status: 'success',
    data: {
      resultType: 'vector',
      result: [
        { metric: { client: 'user', server: 'a' }, value: [1, '1'] },
        { metric, value },
      ],
    },
  });
  const cases: Array<[string, unknown, string]> = [
    [
      'NaN',
      series([1, 'NaN']),
      'data.result[1].value[1]: is "NaN" for the series {client="a", server="b"}: not a number of calls (NaN and the infinities come of a division by 0, or of no samples)',
    ],
    [
      '+Inf',
      series([1, '+Inf']),
      'data.result[1].value[1]: is "+Inf" for the series {client="a", server="b"}: not a number of calls (NaN and the infinities come of a division by 0, or of no samples)',
    ],
    [
      '-Inf',
      series([1, '-Inf']),
      'data.result[1].value[1]: is "-Inf" for the series {client="a", server="b"}: not a number of calls (NaN and the infinities come of a division by 0, or of no samples)',
    ],
    [
      'a word',
      series([1, 'lots']),
      'data.result[1].value[1]: is "lots" for the series {client="a", server="b"}: a sample value is a decimal number',
    ],
    [
      'a hexadecimal number',
      series([1, '0x10']),
      'data.result[1].value[1]: is "0x10" for the series {client="a", server="b"}: a sample value is a decimal number',
    ],
    [
      'a padded number',
      series([1, ' 1']),
      'data.result[1].value[1]: is " 1" for the series {client="a", server="b"}: a sample value is a decimal number',
    ],
    [
      'a negative rate',
      series([1, '-2.5']),
      'data.result[1].value[1]: is "-2.5" for the series {client="a", server="b"}: a rate of calls is a finite number >= 0',
    ],
    [
      'past the largest double',
      series([1, '1e400']),
      'data.result[1].value[1]: is "1e400" for the series {client="a", server="b"}: a rate of calls is a finite number >= 0',
    ],
    [
      'a number, not a string',
      series([1, 2]),
      'data.result[1].value[1]: must be the sample value as a string, as Prometheus writes it ("5", "NaN"), got 2',
    ],
    [
      'no value',
      series(undefined),
      'data.result[1].value: must be [<unix time>, "<sample value>"], got nothing',
    ],
    [
      'a native histogram',
      {
        status: 'success',
        data: {
          resultType: 'vector',
          result: [{ metric: { client: 'a', server: 'b' }, histogram: [1, { count: '2', sum: '3' }] }],
        },
      },
      'data.result[0].histogram: is a native histogram\'s sample (series {client="a", server="b"}): a rate of calls is one number; query the rate of a counter',
    ],
    [
      'labels that are not an object',
      series([1, '1'], ['a', 'b']),
      'data.result[1].metric: must be an object of labels, got an array',
    ],
    [
      'a label that is not a string',
      series([1, '1'], { client: 'a', server: 7 }),
      'data.result[1].metric.server: must be a string, got 7',
    ],
    [
      'an odd label name',
      series([1, '1'], { client: 'a', 'the server': null }),
      'data.result[1].metric["the server"]: must be a string, got null',
    ],
    // A label name of 2 million characters is named by its ends: the 422 once repeated it three
    // times whole (6.6 MB, past what the function may return).
    [
      'a long label name',
      series([1, '1'], { client: 'a', [`L${'x'.repeat(2_000_000)}`]: 5 }),
      `data.result[1].metric["L${'x'.repeat(127)}…${'x'.repeat(127)}"]: must be a string, got 5`,
    ],
    [
      'a series that is not an object',
      { resultType: 'vector', result: ['x'] },
      'result[0]: must be an object (a series), got the string "x"',
    ],
    [
      "a counter's own series",
      answer([[{ __name__: 'traces_service_graph_request_total', client: 'a', server: 'b' }, '1234']]),
      'data.result[0].metric.__name__: the series {__name__="traces_service_graph_request_total", client="a", server="b"} is the counter "traces_service_graph_request_total" itself, whose value is a running total since its process started, not a rate: send the answer of a query of its rate, such as sum by (client, server) (rate(traces_service_graph_request_total[5m]))',
    ],
    [
      'a histogram count',
      answer([
        [{ __name__: 'traces_service_graph_request_server_seconds_count', client: 'a', server: 'b' }, '12'],
      ]),
      'data.result[0].metric.__name__: the series {__name__="traces_service_graph_request_server_seco…", client="a", server="b"} is the counter "traces_service_graph_request_server_seco…" itself, whose value is a running total since its process started, not a rate: send the answer of a query of its rate, such as sum by (client, server) (rate(traces_service_graph_request_server_seconds_count[5m]))',
    ],
    // A bucket's or the sum's rate is no rate of calls (buckets count each call again, the sum
    // adds up seconds): the query to send is the count's, where it said the bucket's own rate.
    [
      'a histogram bucket',
      answer([
        [{ __name__: 'http_server_duration_seconds_bucket', client: 'a', server: 'b', le: '0.5' }, '12'],
      ]),
      'data.result[0].metric.__name__: the series {__name__="http_server_duration_seconds_bucket", client="a", server="b", le="0.5"} is the histogram\'s bucket "http_server_duration_seconds_bucket", a running count of the calls up to one bound (le), each call counted again in every bucket above it: send the answer of a query of the rate of its count, such as sum by (client, server) (rate(http_server_duration_seconds_count[5m]))',
    ],
    // `rate()` drops the name but keeps `le`: `sum by (client, server, le) (rate(…_bucket[5m]))`
    // answers buckets with no `__name__`, which were added up as calls (6 + 9 + 10 = 25 for 10).
    [
      "a histogram bucket's rate, its name dropped",
      answer([
        [{ client: 'user', server: 'web', le: '0.1' }, '6'],
        [{ client: 'user', server: 'web', le: '0.5' }, '9'],
        [{ client: 'user', server: 'web', le: '+Inf' }, '10'],
      ]),
      'data.result[0].metric.le: the series {client="user", server="web", le="0.1"} carries le, the bound of a histogram\'s bucket: a bucket counts the calls up to its bound, so summed as calls the buckets count each call again in every bucket above it (only le="+Inf" counts each once); send the answer of a query of the rate of its count, such as sum by (client, server) (rate(<metric>_count[5m]))',
    ],
    [
      "a summary's quantile",
      answer([[{ source_workload: 'web', destination_workload: 'api', quantile: '0.99' }, '0.25']]),
      'data.result[0].metric.quantile: the series {source_workload="web", destination_workload="api", quantile="0.99"} carries quantile, a summary\'s quantile: its value is a measured time or size, not a rate of calls; send the answer of a query of the rate of its count, such as sum by (source_workload, destination_workload) (rate(<metric>_count[5m]))',
    ],
    [
      'a histogram sum',
      answer([[{ __name__: 'http_server_duration_seconds_sum', client: 'a', server: 'b' }, '3.5']]),
      'data.result[0].metric.__name__: the series {__name__="http_server_duration_seconds_sum", client="a", server="b"} is the histogram\'s sum "http_server_duration_seconds_sum", a running total of what the calls measured (seconds, bytes), not of calls: send the answer of a query of the rate of its count, such as sum by (client, server) (rate(http_server_duration_seconds_count[5m]))',
    ],
    [
      'an empty result',
      answer([]),
      'data.result: holds no series: the query matched nothing (a misspelt metric name, or no traffic in its range); looked for "client" and "server" (traces_service_graph_request_total of Tempo, the OpenTelemetry Collector, Alloy), or "source_workload" and "destination_workload" (Istio\'s istio_requests_total)',
    ],
    [
      'a result that is not an array',
      { status: 'success', data: { resultType: 'vector', result: {} } },
      'data.result: must be an array of series, got an object',
    ],
    [
      'a scalar',
      { status: 'success', data: { resultType: 'scalar', result: [1, '3'] } },
      'data.resultType: is "scalar": one value without labels, where series of calls between services are read; send the answer of an instant query (GET /api/v1/query) such as sum by (client, server) (rate(traces_service_graph_request_total[5m]))',
    ],
    [
      'another result type',
      { resultType: 'streams', result: [] },
      'resultType: must be "vector" (an instant vector), got the string "streams"',
    ],
    [
      "the server's error",
      {
        status: 'error',
        errorType: 'bad_data',
        error: 'invalid parameter "query": 1:6: parse error: unexpected end of input',
      },
      'error: the Prometheus server answered with an error (errorType "bad_data"): "invalid parameter \\"query\\": 1:6: parse er…"',
    ],
    [
      'an error without words',
      { status: 'error', errorType: 'timeout' },
      'error: the Prometheus server answered with an error (errorType "timeout"): nothing',
    ],
  ];
  for (const [what, document, message] of cases) {
    // Each names the element at fault by its path, and the series by its labels.
    it(what, () => {
      expect(prometheus.detect(document), 'detected').toBe(true);
      const error = thrown(() => prometheus.toStructure(document));
      expect(error.message).toBe(message);
      expect(error.path).toBe(message.slice(0, message.indexOf(': ')));
    });
  }

  it('refuses what is not an answer when forced', () => {
    expect(thrown(() => readGraph({ status: 'pending', data: {} }, 'prometheus')).message).toBe(
      'status: not prometheus: must be "success" or "error", got the string "pending"',
    );
    expect(thrown(() => readGraph({ status: 'success', data: 'x' }, 'prometheus')).message).toBe(
      'data: not prometheus: must be an object { resultType, result }, got the string "x"',
    );
    expect(thrown(() => readGraph([], 'prometheus')).message).toBe(
      'not prometheus: expected a Prometheus query answer, got an array',
    );
  });

  // The labels option names labels no series has: said as such.
  it('the labels option, not found', () => {
    const error = thrown(() =>
      readGraph(answer([call('a', 'b', '1')]), 'prometheus', { labels: { from: 'src', to: 'dst' } }),
    );
    expect(error.message).toBe(
      'data.result: no series names a caller and a callee: looked for the labels "src" and "dst" (the "labels" option); the first series is {client="a", server="b"}',
    );
  });

  // Bad options are the caller's bug (the API checks them first), not the document's.
  it('refuses bad options as the caller', () => {
    const document = answer([call('a', 'b', '1')]);
    expect(() => prometheus.toStructure(document, { sampleRate: 0 })).toThrow(RangeError);
    expect(() => prometheus.toStructure(document, { labels: { from: 'a', to: 'a' } })).toThrow(RangeError);
    expect(() => prometheus.toStructure(document, { labels: { from: '', to: 'b' } })).toThrow(RangeError);
  });

  // A sample rate so small that the rates divided by it pass the engine's total is the caller's
  // (400 naming sampleRate, as the span formats say it); it was blamed on the document (422).
  it('names a sample rate that takes the rates past the engine total', () => {
    const document = answer([call('user', 'a', '10'), call('a', 'b', '4')]);
    for (const sampleRate of [5e-324, 1e-301])
      expect(() => prometheus.toStructure(document, { sampleRate })).toThrow(
        expect.objectContaining({
          name: 'ReadOptionError',
          option: 'sampleRate',
          message: `sampleRate: ${sampleRate} makes the services' call rates add up to more than 1e+300, the largest total the engine accepts; give the share of traces sampled, from 0 to 1`,
        }),
      );
    expect(prometheus.toStructure(document, { sampleRate: 1e-299 }).nodes[0]).toMatchObject({
      id: 'user',
      arrival: 1e300,
    });
  });

  it('does not echo long values', () => {
    const error = thrown(() =>
      prometheus.toStructure(series([1, 'x'.repeat(500)], { client: 'y'.repeat(500), server: 'b' })),
    );
    expect(error.message.length).toBeLessThan(200);
  });
});

describe('prometheus: properties', () => {
  const name = fc.constantFrom('user', 'a', 'b', 'c', 'd', 'e');
  // Rates within three orders of magnitude, as for dependency links: a service calling itself
  // 1000 times a second for 0.001 requests has a loop gain within 1e-6 of 1, and its steady state
  // keeps only about 10 digits of the rates.
  const rate = fc.oneof(
    fc.integer({ min: 0, max: 1000 }).map(String),
    fc.double({ min: 1, max: 1000, noNaN: true }).map(String),
  );
  const series = fc.array(fc.tuple(name, name, rate), { minLength: 1, maxLength: 25 });

  // Whatever the service graph (cycles, self-calls, repeated pairs, zero rates), the engine's
  // steady state gives every call its rate, and every service that something calls the rate of
  // the calls into it.
  it('random service graphs reproduce their rates', () => {
    fc.assert(
      fc.property(series, fc.constantFrom(1, 0.5, 0.01), (list, sampleRate) => {
        const document = answer(list.map(([client, server, value]) => call(client, server, value)));
        const mapped = prometheus.toStructure(document, { sampleRate });
        const rates = new Map<string, number>();
        for (const [client, server, value] of list) {
          const key = JSON.stringify([client, server]);
          rates.set(key, (rates.get(key) ?? 0) + Number(value) / sampleRate);
        }
        const result = analyze(mapped);
        expect(result.events.filter((event) => event.type === 'unbounded')).toEqual([]);
        const throughput = new Map(result.nodes.map((node) => [node.id, node.throughput!]));
        // 1e-9, or a hundred times what the weights' rounding can move where that is more (fixtures.ts).
        const tolerance = Math.max(1e-9, 100 * roundingReach(mapped, throughput));
        const into = new Map<string, number>();
        for (const dependency of mapped.dependencies) {
          const observed = rates.get(JSON.stringify([dependency.from, dependency.to]))!;
          const flow = throughput.get(dependency.from)! * dependency.weight!;
          expect(Math.abs(flow - observed)).toBeLessThanOrEqual(tolerance * observed);
          if (dependency.from !== dependency.to)
            into.set(dependency.to, (into.get(dependency.to) ?? 0) + observed);
        }
        for (const node of mapped.nodes) {
          if (node.arrival !== undefined) continue;
          const own = mapped.dependencies.find((d) => d.from === node.id && d.to === node.id);
          const expected =
            (into.get(node.id) ?? 0) + (own === undefined ? 0 : (own.rate as number) / sampleRate);
          expect(Math.abs(throughput.get(node.id)! - expected)).toBeLessThanOrEqual(
            tolerance * Math.max(expected, 1),
          );
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('a histogram bucket of bound +Inf', () => {
  // rate(x_bucket{le="+Inf"}[5m]) counts every call once, as the count does: read as calls.
  it('is read as the rate of calls it is', () => {
    const read = prometheus.toStructure({
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          { metric: { client: 'user', server: 'web', le: '+Inf' }, value: [1, '10'] },
          { metric: { client: 'web', server: 'api', le: '+Inf' }, value: [1, '20'] },
        ],
      },
    });
    expect(read.dependencies).toEqual([
      expect.objectContaining({ from: 'user', to: 'web', rate: 10, weight: 1 }),
      expect.objectContaining({ from: 'web', to: 'api', rate: 20, weight: 2 }),
    ]);
    expect(read.nodes.find((node) => node.id === 'user')).toMatchObject({ arrival: 10 });
  });
});
