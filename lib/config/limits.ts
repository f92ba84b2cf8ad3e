import { type Env, envInt } from './env';

/** The size limits of `POST /api/engine`. Read once at cold start with `readLimits`. */
export interface Limits {
  /** Largest request body on the wire, in bytes (decoded, when the body arrives base64-encoded). */
  readonly maxBodyBytes: number;
  /** Largest request body once its Content-Encoding (gzip, br, deflate) is undone, in bytes. */
  readonly maxDecodedBodyBytes: number;
  readonly maxNodes: number;
  readonly maxDependencies: number;
  /** Largest `ticks` accepted in mode `ticks`. */
  readonly maxTicks: number;
  /** `ticks` used in mode `ticks` when the request leaves it out. */
  readonly defaultTicks: number;
  /** Largest response the function may return, counted as Lambda counts it (see response-size.ts). */
  readonly maxResponseBytes: number;
  /**
   * Largest `ticks × (nodes + dependencies)` a `ticks` request may ask for, checked before the
   * engine runs so an answer that could never be returned is refused before it costs memory.
   */
  readonly maxResponseElements: number;
}

/**
 * "6 MB" in the contract is Lambda's synchronous payload limit, which AWS counts in binary
 * megabytes: 6 × 2^20 = 6,291,456 bytes.
 */
const LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * The defaults: the contract's limits, plus our own response-elements guard. Body and response
 * bytes are Lambda's own payload limit and ticks the contract's 1..1000, so those may only be
 * lowered; the node and dependency counts may also be raised, up to `COUNT_CEILINGS`.
 */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxBodyBytes: LAMBDA_PAYLOAD_BYTES,
  // 500,000 dependencies with ~15-character ids are ~25 MB of JSON; 64 MiB leaves room for
  // longer ids and extra fields while bounding what a small compressed body can cost.
  maxDecodedBodyBytes: 64 * 1024 * 1024,
  maxNodes: 100_000,
  maxDependencies: 500_000,
  maxTicks: 1000,
  defaultTicks: 10,
  maxResponseBytes: LAMBDA_PAYLOAD_BYTES,
  // Measured (docs/api.md): 1,000,000 elements are ~72 MB of JSON, ~410 MB of peak memory and
  // ~3 s of work, and brotli gets a varied timeline of that size to ~4.3 MB, just inside 6 MiB
  // once base64-encoded. Twice as many (~700 MB peak) no longer fit even compressed, so a
  // higher limit would spend memory and seconds on answers that end in 413 anyway.
  maxResponseElements: 1_000_000,
});

/**
 * How far an operator may raise the counts. The engine itself handles million-node structures
 * (tested); beyond these the 6 MiB body limit would refuse the request anyway.
 */
const COUNT_CEILINGS = Object.freeze({ maxNodes: 1_000_000, maxDependencies: 5_000_000 });

/** How far an operator may raise the decoded body limit: V8 strings stop at ~512 MB. */
const DECODED_BODY_CEILING = 256 * 1024 * 1024;

/**
 * Reads the limits from the environment, falling back to the contract's defaults. Throws at
 * cold start, naming the variable, when a value is not an integer in its allowed range.
 */
export function readLimits(env: Env = process.env): Limits {
  const ceiling = DEFAULT_LIMITS;
  const maxTicks = envInt(env, 'MAX_TICKS', ceiling.maxTicks, { min: 1, max: ceiling.maxTicks });
  // A lowered MAX_TICKS pulls the default down with it, so MAX_TICKS=5 alone is a valid setting.
  const defaultTicks = envInt(env, 'DEFAULT_TICKS', Math.min(ceiling.defaultTicks, maxTicks), {
    min: 1,
    max: maxTicks,
  });
  return Object.freeze({
    maxBodyBytes: envInt(env, 'MAX_BODY_BYTES', ceiling.maxBodyBytes, { min: 1, max: ceiling.maxBodyBytes }),
    maxDecodedBodyBytes: envInt(env, 'MAX_DECODED_BODY_BYTES', ceiling.maxDecodedBodyBytes, {
      min: 1,
      max: DECODED_BODY_CEILING,
    }),
    maxNodes: envInt(env, 'MAX_NODES', ceiling.maxNodes, { min: 1, max: COUNT_CEILINGS.maxNodes }),
    maxDependencies: envInt(env, 'MAX_DEPENDENCIES', ceiling.maxDependencies, {
      min: 0,
      max: COUNT_CEILINGS.maxDependencies,
    }),
    maxTicks,
    defaultTicks,
    maxResponseBytes: envInt(env, 'MAX_RESPONSE_BYTES', ceiling.maxResponseBytes, {
      // Below a few KiB not even an error body with its envelope would fit.
      min: 16 * 1024,
      max: ceiling.maxResponseBytes,
    }),
    maxResponseElements: envInt(env, 'MAX_RESPONSE_ELEMENTS', ceiling.maxResponseElements, {
      min: 1,
      max: ceiling.maxResponseElements,
    }),
  });
}

/**
 * The most JSON objects and arrays an engine request body may hold: four for each node and
 * dependency the limits allow (each is one; a scenario's entries and extra fields the rest), and
 * 100,000 more for extra fields. Parsing costs by them, not by bytes alone
 * (lib/text/json-containers.ts): 2.5 million with the default limits, some 2.5 s of parsing at
 * worst, where 66 MB of `{}` took 22 s.
 */
export function maxEngineBodyContainers(limits: Pick<Limits, 'maxNodes' | 'maxDependencies'>): number {
  return 4 * (limits.maxNodes + limits.maxDependencies) + 100_000;
}
