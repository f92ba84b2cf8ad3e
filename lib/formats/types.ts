/**
 * A graph format: how a document some tool serves (Jaeger, Kiali, X-Ray, …) becomes a structure
 * the engine takes. Each format is one module exporting a `GraphFormat`; `registry.ts` lists them.
 * This folder sits on the ground floor beside `lib/engine` and imports nothing but its types.
 */
import type { DependencyInput, NodeInput } from '../engine/types';

/**
 * The names are part of the API (`format` in a connect body, and in its answer), in the order
 * `auto` tries the formats (`registry.ts` lists the modules in this order; its test checks it).
 * Kept here, apart from the modules, so that a message naming the formats (the engine route's,
 * for a document it does not read) does not bring every reader into its bundle.
 */
export const FORMAT_NAMES = Object.freeze([
  'native',
  'dependency-links',
  'cytoscape',
  'node-link',
  'jgf',
  'backstage',
  'xray',
  'otlp-traces',
  'jaeger-traces',
  'zipkin-spans',
  'prometheus',
] as const);

export type FormatName = (typeof FORMAT_NAMES)[number];

/** What one engine step stands for in a mapped structure. */
export type StepUnit =
  /** The source gives rates (Kiali) or counts over a known time span (X-Ray): one step is one second. */
  | 'second'
  /** The source gives counts over a window it does not state (Jaeger, Zipkin): one step is that window. */
  | 'window'
  /** No traffic in the source (Backstage, JGF, D3): weights 1, no arrivals. */
  | 'none'
  /** The engine's own format: the step is whatever the document's numbers mean. */
  | 'as-sent';

/**
 * A latency the source document measured (`observedLatency` on a node or a dependency): what
 * requests took there, waiting and downstream calls included, as the source summarised it. It
 * is shown beside the engine's prediction (`responseTime`, `latency`) and never read as a
 * `serviceTime`, the time one request occupies one server, which it is not.
 */
export interface ObservedLatency {
  value: number;
  /** Which summary of the times: their mean, or a percentile (`p95`: 95% took no longer). */
  statistic: 'mean' | 'p50' | 'p95' | 'p99';
  unit: 'second' | 'millisecond';
}

export interface MappedGraph {
  nodes: NodeInput[];
  dependencies: DependencyInput[];
  unit: StepUnit;
  /** What a reader should know about the mapping (skipped elements, merged pairs, …), in words. */
  warnings: string[];
}

/**
 * What a caller knows about a document that the document does not say. The span formats
 * (`lib/formats/spans`) read `window` and `sampleRate`, `prometheus` reads `sampleRate` and
 * `labels`, `dependency-links` and `xray` read `window` (`window.ts`); a format ignores what it
 * does not read (`readGraph` says so in a warning).
 */
export interface ReadOptions {
  /**
   * The seconds the spans were collected over (a query's lookback, a file's rotation period):
   * arrivals are the requests that entered divided by it, and one step is one second. Without
   * it, the span formats take the time from the first request's start to the last one's end,
   * and say so in a warning. Finite and > 0.
   */
  window?: number;
  /**
   * The share of traces the tracer kept (head sampling at 10%: 0.1), in (0, 1]: arrivals are
   * divided by it to count the requests sampling dropped. Weights are ratios and service times
   * means, so neither changes. Default 1. For `prometheus`, every rate is divided by it (service
   * graph metrics that a Tempo or a Collector computed from sampled spans).
   */
  sampleRate?: number;
  /**
   * `prometheus` only: the labels that name a series' caller and callee (`{ from: 'source_app',
   * to: 'destination_app' }`), when they are not one of the pairs it knows. Non-empty, different.
   */
  labels?: SeriesLabels;
}

/** The two labels of a Prometheus series that name the caller (`from`) and the callee (`to`). */
export interface SeriesLabels {
  from: string;
  to: string;
}

/** The names of `ReadOptions`' fields, for the formats to say which they read. */
export type ReadOptionName = keyof ReadOptions;

export interface GraphFormat {
  readonly name: FormatName;
  /** The `ReadOptions` it reads (none when absent): `readGraph` warns of the others given. */
  readonly reads?: readonly ReadOptionName[];
  /**
   * Whether the document has this format's shape. Cheap and structural (top-level keys and the
   * first elements' fields), never throws, and no two formats detect the same document.
   */
  detect(document: unknown): boolean;
  /**
   * The mapped structure. Throws `FormatError` naming the element by its path in the source
   * document (`elements.edges[3].data.target`) when the document is malformed. `options` say
   * what the document does not (the span formats read them, the others ignore them).
   */
  toStructure(document: unknown, options?: ReadOptions): MappedGraph;
}

/**
 * A read option the caller gave (`window`, `sampleRate`) that the document's numbers cannot be
 * read with: the caller's to fix, not the document's (a window of 5e-324 s makes any arrival past
 * the largest total the engine takes).
 */
export class ReadOptionError extends Error {
  override readonly name = 'ReadOptionError';
  constructor(
    readonly option: ReadOptionName,
    /** The problem alone, without the option's name. */
    readonly problem: string,
  ) {
    super(`${option}: ${problem}`);
  }
}

/**
 * A `sampleRate` so small that what is divided by it (the spans' arrivals, Prometheus' call
 * rates) adds up past the engine's total: the caller's option, said alike by every format.
 */
export function sampleRatePastTheTotal(sampleRate: number, what: string, total: number): ReadOptionError {
  return new ReadOptionError(
    'sampleRate',
    `${sampleRate} makes the services' ${what} add up to more than ${total}, the largest total the engine accepts; give the share of traces sampled, from 0 to 1`,
  );
}

/** A document that does not fit its format, with the path of the element at fault. */
export class FormatError extends Error {
  override readonly name = 'FormatError';
  constructor(
    /** Path in the source document (`data[2].callCount`); '' for the document itself. */
    readonly path: string,
    message: string,
    /**
     * The source reported a failure in its own answer (Jaeger's `errors`): the document is that
     * format's, so a format named by the caller is not said not to fit it.
     */
    readonly reportedBySource = false,
  ) {
    super(path === '' ? message : `${path}: ${message}`);
  }
}
