/**
 * `npm run load`: load and soak the local server with autocannon, next to a bare `node:http`
 * JSON server measured in the same run.
 *
 * Scenarios (each for `--duration` seconds, `--connections` connections, but busy):
 * - small:   POST /api/engine, the worked example (3 nodes), analyze
 * - large:   POST /api/engine, a generated 10,000-node structure, analyze
 * - system:  POST /api/engine { mode: analyze, systemId } of a 1,000-node system registered first
 * - connect: POST /api/connect (a small graph from a fake upstream on 127.0.0.1), GET
 *            /api/systems, DELETE /api/systems/{id}, in turn on every connection
 * - mixed:   all of the above interleaved on every connection
 * - busy:    two POST /api/engine analyses of 100,000 nodes and 500,000 dependencies at once,
 *            and meanwhile GET /api/systems, one at a time, until both are answered: how long a
 *            small request waits while the engine works (target: every one within 50 ms)
 *
 * Prints the server's RSS every 10 s, then req/s, p50/p99 latency and errors per scenario, and
 * the bare server's req/s for the small body with the ratio. Starts its own server unless
 * `--url` names one, which must be on this machine: dynalite in one child process and the local
 * server, pointed at it with DYNAMODB_ENDPOINT, in another, so the server's RSS is the
 * service's own and DynamoDB's is reported beside it (dynalite 4.0.0 keeps memory on every
 * Query; see docs/benchmark.md).
 *
 * `--amount N` sends exactly N requests per scenario instead of running for a duration: what a
 * test wants (every scenario ran, without an error) whatever the machine's load, where a window
 * of one second may see no answer from a busy server.
 *
 * Usage: npm run load -- [--scenario all|small|large|system|connect|mixed|busy[,…]] [--duration 10]
 *          [--amount N] [--connections 10] [--baseline-duration s] [--url http://127.0.0.1:3000
 *          --api-key K --token T [--pid P]]
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, type OutgoingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import type autocannon from 'autocannon';
import { refuseCommandLine, scriptArgs } from '../lib/script-args';
import { WORKED_EXAMPLE } from '../lib/worked-example';
import { generateStructure, largestAnswerableStructure, requestText } from './generate';
import { type Column, formatRatio, renderTable } from './table';

const COMMAND = 'npm run load';

/** The scenarios autocannon runs, each for `--duration` seconds. */
const SCENARIOS = ['small', 'large', 'system', 'connect', 'mixed'] as const;
type Scenario = (typeof SCENARIOS)[number];
/** The scenario that lasts as long as its two analyses take. */
const BUSY = 'busy';
/** The longest a small GET may wait while the engine works (issue #35). */
const BUSY_GET_TARGET_MS = 50;
/** The pause between one small GET's answer and the next GET. */
const BUSY_GET_PAUSE_MS = 10;
/** Bounds, so a typo cannot start an hour-long or thousand-connection run by accident. */
const MAX_DURATION_S = 3600;
const MAX_CONNECTIONS = 256;
const MAX_AMOUNT = 10_000_000;
const RSS_EVERY_MS = 10_000;
const GATEWAY_TIMEOUT_S = 30;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

interface Target {
  url: string;
  apiKey: string;
  userToken: string;
  /** The server's process, for its RSS; unknown for a server given by `--url` without `--pid`. */
  pid: number | undefined;
  /** The DynamoDB's process, when this command started it. */
  dynamoPid?: number | undefined;
}

interface Bodies {
  small: string;
  large: string;
  system: string;
  connect: string;
}

type Request = autocannon.Request;

function engine(target: Target, body: string): Request {
  return {
    method: 'POST',
    path: '/api/engine',
    headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
    body,
  };
}

/** Connect, list, delete: the id of the system a connection registered is kept in its context. */
function connectListDelete(target: Target, bodies: Bodies): Request[] {
  const auth = { authorization: `Bearer ${target.userToken}` };
  return [
    {
      method: 'POST',
      path: '/api/connect',
      headers: { ...auth, 'content-type': 'application/json' },
      body: bodies.connect,
      onResponse: (status, body, context) => {
        (context as { id?: string }).id =
          status === 201 ? (JSON.parse(body) as { id: string }).id : undefined;
      },
    },
    { method: 'GET', path: '/api/systems', headers: auth },
    {
      method: 'DELETE',
      headers: auth,
      // Without an id (the connect failed, already counted) this asks for one that cannot exist: a 404, counted too.
      setupRequest: (request, context) => ({
        ...request,
        path: `/api/systems/${(context as { id?: string }).id ?? 'not-registered'}`,
      }),
    },
  ];
}

function requestsOf(scenario: Scenario, target: Target, bodies: Bodies): Request[] {
  switch (scenario) {
    case 'small':
      return [engine(target, bodies.small)];
    case 'large':
      return [engine(target, bodies.large)];
    case 'system':
      return [engine(target, bodies.system)];
    case 'connect':
      return connectListDelete(target, bodies);
    case 'mixed':
      return [
        engine(target, bodies.small),
        engine(target, bodies.system),
        ...connectListDelete(target, bodies),
        engine(target, bodies.small),
        engine(target, bodies.large),
        engine(target, bodies.system),
      ];
  }
}

/** The server's resident set size in MiB, from /proc where there is one, else `ps`. */
function rssMiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    if (kb !== undefined) return Number(kb) / 1024;
  } catch {
    // not Linux, or the process is gone
  }
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
  } catch {
    return undefined;
  }
}

interface RunResult {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  errors: number;
  /** What the errors were: timeouts, connection errors, and the statuses other than 2xx. */
  errorKinds: string;
  rss: number[];
  dynamoRss: number[];
}

/** One autocannon run; every 10 s a line with the server's RSS and the requests of those 10 s. */
async function run(label: string, url: string, requests: Request[], options: RunOptions): Promise<RunResult> {
  // Loaded at the first run, once the command line is read: --help and a mistake answer at once.
  const { default: autocannon } = await import('autocannon');
  const rss: number[] = [];
  const dynamoRss: number[] = [];
  const record = () => {
    const server = options.pid === undefined ? undefined : rssMiB(options.pid);
    const dynamo = options.dynamoPid === undefined ? undefined : rssMiB(options.dynamoPid);
    if (server !== undefined) rss.push(server);
    if (dynamo !== undefined) dynamoRss.push(dynamo);
    return { server, dynamo };
  };
  let windowResponses = 0;
  let windowErrors = 0;
  const started = Date.now();
  let finished: (result: autocannon.Result) => void = () => undefined;
  let failed: (error: Error) => void = () => undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finished = resolve;
    failed = reject;
  });
  const instance = autocannon(
    {
      url,
      connections: options.connections,
      // autocannon ignores the duration when it is given an amount.
      ...(options.amount === undefined ? { duration: options.duration } : { amount: options.amount }),
      requests,
      // API Gateway's integration limit: a request still unanswered then would be a 504 there.
      timeout: GATEWAY_TIMEOUT_S,
    },
    (error, result) => (error ? failed(error) : finished(result)),
  );
  instance.on('response', (_client, statusCode) => {
    windowResponses++;
    if (statusCode < 200 || statusCode > 299) windowErrors++;
  });
  const sample = () => {
    const now = record();
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stdout.write(
      `  [${label} ${String(seconds).padStart(4)} s] ${(windowResponses / (RSS_EVERY_MS / 1000)).toFixed(0).padStart(6)} req/s, ` +
        `${windowErrors} errors, server RSS ${now.server === undefined ? 'unknown' : `${now.server.toFixed(1)} MiB`}` +
        `${now.dynamo === undefined ? '' : `, DynamoDB RSS ${now.dynamo.toFixed(1)} MiB`}\n`,
    );
    windowResponses = 0;
    windowErrors = 0;
  };
  record();
  const timer = setInterval(sample, RSS_EVERY_MS);
  const result = await done;
  clearInterval(timer);
  record();
  return {
    label,
    requestsPerSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors + result.timeouts + result.non2xx,
    errorKinds: errorKindsOf(result),
    rss,
    dynamoRss,
  };
}

interface RunOptions {
  duration: number;
  /** Exactly this many requests, whatever time they take, instead of `duration`. */
  amount?: number | undefined;
  connections: number;
  pid: number | undefined;
  dynamoPid?: number | undefined;
}

/** A child process that writes one JSON line to file descriptor 3 once it is ready. */
function startChild(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let text = '';
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    pipe.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline !== -1) resolve({ child, ready: JSON.parse(text.slice(0, newline)) });
    });
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited with ${code} before it was ready`)),
    );
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The peer: a bare `node:http` server that reads the body, parses it as JSON and answers a small
 * JSON object, on the same Node, in its own process, as the service's server is.
 */
const BARE_SERVER = `
import { createServer } from 'node:http';
import { writeSync } from 'node:fs';
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let status = 200;
    let body;
    try {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      body = JSON.stringify({ ok: true, nodes: Array.isArray(parsed.nodes) ? parsed.nodes.length : 0 });
    } catch {
      status = 400;
      body = JSON.stringify({ error: { code: 'INVALID_JSON' } });
    }
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  writeSync(3, JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port, pid: process.pid }) + '\\n');
});
process.once('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
`;

/** The external API that connect fetches from: two fixed graphs on 127.0.0.1. */
async function startUpstream(documents: Record<string, string>): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const document = documents[req.url ?? ''];
    if (document === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(document);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function boundedInteger(name: string, value: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    refuseCommandLine(
      COMMAND,
      `--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  }
  return parsed;
}

function loopbackUrl(value: string): string {
  const url = URL.parse(value);
  if (url === null || url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) {
    refuseCommandLine(
      COMMAND,
      '--url must be an http:// URL on this machine (127.0.0.1, localhost or [::1])',
    );
  }
  return url.origin;
}

/** autocannon measures latency in whole milliseconds. */
function formatLatency(ms: number): string {
  return ms < 1 ? '< 1 ms' : `${ms.toFixed(0)} ms`;
}

function errorKindsOf(result: autocannon.Result): string {
  const statuses = Object.entries(
    (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {},
  )
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${count} × ${status}`);
  return [
    ...(result.timeouts > 0 ? [`${result.timeouts} timeouts (${GATEWAY_TIMEOUT_S} s)`] : []),
    ...(result.errors - result.timeouts > 0 ? [`${result.errors - result.timeouts} connection errors`] : []),
    ...statuses,
  ].join(', ');
}

function series(rss: readonly number[]): string {
  return rss.map((mib) => mib.toFixed(0)).join(' ');
}

function rssSummary(rss: readonly number[]): string {
  if (rss.length === 0) return 'unknown';
  const first = rss[0]!;
  const last = rss.at(-1)!;
  return `${first.toFixed(0)} → ${last.toFixed(0)} MiB (max ${Math.max(...rss).toFixed(0)})`;
}

interface BusyResult {
  /** Each analysis's status (0: no answer) and the seconds until it was answered. */
  analyses: Array<{ status: number; seconds: number }>;
  /** Milliseconds each small GET took, from sending it to the end of its answer. */
  latencies: number[];
  /** Small GETs answered with another status than 200, or not at all. */
  getErrors: number;
  /** The server's RSS (MiB), every second. */
  rss: number[];
}

/** One request over node:http: its status, once the answer is read (and dropped, never decoded). */
function send(
  url: string,
  agent: Agent,
  options: { method: string; headers: OutgoingHttpHeaders; body?: Buffer },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: options.method, headers: options.headers, agent }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
      response.once('error', reject);
    });
    sent.setTimeout(GATEWAY_TIMEOUT_S * 1000, () =>
      sent.destroy(new Error(`no answer within ${GATEWAY_TIMEOUT_S} s`)),
    );
    sent.once('error', reject);
    sent.end(options.body);
  });
}

/**
 * The busy scenario: two analyses of `body` (gzipped) sent at once and, until both are answered,
 * `GET /api/systems` one at a time, `BUSY_GET_PAUSE_MS` apart. Two small analyses go first: on a
 * server given by `--url`, the first engine requests may pay a worker's cold start, which is not
 * what this measures.
 */
async function busy(target: Target, body: Buffer): Promise<BusyResult> {
  const agent = new Agent({ keepAlive: true });
  const engineRun = (payload: Buffer, encoding: string) =>
    send(`${target.url}/api/engine`, agent, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${target.apiKey}`,
        'content-type': 'application/octet-stream',
        'content-encoding': encoding,
        // The answer is ~32 MB of JSON: it fits the 6 MiB response limit only compressed.
        'accept-encoding': 'br',
      },
      body: payload,
    }).catch(() => 0);
  const small = Buffer.from(JSON.stringify({ mode: 'analyze', ...WORKED_EXAMPLE }));
  await Promise.all([engineRun(small, 'identity'), engineRun(small, 'identity')]);

  const rss: number[] = [];
  const sampleRss = () => {
    const mib = target.pid === undefined ? undefined : rssMiB(target.pid);
    if (mib !== undefined) rss.push(mib);
  };
  sampleRss();
  const rssTimer = setInterval(sampleRss, 1000);
  const started = performance.now();
  let pending = 2;
  const analyses = [engineRun(body, 'gzip'), engineRun(body, 'gzip')].map((answer) =>
    answer.then((status) => {
      pending--;
      return { status, seconds: (performance.now() - started) / 1000 };
    }),
  );
  const latencies: number[] = [];
  let getErrors = 0;
  try {
    while (pending > 0) {
      const sent = performance.now();
      const status = await send(`${target.url}/api/systems`, agent, {
        method: 'GET',
        headers: { authorization: `Bearer ${target.userToken}` },
      }).catch(() => 0);
      latencies.push(performance.now() - sent);
      if (status !== 200) getErrors++;
      await sleep(BUSY_GET_PAUSE_MS);
    }
    return { analyses: await Promise.all(analyses), latencies, getErrors, rss };
  } finally {
    clearInterval(rssTimer);
    agent.destroy();
  }
}

/** The nearest-rank percentile of ascending values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Prints the busy scenario's report; returns its errors. */
function reportBusy(result: BusyResult, gzippedBytes: number): number {
  const sorted = [...result.latencies].sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const max = sorted.at(-1) ?? Number.NaN;
  const failedAnalyses = result.analyses.filter((analysis) => analysis.status !== 200).length;
  console.log(
    `\nbusy: small GETs during two 100k/500k analyses. Two POST /api/engine at once (100,000 nodes, ` +
      `500,000 dependencies, ${(gzippedBytes / 1e6).toFixed(1)} MB gzipped), answered ` +
      `${result.analyses.map((analysis) => `${analysis.status} in ${analysis.seconds.toFixed(1)} s`).join(' and ')}; ` +
      `meanwhile GET /api/systems one at a time, ${BUSY_GET_PAUSE_MS} ms apart:\n` +
      `  ${sorted.length} GETs, ${result.getErrors} errors: p50 ${ms(percentile(sorted, 50))}, ` +
      `p99 ${ms(percentile(sorted, 99))}, max ${ms(max)}\n` +
      `  ${max <= BUSY_GET_TARGET_MS ? 'PASS' : 'MISS'}  every small GET answered within ` +
      `${BUSY_GET_TARGET_MS} ms while the analyses ran, measured max ${ms(max)}` +
      (result.rss.length === 0 ? '' : `\n  server RSS ${rssSummary(result.rss)}`),
  );
  return result.getErrors + failedAnalyses;
}

/** `--scenario`: `all`, or one or more names separated by commas. */
function readScenarios(value: string): { scenarios: Scenario[]; busy: boolean } {
  const names = value === 'all' ? [...SCENARIOS, BUSY] : value.split(',').map((name) => name.trim());
  const known: readonly string[] = [...SCENARIOS, BUSY];
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0 || names.length === 0) {
    refuseCommandLine(
      COMMAND,
      `--scenario must be all, or one or more of ${known.join(', ')} separated by commas`,
    );
  }
  return {
    scenarios: SCENARIOS.filter((scenario) => names.includes(scenario)),
    busy: names.includes(BUSY),
  };
}

/**
 * The autocannon scenarios, one after another, then the bare node:http server with the small
 * body; prints their table, the ratio and the RSS series. Returns the errors.
 */
async function runScenarios(
  scenarios: readonly Scenario[],
  target: Target,
  bodies: Bodies,
  options: {
    duration: number;
    amount: number | undefined;
    connections: number;
    baselineDuration: number;
    children: ChildProcess[];
  },
): Promise<number> {
  const results: RunResult[] = [];
  for (const scenario of scenarios) {
    results.push(
      await run(scenario, target.url, requestsOf(scenario, target, bodies), {
        duration: options.duration,
        amount: options.amount,
        connections: options.connections,
        pid: target.pid,
        dynamoPid: target.dynamoPid,
      }),
    );
  }

  const { child: bareChild, ready: bare } = await startChild(['--input-type=module', '--eval', BARE_SERVER]);
  options.children.push(bareChild);
  const baseline = await run(
    'bare node:http, small body',
    bare.url as string,
    [engine(target, bodies.small)],
    {
      duration: options.baselineDuration,
      amount: options.amount,
      connections: options.connections,
      pid: bare.pid as number,
    },
  );
  const small = results.find((result) => result.label === 'small');

  const columns: Column[] = [
    { header: 'scenario', align: 'left' },
    { header: 'req/s', align: 'right' },
    { header: 'p50', align: 'right' },
    { header: 'p99', align: 'right' },
    { header: 'requests', align: 'right' },
    { header: 'errors', align: 'right' },
    { header: 'server RSS', align: 'left' },
    { header: 'DynamoDB RSS', align: 'left' },
  ];
  const row = (result: RunResult) => [
    result.label,
    result.requestsPerSecond.toFixed(0),
    formatLatency(result.p50),
    formatLatency(result.p99),
    String(result.total),
    String(result.errors),
    rssSummary(result.rss),
    result.dynamoRss.length === 0 ? '' : rssSummary(result.dynamoRss),
  ];
  console.log(`\n${renderTable(columns, [...results.map(row), row(baseline)])}`);
  if (small !== undefined) {
    console.log(
      `\nsmall body: the service serves ${formatRatio(small.requestsPerSecond / baseline.requestsPerSecond)} ` +
        'the requests per second of a bare node:http JSON server (same body, connections and machine).',
    );
  }
  for (const result of results) {
    if (result.rss.length > 2) {
      console.log(`server RSS series (${result.label}, MiB, every 10 s): ${series(result.rss)}`);
      if (result.dynamoRss.length > 2) {
        console.log(`DynamoDB RSS series (${result.label}, MiB, every 10 s): ${series(result.dynamoRss)}`);
      }
    }
  }
  for (const result of [...results, baseline]) {
    if (result.errors > 0) console.log(`errors in ${result.label}: ${result.errorKinds}`);
  }
  return results.reduce((sum, result) => sum + result.errors, 0) + baseline.errors;
}

async function main(): Promise<void> {
  const values = scriptArgs({
    command: COMMAND,
    usage: `Loads and soaks the local server with autocannon, beside a bare node:http server.

  --scenario all|small|large|system|connect|mixed|busy[,…]   what to send (default all)
  --duration S             seconds per scenario (default 10, at most ${MAX_DURATION_S})
  --amount N               exactly N requests per scenario instead (at most ${MAX_AMOUNT})
  --connections N          connections (default 10, at most ${MAX_CONNECTIONS})
  --baseline-duration S    seconds for the bare server (default: --duration)
  --url URL --api-key K --token T [--pid P]   a server already running on this machine
  -h, --help               this text`,
    options: {
      scenario: { type: 'string', default: 'all' },
      duration: { type: 'string', default: '10' },
      amount: { type: 'string' },
      connections: { type: 'string', default: '10' },
      'baseline-duration': { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      token: { type: 'string' },
      pid: { type: 'string' },
    },
  });
  const duration = boundedInteger('duration', values.duration, 1, MAX_DURATION_S);
  const connections = boundedInteger('connections', values.connections, 1, MAX_CONNECTIONS);
  const amount =
    values.amount === undefined ? undefined : boundedInteger('amount', values.amount, 1, MAX_AMOUNT);
  const baselineDuration = boundedInteger(
    'baseline-duration',
    values['baseline-duration'] ?? String(Math.min(duration, 30)),
    1,
    MAX_DURATION_S,
  );
  const { scenarios, busy: runBusy } = readScenarios(values.scenario);

  const large = generateStructure({ shape: 'random', nodeCount: 10_000, dependencyCount: 20_000 });
  const registered = generateStructure({ shape: 'random', nodeCount: 1_000, dependencyCount: 2_000 });
  const upstream = await startUpstream({
    '/system.json': JSON.stringify({ nodes: registered.nodes, dependencies: registered.dependencies }),
    '/small.json': JSON.stringify(WORKED_EXAMPLE),
  });
  const children: ChildProcess[] = [];
  try {
    let target: Target;
    if (values.url !== undefined) {
      const apiKey = values['api-key'] ?? process.env.SBE_KEY;
      const userToken = values.token ?? process.env.SBE_TOKEN;
      if (apiKey === undefined || userToken === undefined) {
        refuseCommandLine(COMMAND, '--url needs --api-key (or SBE_KEY) and --token (or SBE_TOKEN)');
      }
      target = {
        url: loopbackUrl(values.url),
        apiKey,
        userToken,
        pid: values.pid === undefined ? undefined : boundedInteger('pid', values.pid, 1, 2 ** 31),
      };
    } else {
      const dynamo = await startChild(['--import', 'tsx', 'bench/load-server.ts', 'dynamo']);
      children.push(dynamo.child);
      const server = await startChild(['--import', 'tsx', 'bench/load-server.ts'], {
        DYNAMODB_ENDPOINT: dynamo.ready.endpoint as string,
      });
      children.unshift(server.child); // stopped before its DynamoDB
      target = { ...(server.ready as unknown as Target), dynamoPid: dynamo.ready.pid as number };
    }

    const registration = await fetch(`${target.url}/api/connect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'load: 1,000 nodes', url: `${upstream.origin}/system.json` }),
    });
    if (registration.status !== 201) {
      throw new Error(
        `registering the 1,000-node system answered ${registration.status}: ${await registration.text()}`,
      );
    }
    const systemId = ((await registration.json()) as { id: string }).id;
    const bodies: Bodies = {
      small: JSON.stringify({ mode: 'analyze', ...WORKED_EXAMPLE }),
      large: requestText(large),
      system: JSON.stringify({ mode: 'analyze', systemId }),
      connect: JSON.stringify({ name: 'load: connect', url: `${upstream.origin}/small.json` }),
    };

    console.log(
      `npm run load: Node ${process.version}, ${connections} connections, ${amount === undefined ? `${duration} s` : `${amount} requests`} per scenario; ` +
        `server ${target.url}${target.pid === undefined ? '' : ` (pid ${target.pid})`}; load generator, upstream ` +
        'and server share this machine\n',
    );
    let errors = 0;
    if (scenarios.length > 0) {
      errors += await runScenarios(scenarios, target, bodies, {
        duration,
        amount,
        connections,
        baselineDuration,
        children,
      });
    }
    if (runBusy) {
      const body = gzipSync(requestText(largestAnswerableStructure()));
      errors += reportBusy(await busy(target, body), body.length);
    }
    console.log(`\n${errors === 0 ? 'no errors' : `${errors} errors`}`);
    if (errors > 0) process.exitCode = 1;
  } finally {
    for (const child of children) await stopChild(child);
    await new Promise((resolve) => upstream.server.close(resolve));
  }
}

await main();
