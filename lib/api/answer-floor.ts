/**
 * Can an answer fit the response limit at all? Decided before the engine runs, from the request
 * alone, so a request whose answer is bound to end in 413 is refused at once instead of after
 * seconds of work (a 100k / 500k `compare` computes for 2.5 to 10 s).
 *
 * The answer's JSON has an entry for every node and every dependency in every state it writes,
 * and each entry has fields that are always there: that gives a floor on its size in bytes
 * (`answerFloorBytes`). What the client accepts sets how small compression could make it:
 *
 * - no coding (no `Accept-Encoding`, as curl sends by default): the body goes out as it is, so the
 *   floor is the size, exactly as the response-encoding middleware would measure it;
 * - gzip or brotli, for one state (`analyze`, `tick`): at most `ONE_STATE_RATIO` times smaller.
 *   The best ratios seen against the floor, with the middleware's settings (brotli 4, gzip 6), are
 *   73× (brotli) and 24× (gzip) on a star of 100,000 idle nodes, 57× and 17× on a chain of them,
 *   5× on the bench's random 100k / 500k; answers with numbers in them compress less. Long ids
 *   compress better, each repeated in every state: 4,000 idle nodes with 55-character ids
 *   (`cluster-eu-west-1/namespace-payments/service-000123`), compared with their baseline, 215×;
 *   ten ids of 100,000 characters, 3,070×. So the ratio allowed is far past what ids of the
 *   lengths real systems use reach;
 * - gzip or brotli for `ticks`: no floor, since a timeline's snapshots repeat one another and
 *   brotli packs a still one 18,000× (1,000 ticks of 1,000 idle nodes); the element limit
 *   (`MAX_RESPONSE_ELEMENTS`) bounds those instead.
 *
 * So a refusal is certain for a client that takes no coding, and for one that does would need an
 * answer to compress some five times as well as any seen with ids of real lengths.
 */
import type { CompiledStructure } from '../engine';
import type { EngineRequest } from './engine-request';
import { compares } from './engine-response';
import { largestBinaryBody, lessToAskFor, responseBodyBudget } from './response-size';

/**
 * Some five times the best ratio seen with ids of real lengths (215×): an answer refused on it
 * could not fit at any ratio seen but that of ids hundreds of characters long. (It was 150×,
 * twice the best ratio of short ids, until a compare of long ids was seen to beat it.)
 * @internal test/api/answer-floor.test.ts sizes its cases by it.
 */
export const ONE_STATE_RATIO = 1000;

/**
 * The fewest bytes a node's entry takes beyond its id: every field that is always written, each
 * number one digit, the shortest role and `true`. Open structures, latency and extra fields only
 * add to it.
 */
const NODE_ENTRY_FLOOR = '{"id":"","load":0,"inflow":0,"outflow":0,"pressure":0,"blocked":true,"role":"sink"}'
  .length;

/** The same for a dependency's entry, beyond its two ids. */
const DEPENDENCY_ENTRY_FLOOR = '{"from":"","to":"","flow":0}'.length;

/**
 * A floor on the bytes of the answer's JSON: its node and dependency entries in every state it
 * writes (one in `analyze` and `tick`, `ticks` in `ticks`; twice that with `compare`), ids
 * counted at one byte per UTF-16 unit (UTF-8 never takes fewer; escaping only adds).
 * @internal test/api/answer-floor.test.ts holds it against real answers.
 */
export function answerFloorBytes(request: EngineRequest): number {
  const states = request.mode === 'ticks' ? request.ticks : 1;
  const described = request.scenario ?? request.structure;
  const entries = entryBytes(described) + (compares(request) ? entryBytes(request.structure) : 0);
  return states * entries;
}

/** The content codings the client accepts for this response. */
export type AcceptedCodings = readonly ('br' | 'gzip')[];

/**
 * Why the answer cannot fit `maxResponseBytes` whatever the run finds, or `undefined` when it
 * might. `codings` are the content codings the client accepts.
 */
export function answerCannotFit(
  request: EngineRequest,
  codings: AcceptedCodings,
  limits: { maxResponseBytes: number },
): string | undefined {
  const compressible = codings.length > 0;
  if (compressible && request.mode === 'ticks') return undefined;
  const floor = answerFloorBytes(request);
  const budget = compressible ? largestBinaryBody(limits) * ONE_STATE_RATIO : responseBodyBudget(limits);
  if (floor <= budget) return undefined;
  const size = `The answer would be at least ${sizeInWords(floor)} of JSON`;
  // A floor under the limit itself is still past what it leaves for the body (the rest is kept
  // for the response's envelope): said so, not as a size under the limit that is "more" than it.
  const limit =
    compressible || floor > limits.maxResponseBytes
      ? `the response limit of ${limits.maxResponseBytes} bytes`
      : `the ${budget} bytes the response limit of ${limits.maxResponseBytes} bytes leaves for a body`;
  const less = lessToAskFor({
    mode: request.mode,
    compare: compares(request),
    stored: request.stored === true,
  });
  return compressible
    ? `${size}, more than ${limit} even compressed ${ONE_STATE_RATIO}× (some five times as well as any ` +
        `answer with ids of usual lengths was seen to compress), so it was not computed; ask for less: ${less}.`
    : `${size}, more than ${limit}, so it was not computed. Send \`Accept-Encoding: br, gzip\` to ` +
        `receive it compressed, or ask for less: ${less}.`;
}

function entryBytes(structure: CompiledStructure): number {
  const { ids, nodeCount, dependencyCount, dependencyFrom, dependencyTo } = structure;
  let bytes = nodeCount * NODE_ENTRY_FLOOR + dependencyCount * DEPENDENCY_ENTRY_FLOOR;
  for (let node = 0; node < nodeCount; node++) bytes += ids[node]!.length;
  for (let dependency = 0; dependency < dependencyCount; dependency++) {
    bytes += ids[dependencyFrom[dependency]!]!.length + ids[dependencyTo[dependency]!]!.length;
  }
  return bytes;
}

function sizeInWords(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.floor(bytes / 1e3)} KB`;
}
