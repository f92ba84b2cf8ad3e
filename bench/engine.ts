/**
 * `npm run bench`: the engine against a general-purpose graph library (graphology) and against
 * the floor every request pays anyway (JSON parse of the request, JSON stringify of the
 * response), on generated structures from 1k to 200k nodes / 1M dependencies.
 *
 * Usage: npm run bench [-- --quick] [-- --only=compare|latency|spans|round]
 * Needs `node --expose-gc` (the npm script passes it) so garbage from one measurement is
 * collected before the next one starts instead of being billed to it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import { compileEngineRequest, parseEngineEnvelope, parseEngineRequest } from '../lib/api/engine-request';
import { renderEngineResponse } from '../lib/api/engine-response';
import { readLimits } from '../lib/config/limits';
import type { NodeInput } from '../lib/engine';
import {
  analyze,
  compileStructure,
  createSimulation,
  type EngineResult,
  type Structure,
  ticks,
} from '../lib/engine';
import { scratch } from '../lib/engine/scratch';
import { solveSteadyState } from '../lib/engine/steady-state';
import { CompiledStructureCache, readSystemCacheBytes } from '../lib/systems/compiled-cache';
import { encodeStructure } from '../lib/systems/payload';
import { args } from './engine-args';
import {
  type Family,
  GENERATOR,
  generateFamily,
  generateStructure,
  requestText,
  type Shape,
  type ShapeSpec,
  withCollidingIds,
} from './generate';
import { runGraphologyPeer } from './graphology-peer';
import { timesInTurns } from './in-turns';
import { benchLatency, type LatencyFamily, type LatencyResult, latencyTable } from './latency';
import {
  benchGainAtLeastOne,
  benchWhatIf,
  type GainResult,
  printRoundChecks,
  roundChecks,
  type WhatIfResult,
  whatIfTable,
} from './performance-round';
import { reachSweeps } from './reach-sweeps';
import { benchRegistration, type RegistrationResult } from './registration';
import { benchSpans, type SpansResult, spansTable } from './spans';
import {
  type Column,
  formatCount,
  formatMs,
  formatNs,
  formatRatio,
  median,
  renderTable,
  type TargetCheck,
} from './table';

interface SizeSpec {
  nodeCount: number;
  dependencyCount: number;
  /** Planned runs per measurement; the median is reported. */
  runs: number;
  /** `ticks`: `ticks(…, 100)` with snapshots; `step`: the step alone, 100 times. */
  timeline: 'ticks' | 'step' | undefined;
  /** The row the targets are about; also gets the time breakdown of `analyze`. */
  targetRow: boolean;
}

const SIZES: readonly SizeSpec[] = [
  { nodeCount: 1_000, dependencyCount: 4_000, runs: 7, timeline: undefined, targetRow: false },
  { nodeCount: 10_000, dependencyCount: 40_000, runs: 7, timeline: 'ticks', targetRow: false },
  { nodeCount: 100_000, dependencyCount: 400_000, runs: 7, timeline: undefined, targetRow: false },
  { nodeCount: 200_000, dependencyCount: 1_000_000, runs: 5, timeline: 'step', targetRow: true },
];
const SHAPES: readonly Shape[] = ['random', 'deep'];
const TIMELINE_TICKS = 100;

/**
 * Runs of one measurement stop early once the next one would take the measurement past this,
 * so a slow engine cannot stretch the whole bench far past its ~5 minute budget. At least one
 * run always happens; rows with fewer runs than planned are listed under the table.
 */
const MEASUREMENT_BUDGET_MS = 20_000;
/**
 * A first run faster than this is a JIT warm-up and is thrown away; a slower one counts, unless
 * the measurement asks to always warm up (`measure`'s `alwaysWarmUp`).
 */
const WARM_UP_LIMIT_MS = 1_000;

const TARGETS = {
  graphologyOverOurs: 20,
  oursOverFloor: 0.5,
  endToEndOverFloor: 1,
  stepNsPerDependencyTick: 10,
  /** ticks 100 on the 10k rows, end to end with our writer, over JSON.stringify of the snapshots alone. */
  ticksEndToEndOverStringify: 0.5,
} as const;

const quick = args.quick === true;
const collectGarbage = globalThis.gc;
if (collectGarbage === undefined) {
  console.error('Run through `npm run bench` (node --expose-gc): measurements need gc() between them.');
  process.exit(1);
}

const benchStart = performance.now();
function progress(message: string): void {
  const seconds = ((performance.now() - benchStart) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[${seconds} s] ${message}\n`);
}

/**
 * Full (mark-compact) garbage collections seen so far. Each walks the whole heap, the parsed
 * request included, so their count per call is what makes a big analyze slower than linear.
 */
let fullGcs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { detail } = entry as unknown as { detail?: { kind?: number } };
    if (detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) fullGcs++;
  }
}).observe({ entryTypes: ['gc'] });

/** Full GCs during `run`, counted once the observer has been told of them (it reports asynchronously). */
async function fullGcsDuring(run: () => void): Promise<number> {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
  await settle();
  const before = fullGcs;
  run();
  await settle();
  return fullGcs - before;
}

interface Sample {
  ms: number;
  /** Named parts of `ms`, e.g. parse and stringify; their medians are reported too. */
  parts?: Record<string, number>;
  /** Something that happened in this run, e.g. a stack overflow. */
  note?: string;
}

interface Measurement {
  medianMs: number;
  runsMs: number[];
  planned: number;
  parts: Record<string, number>;
  /** How many of the counted runs reported each note. */
  notes: Record<string, number>;
}

/**
 * Median of up to `planned` runs. gc() runs before every run, so each run starts from a heap
 * without the previous run's garbage (runs must not keep their results alive).
 */
/**
 * `alwaysWarmUp`: throw the first run away however long it took. Rows whose ratio across sizes
 * is a target need it: a first run of a 1M-node structure also grows the heap to hold it (2.5×
 * a warm run here), and keeping it where the 500k row's faster first run is thrown away would
 * compare a cold median with a warm one.
 */
function measure(planned: number, run: () => Sample, { alwaysWarmUp = false } = {}): Measurement {
  const samples: Sample[] = [];
  let spent = 0;
  let warmedUp = false;
  while (samples.length < planned) {
    collectGarbage!();
    const sample = run();
    if (!warmedUp) {
      warmedUp = true;
      if (alwaysWarmUp || sample.ms < WARM_UP_LIMIT_MS) continue;
    }
    samples.push(sample);
    spent += sample.ms;
    if (spent + sample.ms > MEASUREMENT_BUDGET_MS) break;
  }
  return summarize(samples, planned);
}

/**
 * Runs whose ratio is a target, `planned` of each timed in turns after a warm-up run of each
 * (bench/in-turns.ts), so the machine's drift falls on all of them alike.
 */
function measureInTurns(planned: number, runs: ReadonlyArray<() => Sample>): Measurement[] {
  return timesInTurns(planned, runs, collectGarbage!).map((samples) => summarize(samples, planned));
}

function summarize(samples: readonly Sample[], planned: number): Measurement {
  const parts: Record<string, number> = {};
  for (const name of Object.keys(samples[0]?.parts ?? {})) {
    parts[name] = median(samples.map((sample) => sample.parts?.[name] ?? 0));
  }
  const notes: Record<string, number> = {};
  for (const { note } of samples) if (note) notes[note] = (notes[note] ?? 0) + 1;
  return {
    medianMs: median(samples.map((s) => s.ms)),
    runsMs: samples.map((s) => s.ms),
    planned,
    parts,
    notes,
  };
}

interface Timeline {
  kind: 'ticks' | 'step';
  ticks: number;
  measurement: Measurement;
  nsPerDependencyTick: number;
  /** `ticks` only: `JSON.stringify` of the response holding those snapshots, on a warm heap. */
  stringify?: Measurement;
  /** `ticks` only: the `ticks` request text to its response text, as the service answers it. */
  endToEnd?: Measurement;
}

interface Breakdown {
  compileMs: number;
  componentsMs: number;
  oneStepMs: number;
  /** `analyze` minus the three above: describing the state, reach, origin, trace, events. */
  restMs: number;
}

interface RowResult {
  name: string;
  shape: Shape;
  nodeCount: number;
  dependencyCount: number;
  requestBytes: number;
  responseBytes: number;
  ours: Measurement;
  /** `medianMs` is build + SCC, or the build alone when SCC overflowed in any run. */
  peer: Measurement & { sccOverflowRuns: number; components: number | undefined };
  floor: Measurement;
  graphologyOverOurs: number;
  /** True when graphology's SCC overflowed: its build time alone makes the ratio a lower bound. */
  graphologyRatioIsLowerBound: boolean;
  oursOverFloor: number;
  /** Request text to response text through the service's own parse, engine and serializer. */
  endToEnd: Measurement;
  /** The same, the response built as objects and serialized by `JSON.stringify` instead. */
  endToEndStringify: Measurement;
  endToEndOverFloor: number;
  timeline: Timeline | undefined;
  breakdown: Breakdown | undefined;
  facts: ResultFacts;
  /** Full garbage collections during one analyze, started on a collected heap. */
  fullGcs: number;
}

/** What the analysed inputs look like, to show the work is not trivial. */
interface ResultFacts {
  sinks: number;
  blockedNodes: number;
  primaryBlockage: string | null;
  cycleEvents: number;
  largestCycle: number;
  traceLength: number;
  originShare: number | null;
}

function factsOf(result: EngineResult): ResultFacts {
  let largestCycle = 0;
  let cycleEvents = 0;
  for (const event of result.events) {
    if (event.type !== 'cycle') continue;
    cycleEvents++;
    largestCycle = Math.max(largestCycle, event.nodes.length);
  }
  return {
    sinks: result.nodes.filter((node) => node.role === 'sink').length,
    blockedNodes: result.nodes.filter((node) => node.blocked).length,
    primaryBlockage: result.primaryBlockage,
    cycleEvents,
    largestCycle,
    traceLength: result.trace.length,
    originShare: result.origin?.share ?? null,
  };
}

/** Keeps results reachable so the optimiser cannot treat measured calls as dead code. */
let sink = 0;

async function benchRow(size: SizeSpec, shape: Shape): Promise<RowResult> {
  const name = `${shape} ${formatCount(size.nodeCount)}/${formatCount(size.dependencyCount)}`;
  progress(`${name}: generating`);
  const text = requestText(generateStructure({ shape, ...size }));
  // The engine gets exactly what a server would hand it: the parsed request body.
  const parsed = JSON.parse(text) as Structure & { mode: string };

  progress(`${name}: ours (analyze)`);
  const ours = measure(size.runs, () => {
    const started = performance.now();
    const result = analyze(parsed);
    const ms = performance.now() - started;
    sink += result.nodes.length;
    return { ms };
  });
  collectGarbage!();
  const analyzeFullGcs = await fullGcsDuring(() => {
    sink += analyze(parsed).nodes.length;
  });
  // One more result, outside the timed runs, to stringify and to describe the input.
  let response: { mode: 'analyze'; engine: EngineResult } | undefined = {
    mode: 'analyze',
    engine: analyze(parsed),
  };
  const facts = factsOf(response.engine);

  progress(`${name}: floor (JSON.parse + JSON.stringify)`);
  let responseBytes = 0;
  const floor = measure(size.runs, () => {
    const started = performance.now();
    const body = JSON.parse(text) as unknown;
    const parsedAt = performance.now();
    const out = JSON.stringify(response);
    const done = performance.now();
    sink += body === null ? 0 : 1;
    responseBytes = Buffer.byteLength(out);
    return { ms: done - started, parts: { parseMs: parsedAt - started, stringifyMs: done - parsedAt } };
  });
  response = undefined;

  // What the service does with the request text: parse, validate, analyze, serialize.
  progress(`${name}: end to end (request text → response text)`);
  const endToEnd = measure(size.runs, () => {
    const started = performance.now();
    const request = parseEngineRequest(JSON.parse(text) as unknown, BENCH_LIMITS);
    sink += renderEngineResponse(request).length;
    return { ms: performance.now() - started };
  });
  // The same path with the result objects and JSON.stringify: what the writer replaced.
  progress(`${name}: end to end with JSON.stringify`);
  const endToEndStringify = measure(size.runs, () => {
    const started = performance.now();
    const request = parseEngineRequest(JSON.parse(text) as unknown, BENCH_LIMITS);
    sink += JSON.stringify({ mode: 'analyze', engine: analyze(request.structure) }).length;
    return { ms: performance.now() - started };
  });

  progress(`${name}: graphology`);
  let components: number | undefined;
  const peerMeasurement = measure(size.runs, (): Sample => {
    const timing = runGraphologyPeer(parsed);
    components = timing.components;
    if (timing.sccMs === undefined) {
      return { ms: timing.buildMs, parts: { buildMs: timing.buildMs }, note: 'scc-overflow' };
    }
    return {
      ms: timing.buildMs + timing.sccMs,
      parts: { buildMs: timing.buildMs, sccMs: timing.sccMs },
    };
  });
  const sccOverflowRuns = peerMeasurement.notes['scc-overflow'] ?? 0;
  const sccOverflow = sccOverflowRuns > 0;
  const peer = {
    ...peerMeasurement,
    // Mixing build-only and build + SCC runs would make the median meaningless.
    medianMs: sccOverflow ? peerMeasurement.parts.buildMs! : peerMeasurement.medianMs,
    sccOverflowRuns,
    components: sccOverflow ? undefined : components,
  };

  let timeline: Timeline | undefined;
  if (size.timeline === 'ticks') {
    progress(`${name}: ticks(…, ${TIMELINE_TICKS})`);
    const measurement = measure(size.runs, () => {
      const started = performance.now();
      const snapshots = ticks(parsed, TIMELINE_TICKS);
      const ms = performance.now() - started;
      sink += snapshots.length;
      return { ms };
    });
    // What serializing that timeline costs, beside building it: the snapshots are built once,
    // outside the timing, and the JIT has seen JSON.stringify on them before the counted runs.
    progress(`${name}: JSON.stringify of the ${TIMELINE_TICKS} snapshots`);
    let snapshots: unknown = {
      mode: 'ticks',
      ticks: TIMELINE_TICKS,
      snapshots: ticks(parsed, TIMELINE_TICKS),
    };
    const stringify = measure(3, () => {
      const started = performance.now();
      sink += JSON.stringify(snapshots).length;
      return { ms: performance.now() - started };
    });
    snapshots = undefined;
    // Request text to response text. The API itself caps a response at 1,000,000 snapshot
    // elements (18 ticks of this structure), so this is the engine's path without that check.
    // renderEngineResponse writes the response, without parseEngineRequest's limits.
    progress(`${name}: ticks(…, ${TIMELINE_TICKS}) end to end`);
    const endToEnd = measure(3, () => {
      const started = performance.now();
      const structure = compileStructure(JSON.parse(text) as Structure);
      sink += renderEngineResponse({ mode: 'ticks', ticks: TIMELINE_TICKS, structure }).length;
      return { ms: performance.now() - started };
    });
    timeline = {
      kind: 'ticks',
      ticks: TIMELINE_TICKS,
      measurement,
      nsPerDependencyTick: (measurement.medianMs * 1e6) / (size.dependencyCount * TIMELINE_TICKS),
      stringify,
      endToEnd,
    };
  } else if (size.timeline === 'step') {
    progress(`${name}: step alone ×${TIMELINE_TICKS}`);
    const structure = compileStructure(parsed);
    const measurement = measure(size.runs, () => {
      const simulation = createSimulation(structure);
      const started = performance.now();
      for (let i = 0; i < TIMELINE_TICKS; i++) sink += simulation.step();
      return { ms: performance.now() - started };
    });
    timeline = {
      kind: 'step',
      ticks: TIMELINE_TICKS,
      measurement,
      nsPerDependencyTick: (measurement.medianMs * 1e6) / (size.dependencyCount * TIMELINE_TICKS),
    };
  }

  let breakdown: Breakdown | undefined;
  if (size.targetRow) {
    progress(`${name}: breakdown of analyze`);
    const compile = measure(size.runs, () => {
      const started = performance.now();
      const fresh = compileStructure(parsed);
      const ms = performance.now() - started;
      sink += fresh.nodeCount;
      return { ms };
    });
    // components() is cached on a compiled structure, so each run times a fresh one.
    const componentsMeasurement = measure(size.runs, () => {
      const fresh = compileStructure(parsed);
      const started = performance.now();
      sink += fresh.components().count;
      return { ms: performance.now() - started };
    });
    const oneStepMs = timeline ? timeline.measurement.medianMs / timeline.ticks : 0;
    breakdown = {
      compileMs: compile.medianMs,
      componentsMs: componentsMeasurement.medianMs,
      oneStepMs,
      restMs: ours.medianMs - compile.medianMs - componentsMeasurement.medianMs - oneStepMs,
    };
  }

  return {
    name,
    shape,
    nodeCount: size.nodeCount,
    dependencyCount: size.dependencyCount,
    requestBytes: Buffer.byteLength(text),
    responseBytes,
    ours,
    peer,
    floor,
    graphologyOverOurs: peer.medianMs / ours.medianMs,
    graphologyRatioIsLowerBound: sccOverflow,
    oursOverFloor: ours.medianMs / floor.medianMs,
    endToEnd,
    endToEndStringify,
    endToEndOverFloor: endToEnd.medianMs / floor.medianMs,
    timeline,
    breakdown,
    facts,
    fullGcs: analyzeFullGcs,
  };
}

const COLUMNS: readonly Column[] = [
  { header: 'structure', align: 'left' },
  { header: 'nodes', align: 'right' },
  { header: 'deps', align: 'right' },
  { header: 'ours: analyze', align: 'right' },
  { header: 'graphology: build + SCC', align: 'left' },
  { header: 'floor: parse + stringify', align: 'right' },
  { header: 'graphology / ours', align: 'right' },
  { header: 'ours / floor', align: 'right' },
  { header: 'full GCs', align: 'right' },
  { header: 'end to end', align: 'right' },
  { header: 'end to end, JSON.stringify', align: 'right' },
  { header: 'end to end / floor', align: 'right' },
  { header: 'timeline ×100', align: 'left' },
  { header: 'ns / dep / tick', align: 'right' },
];

function peerCell(row: RowResult): string {
  const { peer } = row;
  if (peer.sccOverflowRuns === 0) return formatMs(peer.medianMs);
  const runs = peer.runsMs.length;
  const some = peer.sccOverflowRuns < runs ? ` in ${peer.sccOverflowRuns} of ${runs} runs` : '';
  return `build ${formatMs(peer.medianMs)}, SCC: stack overflow${some}`;
}

function timelineCells(row: RowResult): [string, string] {
  const { timeline } = row;
  if (!timeline) return ['–', '–'];
  const label = timeline.kind === 'ticks' ? 'ticks' : 'step alone';
  const stringify = timeline.stringify ? `, stringify ${formatMs(timeline.stringify.medianMs)}` : '';
  const endToEnd = timeline.endToEnd ? `, end to end ${formatMs(timeline.endToEnd.medianMs)}` : '';
  return [
    `${label} ${formatMs(timeline.measurement.medianMs)}${stringify}${endToEnd}`,
    formatNs(timeline.nsPerDependencyTick),
  ];
}

function mainTable(rows: readonly RowResult[]): string {
  return renderTable(
    COLUMNS,
    rows.map((row) => [
      row.shape,
      formatCount(row.nodeCount),
      formatCount(row.dependencyCount),
      formatMs(row.ours.medianMs),
      peerCell(row),
      formatMs(row.floor.medianMs),
      formatRatio(row.graphologyOverOurs, row.graphologyRatioIsLowerBound),
      formatRatio(row.oursOverFloor),
      String(row.fullGcs),
      formatMs(row.endToEnd.medianMs),
      formatMs(row.endToEndStringify.medianMs),
      formatRatio(row.endToEndOverFloor),
      ...timelineCells(row),
    ]),
  );
}

function inputsTable(rows: readonly RowResult[]): string {
  return renderTable(
    [
      { header: 'structure', align: 'left' },
      { header: 'request', align: 'right' },
      { header: 'response', align: 'right' },
      { header: 'sinks', align: 'right' },
      { header: 'blocked', align: 'right' },
      { header: 'cycle events', align: 'right' },
      { header: 'largest cycle', align: 'right' },
      { header: 'graphology SCCs', align: 'right' },
      { header: 'trace hops', align: 'right' },
      { header: 'origin share', align: 'right' },
    ],
    rows.map((row) => [
      row.name,
      `${(row.requestBytes / 1e6).toFixed(1)} MB`,
      `${(row.responseBytes / 1e6).toFixed(1)} MB`,
      String(row.facts.sinks),
      String(row.facts.blockedNodes),
      String(row.facts.cycleEvents),
      String(row.facts.largestCycle),
      row.peer.components === undefined ? 'overflow' : String(row.peer.components),
      String(Math.max(0, row.facts.traceLength - 1)),
      row.facts.originShare === null ? '–' : row.facts.originShare.toFixed(4),
    ]),
  );
}

function breakdownTable(rows: readonly RowResult[]): string {
  const withBreakdown = rows.filter((row) => row.breakdown);
  return renderTable(
    [
      { header: 'structure', align: 'left' },
      { header: 'analyze', align: 'right' },
      { header: 'compileStructure', align: 'right' },
      { header: 'components (SCC)', align: 'right' },
      { header: 'one step', align: 'right' },
      { header: 'rest: describe, reach, origin, trace', align: 'right' },
    ],
    withBreakdown.map((row) => {
      const b = row.breakdown!;
      return [
        row.name,
        formatMs(row.ours.medianMs),
        formatMs(b.compileMs),
        formatMs(b.componentsMs),
        formatMs(b.oneStepMs),
        formatMs(b.restMs),
      ];
    }),
  );
}

function checkTargets(rows: readonly RowResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const row of rows.filter((r) => r.breakdown)) {
    checks.push({
      row: row.name,
      target: `graphology / ours ≥ ${TARGETS.graphologyOverOurs}`,
      measured: formatRatio(row.graphologyOverOurs, row.graphologyRatioIsLowerBound),
      pass: row.graphologyOverOurs >= TARGETS.graphologyOverOurs,
      ...(row.graphologyRatioIsLowerBound
        ? { note: "graphology's SCC overflowed the stack: its build time alone is the bound" }
        : {}),
    });
    checks.push({
      row: row.name,
      target: `ours / floor ≤ ${TARGETS.oursOverFloor}`,
      measured: formatRatio(row.oursOverFloor),
      pass: row.oursOverFloor <= TARGETS.oursOverFloor,
    });
    checks.push({
      row: row.name,
      target: `end to end ≤ ${TARGETS.endToEndOverFloor}× floor`,
      measured: formatRatio(row.endToEndOverFloor),
      pass: row.endToEndOverFloor <= TARGETS.endToEndOverFloor,
      note: 'the engine itself costs more than the serialization saves',
    });
    const step = row.timeline?.nsPerDependencyTick ?? Number.POSITIVE_INFINITY;
    checks.push({
      row: row.name,
      target: `step alone ≤ ${TARGETS.stepNsPerDependencyTick} ns / dep / tick`,
      measured: formatNs(step),
      pass: step <= TARGETS.stepNsPerDependencyTick,
    });
  }
  for (const row of rows) {
    const timeline = row.timeline;
    if (!timeline?.stringify || !timeline.endToEnd) continue;
    const ratio = timeline.endToEnd.medianMs / timeline.stringify.medianMs;
    checks.push({
      row: row.name,
      target: `ticks ${TIMELINE_TICKS} end to end ≤ ${TARGETS.ticksEndToEndOverStringify}× JSON.stringify alone`,
      measured: formatRatio(ratio),
      pass: ratio <= TARGETS.ticksEndToEndOverStringify,
      note: 'the timeline alone costs more than half of JSON.stringify, and the writer is level with it',
    });
  }
  return checks;
}

function shortenedRuns(rows: readonly RowResult[]): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    const measured: [string, Measurement | undefined][] = [
      ['ours', row.ours],
      ['graphology', row.peer],
      ['floor', row.floor],
      ['timeline', row.timeline?.measurement],
    ];
    for (const [label, measurement] of measured) {
      if (measurement && measurement.runsMs.length < measurement.planned) {
        lines.push(`${row.name} ${label}: ${measurement.runsMs.length} of ${measurement.planned} runs`);
      }
    }
  }
  return lines;
}

function metadata() {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform} ${process.arch}`,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    mode: quick ? 'quick' : 'full',
    plannedRuns: 'median of 7 (5 on the 1M rows); fewer when a measurement would pass its time budget',
    measurementBudgetMs: MEASUREMENT_BUDGET_MS,
  };
}

/** Linearity: the extreme shapes at 1M nodes, and the chain at 2M to see the cost per node hold. */
const FAMILY_ROWS: readonly FamilyRow[] = [
  { family: 'chain', nodeCount: 500_000 },
  { family: 'chain', nodeCount: 1_000_000 },
  { family: 'star', nodeCount: 1_000_000 },
  { family: 'ring', nodeCount: 1_000_000 },
  { family: 'chain', nodeCount: 2_000_000 },
];
const FAMILY_TARGETS = { millionMs: 1300, doublingRatio: 2.2 } as const;

interface FamilyResult {
  name: string;
  family: Family;
  nodeCount: number;
  ours: Measurement;
  floor: Measurement;
  fullGcs: number;
}

/** Warm runs only, for rows whose ratio to another row is a target (see `measure`). */
const WARM_RUNS = { alwaysWarmUp: true } as const;

/** One timed `analyze` of an already parsed structure. */
function timedAnalyze(parsed: Structure): Sample {
  const started = performance.now();
  sink += analyze(parsed).nodes.length;
  return { ms: performance.now() - started };
}

/** The JSON floor once: the request text parsed and the response stringified. */
function timedFloor(text: string, response: unknown): Sample {
  const started = performance.now();
  sink += JSON.parse(text) === null ? 0 : 1;
  sink += JSON.stringify(response).length;
  return { ms: performance.now() - started };
}

interface FamilyRow {
  family: Family;
  nodeCount: number;
}

/** A family row's structure: its request text, and that text parsed as a request would be. */
interface ParsedFamily {
  row: FamilyRow;
  name: string;
  text: string;
  parsed: Structure;
}

function parsedFamily(row: FamilyRow): ParsedFamily {
  const name = `${row.family} ${formatCount(row.nodeCount)}`;
  progress(`${name}: generating`);
  const text = requestText(generateFamily(row.family, row.nodeCount));
  return { row, name, text, parsed: JSON.parse(text) as Structure };
}

/** A family row whose analyze is timed (`ours`): the full collections of one more run, and the JSON floor. */
async function familyResult(
  { row, name, text, parsed }: ParsedFamily,
  ours: Measurement,
): Promise<FamilyResult> {
  collectGarbage!();
  const fullGcCount = await fullGcsDuring(() => {
    sink += analyze(parsed).nodes.length;
  });
  let response: unknown = { mode: 'analyze', engine: analyze(parsed) };
  progress(`${name}: floor`);
  const floor = measure(3, () => timedFloor(text, response), WARM_RUNS);
  response = undefined;
  return { name, family: row.family, nodeCount: row.nodeCount, ours, floor, fullGcs: fullGcCount };
}

/**
 * The linearity rows, in `FAMILY_ROWS` order. The chains' analyze is timed in turns (five rounds,
 * bench/in-turns.ts): the ratios of 1M to 500k and of 2M to 1M are targets, and timed a minute
 * apart one chain got the quiet seconds and another the busy ones (the 1M chain took 1,355 ms in
 * one such run and 985 ms in the next, 2026-11-29). Star and ring are timed alone.
 */
async function benchFamilies(): Promise<FamilyResult[]> {
  const results = new Map<FamilyRow, FamilyResult>();
  const chains = FAMILY_ROWS.filter((row) => row.family === 'chain').map(parsedFamily);
  progress('chains 500k, 1M and 2M: ours (analyze), in turns');
  const inTurns = measureInTurns(
    5,
    chains.map((chain) => () => timedAnalyze(chain.parsed)),
  );
  // Each chain let go once its row is done, so the next rows run on a smaller heap.
  for (const ours of inTurns) {
    const chain = chains.shift()!;
    results.set(chain.row, await familyResult(chain, ours));
  }
  for (const row of FAMILY_ROWS.filter((candidate) => candidate.family !== 'chain')) {
    const family = parsedFamily(row);
    progress(`${family.name}: ours (analyze)`);
    const ours = measure(3, () => timedAnalyze(family.parsed), WARM_RUNS);
    results.set(row, await familyResult(family, ours));
  }
  return FAMILY_ROWS.map((row) => results.get(row)!);
}

function familyTable(results: readonly FamilyResult[]): { table: string; checks: TargetCheck[] } {
  const checks: TargetCheck[] = [];
  for (const result of results.filter((r) => r.nodeCount === 1_000_000)) {
    checks.push({
      row: result.name,
      target: `analyze ≤ ${formatMs(FAMILY_TARGETS.millionMs)}`,
      measured: formatMs(result.ours.medianMs),
      pass: result.ours.medianMs <= FAMILY_TARGETS.millionMs,
    });
  }
  const chain1 = results.find((r) => r.family === 'chain' && r.nodeCount === 1_000_000);
  const chain2 = results.find((r) => r.family === 'chain' && r.nodeCount === 2_000_000);
  if (chain1 && chain2) {
    const ratio = chain2.ours.medianMs / chain1.ours.medianMs;
    checks.push({
      row: 'chain 2M',
      target: `≤ ${FAMILY_TARGETS.doublingRatio}× the 1M chain (in turns)`,
      measured: formatRatio(ratio),
      pass: ratio <= FAMILY_TARGETS.doublingRatio,
    });
  }
  const table = renderTable(
    [
      { header: 'structure', align: 'left' },
      { header: 'ours: analyze', align: 'right' },
      { header: 'floor: parse + stringify', align: 'right' },
      { header: 'ours / floor', align: 'right' },
      { header: 'ns / node', align: 'right' },
      { header: 'full GCs', align: 'right' },
    ],
    results.map((result) => [
      result.name,
      formatMs(result.ours.medianMs),
      formatMs(result.floor.medianMs),
      formatRatio(result.ours.medianMs / result.floor.medianMs),
      formatNs((result.ours.medianMs * 1e6) / result.nodeCount),
      String(result.fullGcs),
    ]),
  );
  return { table, checks };
}

/**
 * Structure families at the target size: the solver's sweep count depends on the structure, so
 * the targets must hold beyond the two main generators. Each varies one knob of `GENERATOR`.
 */
const STRUCTURE_FAMILIES: ReadonlyArray<{
  name: string;
  spec: Omit<ShapeSpec, 'nodeCount' | 'dependencyCount'>;
}> = [
  { name: 'random', spec: { shape: 'random' } },
  { name: 'deep', spec: { shape: 'deep' } },
  { name: 'random, 0.5% sinks', spec: { shape: 'random', variant: { sinkFraction: 0.005 } } },
  { name: 'random, 20% sinks', spec: { shape: 'random', variant: { sinkFraction: 0.2 } } },
  { name: 'random, 50% capacities', spec: { shape: 'random', variant: { capacityFraction: 0.5 } } },
  {
    name: 'random, weights 1e-3…1e3',
    spec: { shape: 'random', variant: { weightFraction: 1, weightSpread: 1000 } },
  },
  {
    name: 'deep, window 64, 5% back',
    spec: { shape: 'deep', variant: { deepWindow: 64, deepBackFraction: 0.05 } },
  },
  { name: 'deep, 0.1% back', spec: { shape: 'deep', variant: { deepBackFraction: 0.001 } } },
  { name: 'clustered, 200 × 1k', spec: { shape: 'clustered' } },
  {
    name: 'clustered, 20 × 10k',
    spec: { shape: 'clustered', variant: { clusterSize: 10_000, clusterExitFraction: 0.01 } },
  },
];

interface StructureFamilyResult {
  name: string;
  ours: Measurement;
  floor: Measurement;
  sweeps: number;
  largestCycle: number;
  fullGcs: number;
}

async function benchStructureFamily(
  family: (typeof STRUCTURE_FAMILIES)[number],
): Promise<StructureFamilyResult> {
  const size = { nodeCount: 200_000, dependencyCount: 1_000_000 };
  progress(`${family.name}: generating`);
  const text = requestText(generateStructure({ ...family.spec, ...size }));
  const parsed = JSON.parse(text) as Structure;
  progress(`${family.name}: analyze`);
  const ours = measure(3, () => timedAnalyze(parsed), WARM_RUNS);
  collectGarbage!();
  const fullGcs = await fullGcsDuring(() => {
    sink += analyze(parsed).nodes.length;
  });
  let response: { mode: 'analyze'; engine: EngineResult } | undefined = {
    mode: 'analyze',
    engine: analyze(parsed),
  };
  const { largestCycle } = factsOf(response.engine);
  const floor = measure(3, () => timedFloor(text, response), WARM_RUNS);
  response = undefined;
  return {
    name: family.name,
    ours,
    floor,
    sweeps: reachSweeps(compileStructure(parsed)),
    largestCycle,
    fullGcs,
  };
}

function structureFamilyTable(results: readonly StructureFamilyResult[]): string {
  return renderTable(
    [
      { header: '200k/1M structure', align: 'left' },
      { header: 'ours: analyze', align: 'right' },
      { header: 'floor: parse + stringify', align: 'right' },
      { header: 'ours / floor', align: 'right' },
      { header: 'reach sweeps', align: 'right' },
      { header: 'largest cycle', align: 'right' },
      { header: 'full GCs', align: 'right' },
    ],
    results.map((result) => [
      result.name,
      formatMs(result.ours.medianMs),
      formatMs(result.floor.medianMs),
      formatRatio(result.ours.medianMs / result.floor.medianMs),
      String(result.sweeps),
      formatCount(result.largestCycle),
      String(result.fullGcs),
    ]),
  );
}

/** Crafted ids: how many share one home slot of the id index (past 32 it moves to a Map). */
const COLLIDING_IDS = 64;

interface CollidingResult {
  name: string;
  plain: Measurement;
  colliding: Measurement;
  ratio: number;
}

/**
 * The random 200k/1M structure compiled as generated and with its first 64 ids crafted to
 * collide in the id index: the index gives up on its table for a Map, so hostile ids cost
 * about what a Map costs, never a quadratic probe.
 */
function benchColliding(): CollidingResult {
  const size = { nodeCount: 200_000, dependencyCount: 1_000_000 };
  const name = `random ${formatCount(size.nodeCount)}/${formatCount(size.dependencyCount)}`;
  progress(`${name}: compile, plain and crafted colliding ids`);
  const structure = generateStructure({ shape: 'random', ...size });
  const plainParsed = JSON.parse(requestText(structure)) as Structure;
  const collidingParsed = JSON.parse(requestText(withCollidingIds(structure, COLLIDING_IDS))) as Structure;
  const compileOnly = (parsed: Structure) => (): Sample => {
    const started = performance.now();
    sink += compileStructure(parsed).nodeCount;
    return { ms: performance.now() - started };
  };
  const plain = measure(5, compileOnly(plainParsed));
  const colliding = measure(5, compileOnly(collidingParsed));
  return { name, plain, colliding, ratio: colliding.medianMs / plain.medianMs };
}

/** The stored-system sizes: what one request costs the first time and once its structure is cached. */
const STORED_SIZES: readonly SizeSpec[] = SIZES.filter(
  (size) => size.nodeCount === 10_000 || size.nodeCount === 100_000,
);
const STORED_TARGET = 3;
/** Large enough for every bench row; the engine function's defaults are lower. */
const BENCH_LIMITS = readLimits({ MAX_NODES: '1000000', MAX_DEPENDENCIES: '5000000' });

interface StoredResult {
  name: string;
  first: Measurement;
  /** Another request on the same system (other mode or tick count): the compiled structure is kept. */
  repeat: Measurement;
  /** The same request again: its answer is kept too. */
  exactRepeat: Measurement;
  ratio: number;
  exactRatio: number;
}

/**
 * `{ mode: "analyze", systemId }`, first run against repeat: the first decodes the stored payload
 * as the store does (brotli, SHA-256 check, JSON.parse), validates, compiles and runs; the repeat
 * takes the compiled structure the instance kept (`CompiledStructureCache`). DynamoDB reads, which
 * only the first run pays in full, are left out, so the ratio is if anything understated. Both
 * produce the same response text.
 */
async function benchStored(size: SizeSpec): Promise<StoredResult> {
  const name = `random ${formatCount(size.nodeCount)}/${formatCount(size.dependencyCount)}`;
  progress(`${name}: stored system, first run and repeat`);
  const { nodes, dependencies } = generateStructure({ shape: 'random', ...size });
  const storedText = JSON.stringify({ nodes, dependencies });
  const payload = await encodeStructure({ nodes, dependencies });
  const firstRun = (): string => {
    const bytes = brotliDecompressSync(payload.bytes);
    if (createHash('sha256').update(bytes).digest('hex') !== payload.sha256) throw new Error('hash mismatch');
    const stored = JSON.parse(bytes.toString('utf8')) as Structure;
    const request = parseEngineRequest({ mode: 'analyze', ...stored }, BENCH_LIMITS);
    return renderEngineResponse(request);
  };
  const kept = parseEngineRequest(
    { mode: 'analyze', ...(JSON.parse(storedText) as Structure) },
    BENCH_LIMITS,
  );
  const compiled = kept.structure;
  // What the run-engine use case does on a cache hit: the envelope from the body, the structure
  // from the cache.
  const holder = { nodes: compiled.nodes, dependencies: compiled.dependencies };
  const cachedRequest = () =>
    compileEngineRequest(
      parseEngineEnvelope({ mode: 'analyze', systemId: 'x' }, BENCH_LIMITS),
      BENCH_LIMITS,
      {
        holder,
        compiled,
      },
    );
  const repeatRun = (): string => renderEngineResponse(cachedRequest());
  // An exact repeat (same system, mode and tick count) on the engine function: its answer was
  // kept beside the compiled structure, as the handler keeps it.
  const cache = new CompiledStructureCache(readSystemCacheBytes({}));
  cache.set(payload.sha256, compiled);
  const exactRepeatRun = (): string => {
    const request = cachedRequest();
    return cache.answer(payload.sha256, request.mode, () => renderEngineResponse(request));
  };
  if (firstRun() !== repeatRun()) throw new Error(`${name}: the cached run answered differently`);
  if (exactRepeatRun() !== repeatRun()) throw new Error(`${name}: the kept answer differs`);
  const timed = (run: () => string) => (): Sample => {
    const started = performance.now();
    sink += run().length;
    return { ms: performance.now() - started };
  };
  const first = measure(size.runs, timed(firstRun));
  const repeat = measure(size.runs, timed(repeatRun));
  const exactRepeat = measure(size.runs, timed(exactRepeatRun));
  return {
    name,
    first,
    repeat,
    exactRepeat,
    ratio: first.medianMs / repeat.medianMs,
    exactRatio: first.medianMs / exactRepeat.medianMs,
  };
}

function storedTable(results: readonly StoredResult[]): string {
  return renderTable(
    [
      { header: 'stored system', align: 'left' },
      { header: 'first run', align: 'right' },
      { header: 'other request (structure kept)', align: 'right' },
      { header: 'first / other', align: 'right' },
      { header: 'same request (answer kept)', align: 'right' },
      { header: 'first / same', align: 'right' },
      { header: `≥ ${STORED_TARGET}×`, align: 'left' },
    ],
    results.map((result) => [
      result.name,
      formatMs(result.first.medianMs),
      formatMs(result.repeat.medianMs),
      formatRatio(result.ratio),
      formatMs(result.exactRepeat.medianMs),
      formatRatio(result.exactRatio),
      `${result.ratio >= STORED_TARGET ? 'PASS' : 'MISS'} other, ${result.exactRatio >= STORED_TARGET ? 'PASS' : 'MISS'} same`,
    ]),
  );
}

// ---------------------------------------------------------------------------------------------
// Open systems: the same structures with arrivals, exits and fan-out, analyze with the steady
// state against the closed analyze of the same structure.

const OPEN_TARGET = 1.5;

interface OpenResult {
  name: string;
  closed: Measurement;
  open: Measurement;
  /** Service-style end to end: request text to response text through the API's own code. */
  openEndToEnd: Measurement;
  closedEndToEnd: Measurement;
  ratio: number;
  endToEndRatio: number;
  sweeps: number;
  unbounded: number;
}

/**
 * The open twin of a generated structure: 1% of the nodes take arrivals (1 to 7 a step), every
 * node without a dependency and one in ten others get an exit of weight 1 (against about 11 for
 * their dependencies). The giant cycle then lets well under 1% of its value out per step: the
 * steady state's hardest case, solved by accelerated sweeps over the whole cycle.
 */
function openTwin(structure: Structure): Structure {
  const hasOut = new Set(structure.dependencies.map((dependency) => dependency.from));
  const nodes = structure.nodes.map((node, i) => {
    const open: NodeInput = { ...node };
    if (i % 100 === 0) open.arrival = 1 + (i % 7);
    if (!hasOut.has(node.id) || i % 10 === 3) open.exit = 1;
    return open;
  });
  return { nodes, dependencies: structure.dependencies };
}

async function benchOpen(size: SizeSpec, shape: Shape): Promise<OpenResult> {
  const name = `${shape} ${formatCount(size.nodeCount)}/${formatCount(size.dependencyCount)}`;
  progress(`${name}: open twin`);
  const closedText = requestText(generateStructure({ shape, ...size }));
  const closedParsed = JSON.parse(closedText) as Structure;
  const openParsed = openTwin(closedParsed);
  const openText = JSON.stringify({ mode: 'analyze', ...openParsed });
  const timed = (structure: Structure) => () => timedAnalyze(structure);
  const endToEnd = (text: string) => () => {
    const started = performance.now();
    sink += renderEngineResponse(parseEngineRequest(JSON.parse(text) as unknown, BENCH_LIMITS)).length;
    return { ms: performance.now() - started };
  };
  // Warm runs only, in turns: the ratio is the target.
  const [closed, open] = measureInTurns(size.runs, [timed(closedParsed), timed(openParsed)]) as [
    Measurement,
    Measurement,
  ];
  const [closedEndToEnd, openEndToEnd] = measureInTurns(size.runs, [
    endToEnd(closedText),
    endToEnd(openText),
  ]) as [Measurement, Measurement];
  const compiled = compileStructure(openParsed);
  // Inside one scratch phase, as analyze runs it; only the counts leave it.
  const steady = scratch.run(() => {
    const { sweeps, unbounded } = solveSteadyState(compiled);
    return { sweeps, unbounded };
  });
  return {
    name,
    closed,
    open,
    closedEndToEnd,
    openEndToEnd,
    ratio: open.medianMs / closed.medianMs,
    endToEndRatio: openEndToEnd.medianMs / closedEndToEnd.medianMs,
    sweeps: steady.sweeps,
    unbounded: steady.unbounded.length,
  };
}

function openTable(results: readonly OpenResult[]): { table: string; checks: TargetCheck[] } {
  const table = renderTable(
    [
      { header: 'structure', align: 'left' },
      { header: 'analyze, closed', align: 'right' },
      { header: 'analyze, open', align: 'right' },
      { header: 'open / closed', align: 'right' },
      { header: 'end to end, closed', align: 'right' },
      { header: 'end to end, open', align: 'right' },
      { header: 'open / closed', align: 'right' },
      { header: 'steady-state sweeps', align: 'right' },
      { header: 'unbounded nodes', align: 'right' },
    ],
    results.map((result) => [
      result.name,
      formatMs(result.closed.medianMs),
      formatMs(result.open.medianMs),
      formatRatio(result.ratio),
      formatMs(result.closedEndToEnd.medianMs),
      formatMs(result.openEndToEnd.medianMs),
      formatRatio(result.endToEndRatio),
      formatCount(result.sweeps),
      formatCount(result.unbounded),
    ]),
  );
  const checks = results.map((result) => ({
    row: result.name,
    target: `open analyze ≤ ${OPEN_TARGET}× closed analyze`,
    measured: formatRatio(result.ratio),
    pass: result.ratio <= OPEN_TARGET,
  }));
  return { table, checks };
}

// ---------------------------------------------------------------------------------------------
// What if: a request with a scenario, and with `compare`, against the plain request (issue #23).

const COMPARE_TARGET = 2.2;

interface CompareResult {
  name: string;
  plain: Measurement;
  /** The full scenario (scale, a capacity, a cut) without and with compare; scale alone with compare. */
  scenario: Measurement;
  compare: Measurement;
  compareScale: Measurement;
  scenarioRatio: number;
  compareRatio: number;
  compareScaleRatio: number;
}

/**
 * The scenarios the section runs: all traffic ×1.5 alone (node values only: the base's
 * dependencies, shares and components serve as they are), and with the first node with a
 * capacity at half of it and the first dependency cut (the dependency arrays and the adjacency
 * rebuilt, the components found again).
 */
function benchScenarios(structure: Structure): { scale: object; full: object } {
  const limited = structure.nodes.find((node) => node.capacity !== undefined);
  const first = structure.dependencies[0]!;
  return {
    scale: { scale: 1.5 },
    full: {
      scale: 1.5,
      ...(limited === undefined ? {} : { nodes: { [limited.id]: { capacity: limited.capacity! / 2 } } }),
      dependencies: [{ from: first.from, to: first.to, cut: true }],
    },
  };
}

async function benchCompare(size: SizeSpec, shape: Shape): Promise<CompareResult> {
  const name = `${shape} ${formatCount(size.nodeCount)}/${formatCount(size.dependencyCount)}`;
  progress(`${name}: plain, scenario and compare end to end`);
  const structure = generateStructure({ shape, ...size });
  const plainText = requestText(structure);
  const scenarios = benchScenarios(structure);
  const withFields = (fields: object) => `${plainText.slice(0, -1)},${JSON.stringify(fields).slice(1)}`;
  const texts = {
    plain: plainText,
    scenario: withFields({ scenario: scenarios.full }),
    compare: withFields({ scenario: scenarios.full, compare: true }),
    compareScale: withFields({ scenario: scenarios.scale, compare: true }),
  };
  // Request text to response text, as the service answers it; the four interleaved round by
  // round, so the machine's drift is shared.
  const endToEnd = (text: string) => () => {
    const started = performance.now();
    sink += renderEngineResponse(parseEngineRequest(JSON.parse(text) as unknown, BENCH_LIMITS)).length;
    return { ms: performance.now() - started };
  };
  const rounds: Record<keyof typeof texts, Measurement[]> = {
    plain: [],
    scenario: [],
    compare: [],
    compareScale: [],
  };
  for (let round = 0; round < 3; round++) {
    for (const key of Object.keys(texts) as (keyof typeof texts)[]) {
      rounds[key].push(measure(size.runs, endToEnd(texts[key])));
    }
  }
  const merged = (list: Measurement[]): Measurement => {
    const runsMs = list.flatMap((m) => m.runsMs);
    return { ...list[0]!, medianMs: median(runsMs), runsMs, planned: list.length * size.runs };
  };
  const plain = merged(rounds.plain);
  const scenario = merged(rounds.scenario);
  const compare = merged(rounds.compare);
  const compareScale = merged(rounds.compareScale);
  return {
    name,
    plain,
    scenario,
    compare,
    compareScale,
    scenarioRatio: scenario.medianMs / plain.medianMs,
    compareRatio: compare.medianMs / plain.medianMs,
    compareScaleRatio: compareScale.medianMs / plain.medianMs,
  };
}

function compareTable(results: readonly CompareResult[]): { table: string; checks: TargetCheck[] } {
  const table = renderTable(
    [
      { header: 'structure', align: 'left' },
      { header: 'plain', align: 'right' },
      { header: 'scenario (scale, capacity, cut)', align: 'right' },
      { header: '/ plain', align: 'right' },
      { header: 'the same, compare', align: 'right' },
      { header: '/ plain', align: 'right' },
      { header: 'scale alone, compare', align: 'right' },
      { header: '/ plain', align: 'right' },
    ],
    results.map((result) => [
      result.name,
      formatMs(result.plain.medianMs),
      formatMs(result.scenario.medianMs),
      formatRatio(result.scenarioRatio),
      formatMs(result.compare.medianMs),
      formatRatio(result.compareRatio),
      formatMs(result.compareScale.medianMs),
      formatRatio(result.compareScaleRatio),
    ]),
  );
  const checks = results.flatMap((result) => [
    {
      row: `${result.name}, scale, capacity, cut`,
      target: `compare ≤ ${COMPARE_TARGET}× a plain request`,
      measured: formatRatio(result.compareRatio),
      pass: result.compareRatio <= COMPARE_TARGET,
    },
    {
      row: `${result.name}, scale alone`,
      target: `compare ≤ ${COMPARE_TARGET}× a plain request`,
      measured: formatRatio(result.compareScaleRatio),
      pass: result.compareScaleRatio <= COMPARE_TARGET,
    },
  ]);
  return { table, checks };
}

function printChecks(checks: readonly TargetCheck[]): void {
  for (const check of checks) {
    const why = !check.pass && check.note ? ` — why: ${check.note}` : '';
    console.log(
      `  ${check.pass ? 'PASS' : 'MISS'}  ${check.row}: ${check.target}, measured ${check.measured}${why}`,
    );
  }
  console.log('');
}

/** `npm run bench -- --only=compare`: the what-if section alone (it takes a few minutes, not the whole bench's). */
async function mainCompareOnly(): Promise<void> {
  const sizes = quick
    ? SIZES.filter((size) => size.nodeCount === 10_000)
    : SIZES.filter((size) => size.targetRow);
  const results: CompareResult[] = [];
  for (const size of sizes) for (const shape of SHAPES) results.push(await benchCompare(size, shape));
  progress('done');
  const section = compareTable(results);
  console.log(
    `\nWhat if: plain, with a scenario, and with compare (request text to response text):\n\n${section.table}\n`,
  );
  printChecks(section.checks);
  if (sink === Number.MIN_VALUE) console.log('');
}

/** The latency section's families, at the target size (the 10k rows under --quick). */
const LATENCY_FAMILIES: readonly LatencyFamily[] = ['random', 'deep', 'service DAG'];

function runLatencySection(): LatencyResult[] {
  const size = quick
    ? { nodeCount: 10_000, dependencyCount: 50_000, runs: 5 }
    : { nodeCount: 200_000, dependencyCount: 1_000_000, runs: 5 };
  return LATENCY_FAMILIES.map((family) => {
    progress(`latency: ${family}`);
    return benchLatency(family, size, collectGarbage!, (result) => {
      sink += result.nodes.length;
    });
  });
}

function printLatencySection(results: readonly LatencyResult[]): void {
  const section = latencyTable(results);
  console.log(
    `\nLatency: an open analyze with capacities, with serviceTime and servers instead, and with 10 SLO entries:\n\n${section.table}\n`,
  );
  printChecks(section.checks);
}

/** `npm run bench -- --only=latency`: the latency section alone. */
function mainLatencyOnly(): void {
  const results = runLatencySection();
  progress('done');
  printLatencySection(results);
  if (sink === Number.MIN_VALUE) console.log('');
}

function printSpansSection(result: SpansResult): void {
  const section = spansTable(result);
  console.log(
    `\nSpans through connect: a day of one topology's requests, served from 127.0.0.1 (each registration in a process of its own, dynalite included, with ${result.heapFlags.join(' ')}: the connect function has ${result.connectMemoryMb} MB; the decoded cap is ${result.capBytes / 1024 / 1024} MiB):\n\n${section.table}\n`,
  );
  console.log(`The largest that registers within ${result.connectMemoryMb} MB:`);
  for (const line of section.largest) console.log(`  ${line}`);
  console.log('');
}

/** `npm run bench -- --only=spans`: the spans section alone. */
async function mainSpansOnly(): Promise<void> {
  const result = await benchSpans({ quick, progress });
  progress('done');
  printSpansSection(result);
}

/** Performance round 3's own measurements: the gain > 1 loop's sweeps, and what-ifs on 100k/500k. */
function runRoundSection(): { gain: GainResult; whatIf: WhatIfResult[] } {
  progress('round 3: a fan-out loop of gain > 1');
  const gain = benchGainAtLeastOne();
  const whatIf = SHAPES.map((shape) => {
    progress(`round 3: analyze + compare, ${shape} 100k/500k`);
    return benchWhatIf(shape, BENCH_LIMITS, { measure, measureInTurns }, (text) => {
      sink += text.length;
    });
  });
  return { gain, whatIf };
}

function printWhatIf(whatIf: readonly WhatIfResult[]): void {
  console.log(
    `\nWhat if at 100k/500k: a plain analyze against analyze + compare (scale ×1.5, a capacity halved, a cut), the parsed body to the answer text ("compute") and the request text to it ("end to end"):\n\n${whatIfTable(whatIf)}\n`,
  );
}

/** `npm run bench -- --only=round`: round 3's own measurements and their targets. */
function mainRoundOnly(): void {
  const { gain, whatIf } = runRoundSection();
  progress('done');
  printWhatIf(whatIf);
  printRoundChecks(roundChecks({ analyzeOverFloor: [], chain: undefined, openOverClosed: [], gain, whatIf }));
  if (sink === Number.MIN_VALUE) console.log('');
}

function printFamilySection(families: readonly FamilyResult[]): void {
  if (families.length === 0) return;
  const section = familyTable(families);
  console.log(`Linearity: chain, star and ring at 1M nodes, the chain at 2M:\n\n${section.table}\n`);
  printChecks(section.checks);
}

function printOpenSection(openResults: readonly OpenResult[]): void {
  if (openResults.length === 0) return;
  const section = openTable(openResults);
  console.log(
    `Open systems (1% arrivals, exits on sinks and every tenth node) against the same structure closed:\n\n${section.table}\n`,
  );
  printChecks(section.checks);
}

function familyFigures(families: readonly FamilyResult[]): {
  familyTable: string;
  familyChecks: TargetCheck[];
} {
  const { table, checks } = familyTable(families);
  return { familyTable: table, familyChecks: checks };
}

/** The 500k and 1M chains' medians (timed in turns: `benchFamilies`), when both ran. */
function chainDoubling(families: readonly FamilyResult[]): { halfMs: number; millionMs: number } | undefined {
  const chainAt = (nodeCount: number) =>
    families.find((result) => result.family === 'chain' && result.nodeCount === nodeCount)?.ours.medianMs;
  const halfMs = chainAt(500_000);
  const millionMs = chainAt(1_000_000);
  return halfMs === undefined || millionMs === undefined ? undefined : { halfMs, millionMs };
}

/** `npm run bench -- --only=linearity`: the linearity rows and the open twins, with round 3's lines for them. */
async function mainLinearityOnly(): Promise<void> {
  const families = await benchFamilies();
  const openResults: OpenResult[] = [];
  for (const size of SIZES.filter((candidate) => candidate.targetRow))
    for (const shape of SHAPES) openResults.push(await benchOpen(size, shape));
  progress('done');
  printFamilySection(families);
  printOpenSection(openResults);
  printRoundChecks(
    roundChecks({
      analyzeOverFloor: [],
      chain: chainDoubling(families),
      openOverClosed: openResults.map((result) => ({ name: result.name, ratio: result.ratio })),
      gain: undefined,
      whatIf: [],
    }),
  );
}

async function main(): Promise<void> {
  if (args.only === 'round') return mainRoundOnly();
  if (args.only === 'linearity') return mainLinearityOnly();
  if (args.only === 'compare') return mainCompareOnly();
  if (args.only === 'latency') return mainLatencyOnly();
  if (args.only === 'spans') return mainSpansOnly();
  const meta = metadata();
  console.log(
    `System Behavior Engine benchmark (${meta.mode}) — node ${meta.node} (V8 ${meta.v8}), ${meta.platform}, ` +
      `${meta.cpu} × ${meta.cores}, ${meta.memoryGiB} GiB`,
  );
  const sizes = quick ? SIZES.filter((size) => size.nodeCount <= 10_000) : SIZES;
  const rows: RowResult[] = [];
  for (const size of sizes) for (const shape of SHAPES) rows.push(await benchRow(size, shape));
  const collidingResult = quick ? undefined : benchColliding();
  const families = quick ? [] : await benchFamilies();
  const structureFamilies: StructureFamilyResult[] = [];
  if (!quick)
    for (const family of STRUCTURE_FAMILIES) structureFamilies.push(await benchStructureFamily(family));
  const stored: StoredResult[] = [];
  for (const size of STORED_SIZES.filter((candidate) => sizes.includes(candidate))) {
    stored.push(await benchStored(size));
  }
  const openResults: OpenResult[] = [];
  const openSizes = quick
    ? sizes.filter((size) => size.nodeCount === 10_000)
    : sizes.filter((size) => size.targetRow);
  for (const size of openSizes) for (const shape of SHAPES) openResults.push(await benchOpen(size, shape));
  const compareResults: CompareResult[] = [];
  for (const size of openSizes)
    for (const shape of SHAPES) compareResults.push(await benchCompare(size, shape));
  const latencyResults = runLatencySection();
  let registration: RegistrationResult | undefined;
  if (!quick) {
    progress('registration: 100k nodes / 500k dependencies through connect');
    registration = await benchRegistration();
  }
  const spans = await benchSpans({ quick, progress });
  const round = quick ? undefined : runRoundSection();
  progress('done');

  const table = mainTable(rows);
  const inputs = inputsTable(rows);
  const breakdown = rows.some((row) => row.breakdown) ? breakdownTable(rows) : undefined;
  const targets = checkTargets(rows);
  const shortened = shortenedRuns(rows);

  console.log(`\n${table}\n`);
  if (shortened.length > 0)
    console.log(`Fewer runs than planned (time budget):\n  ${shortened.join('\n  ')}\n`);
  if (targets.length > 0) {
    console.log('Targets on the 200k nodes / 1M dependencies rows:');
    for (const check of targets) {
      const note = check.note ? ` (${check.note})` : '';
      console.log(
        `  ${check.pass ? 'PASS' : 'MISS'}  ${check.row}: ${check.target}, measured ${check.measured}${note}`,
      );
    }
    console.log('');
  } else {
    console.log('Targets: not checked (the 200k/1M rows are not part of --quick).\n');
  }
  if (breakdown) console.log(`Where analyze spends its time:\n\n${breakdown}\n`);
  const collidingSection =
    collidingResult === undefined
      ? undefined
      : renderTable(
          [
            { header: 'structure', align: 'left' },
            { header: 'compile, generated ids', align: 'right' },
            { header: `compile, ${COLLIDING_IDS} colliding ids`, align: 'right' },
            { header: 'colliding / generated', align: 'right' },
          ],
          [
            [
              collidingResult.name,
              formatMs(collidingResult.plain.medianMs),
              formatMs(collidingResult.colliding.medianMs),
              formatRatio(collidingResult.ratio),
            ],
          ],
        );
  if (collidingSection)
    console.log(`Crafted colliding ids (the id index's flood guard):\n\n${collidingSection}\n`);
  printFamilySection(families);
  const structureFamilySection =
    structureFamilies.length > 0 ? structureFamilyTable(structureFamilies) : undefined;
  if (structureFamilySection) {
    console.log(
      `Structure families at 200k nodes / 1M dependencies (sweeps: the large-cycle solver's, for the primary blockage):\n\n${structureFamilySection}\n`,
    );
  }
  const storedSection = stored.length > 0 ? storedTable(stored) : undefined;
  if (storedSection) {
    console.log(
      `Stored systems ({ mode, systemId }): first run and repeat on a warm instance:\n\n${storedSection}\n`,
    );
  }
  printOpenSection(openResults);
  const compareSection = compareResults.length > 0 ? compareTable(compareResults) : undefined;
  if (compareSection) {
    console.log(
      `What if: plain, with a scenario, and with compare (request text to response text):\n\n${compareSection.table}\n`,
    );
    printChecks(compareSection.checks);
  }
  printLatencySection(latencyResults);
  if (registration) {
    const table = renderTable(
      [
        { header: 'answer', align: 'left' },
        { header: 'on the wire', align: 'right' },
        { header: 'JSON', align: 'right' },
        { header: 'fetch, read, check, store', align: 'right' },
        { header: 'peak memory (process)', align: 'right' },
        { header: 'growth', align: 'right' },
      ],
      registration.runs.map((run) => [
        run.encoding,
        `${(run.wireBytes / 1e6).toFixed(1)} MB`,
        `${(run.jsonBytes / 1e6).toFixed(1)} MB`,
        formatMs(run.ms),
        `${Math.round(run.peakRssBytes / 1e6)} MB`,
        `${Math.round(run.rssGrowthBytes / 1e6)} MB`,
      ]),
    );
    console.log(
      `Registration through connect, 100k nodes / 500k dependencies (the bench process, dynalite included; the connect function has ${registration.connectMemoryMb} MB):\n\n${table}\n`,
    );
  }
  printSpansSection(spans);
  if (round) printWhatIf(round.whatIf);
  const roundSection = roundChecks({
    analyzeOverFloor: [
      ...rows.filter((row) => row.breakdown).map((row) => ({ name: row.name, ratio: row.oursOverFloor })),
      ...structureFamilies.map((result) => ({
        name: `${result.name} 200k/1M`,
        ratio: result.ours.medianMs / result.floor.medianMs,
      })),
    ],
    chain: chainDoubling(families),
    openOverClosed: openResults.map((result) => ({ name: result.name, ratio: result.ratio })),
    gain: round?.gain,
    whatIf: round?.whatIf ?? [],
  });
  printRoundChecks(roundSection);
  console.log(`Inputs and what analyze found in them:\n\n${inputs}\n`);

  const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, quick ? 'engine-quick.json' : 'engine.json');
  const json = {
    meta,
    generator: GENERATOR,
    targets: TARGETS,
    rows,
    targetChecks: targets,
    table,
    inputs,
    breakdown,
    colliding: collidingResult,
    open: openResults,
    compare: compareResults,
    compareTable: compareSection?.table,
    latency: latencyResults,
    registration,
    spans,
    round,
    roundChecks: roundSection,
    collidingTable: collidingSection,
    families,
    ...(families.length > 0 ? familyFigures(families) : {}),
    structureFamilies,
    structureFamilyTable: structureFamilySection,
    stored,
    storedTable: storedSection,
  };
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`Figures written to ${path.relative(process.cwd(), file)}`);
  if (sink === Number.MIN_VALUE) console.log('');
}

await main();
