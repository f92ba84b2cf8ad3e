import type { EngineResult, NodeState } from '../../lib/engine/types';
import { type BarRow, endsAndMiddle } from './colour-bar';
import { largest } from './largest';
import { hasLatency, latencyLimitText } from './latency';
import { durationText, shortNumber } from './numbers';
import type { Palette } from './palette';
import type { ScenarioMarks } from './scenario-marks';
import { hasSteadyState } from './steady';

/**
 * What the user may colour an answer with latency by (the "Colour by" select under the graph):
 * utilization, as for any steady state, or response time. Other answers have no choice.
 */
export type ColourChoice = 'utilization' | 'responseTime';

/** Above this ratio of the largest response time to the smallest, the scale is logarithmic. */
const LOG_SPREAD = 100;

/**
 * What the graph's colour shows, as the page's other panels may set it (a change between two
 * answers, say): a place on the palette per node (0..1; `undefined` draws it grey) and the key
 * under the graph that says what it means; the palette (viridis unless said), the numbers along
 * the colour bar, and, for a comparison, the scenario's marks on the graph (scenario-marks.ts).
 */
export interface Colouring {
  key: string;
  fraction(node: NodeState): number | undefined;
  palette?: Palette;
  bar?: BarRow[];
  marks?: ScenarioMarks;
}

/**
 * The colouring of a state when no panel sets one. The `analyze` answer of an open structure
 * carries a steady state (`headroom` is there, even when null): its nodes are coloured by
 * utilization of their capacity, 0 to 1 (over capacity is the top of the scale), nodes without
 * a capacity grey; with latency, when `choice` says so, by response time
 * (`responseTimeColouring`). Any other state by pressure, from 0 to the largest: the largest of
 * `scaleOver` when it is given (every tick of a timeline: the fixed scale, so scrubbing shows
 * growth), else of this state alone.
 */
export function defaultColouring(
  result: EngineResult,
  choice: ColourChoice = 'utilization',
  scaleOver?: { largestPressure: number },
): Colouring {
  if (choice === 'responseTime' && hasLatency(result)) return responseTimeColouring(result);
  if (hasSteadyState(result)) {
    return {
      key: 'Colour: utilization of capacity (throughput / capacity), from 0 (dark) to 1 or more (yellow); grey: no capacity.',
      fraction: (node) => (node.utilization === undefined ? undefined : Math.min(node.utilization, 1)),
      bar: [
        {
          label: 'utilization',
          ticks: [
            { at: 0, text: '0' },
            { at: 0.5, text: '0.5' },
            { at: 1, text: '≥ 1' },
          ],
        },
      ],
    };
  }
  const maxPressure = scaleOver?.largestPressure ?? largest(result.nodes, (n) => n.pressure, 0);
  return {
    key:
      scaleOver === undefined
        ? "Colour: pressure, from 0 (dark) to this state's largest (yellow)."
        : 'Colour: pressure, from 0 (dark) to the largest over every tick (yellow): the scale stays as the timeline moves.',
    fraction: (node) => (maxPressure > 0 ? Math.min(1, node.pressure / maxPressure) : 0),
    bar: [{ label: 'pressure', ticks: endsAndMiddle(0, maxPressure, shortNumber) }],
  };
}

/** The largest pressure of any state: the top of the fixed scale across a timeline. */
export function largestPressure(results: readonly EngineResult[]): number {
  let most = 0;
  for (const result of results)
    most = Math.max(
      most,
      largest(result.nodes, (n) => n.pressure, 0),
    );
  return most;
}

/**
 * Response time, 0 (dark) to the largest finite one (yellow); when they span more than
 * `LOG_SPREAD`× (a 1 ms cache beside a 2 s batch job), logarithmically from the smallest, or
 * every fast node would look alike. A node with a `serviceTime` but no response time is at or
 * over saturation (or down, or unbounded): it never answers on average, the top of the scale.
 * A node without a `serviceTime` takes no time in the model: grey.
 */
function responseTimeColouring(result: EngineResult): Colouring {
  let most = 0;
  let least = Number.POSITIVE_INFINITY;
  for (const { responseTime } of result.nodes) {
    if (responseTime === undefined) continue;
    if (responseTime > most) most = responseTime;
    if (responseTime > 0 && responseTime < least) least = responseTime;
  }
  const log = most / least > LOG_SPREAD;
  const rest =
    'yellow too: a service time at or over saturation (no mean); grey: no service time. Times read a step as a second.';
  if (log) {
    const span = Math.log(most / least);
    return {
      key: `Colour: response time, on a log scale from ${durationText(least)} (dark) to ${durationText(most)} (yellow); ${rest}`,
      bar: [
        {
          label: 'response time (log)',
          ticks: [
            { at: 0, text: durationText(least) },
            { at: 0.5, text: durationText(Math.sqrt(least * most)) },
            { at: 1, text: durationText(most) },
          ],
        },
      ],
      fraction: (node) =>
        node.serviceTime === undefined
          ? undefined
          : node.responseTime === undefined
            ? 1
            : Math.log(node.responseTime / least) / span,
    };
  }
  return {
    key: `Colour: response time, from 0 (dark) to ${durationText(most)} (yellow); ${rest}`,
    bar: [{ label: 'response time', ticks: endsAndMiddle(0, most, durationText) }],
    fraction: (node) =>
      node.serviceTime === undefined
        ? undefined
        : node.responseTime === undefined
          ? 1
          : most > 0
            ? node.responseTime / most
            : 0,
  };
}

/**
 * A node's open fields, steady state and latency, for hover text; empty for a closed structure.
 * Counts are exact; times are rounded with their unit (`response time 20.8 ms`), as a time
 * reads, the exact value in the details' hover and the raw answer.
 */
export function openFacts(node: NodeState, name: (id: string) => string = (id) => id): string {
  const parts: string[] = [];
  if (node.arrival !== undefined) parts.push(`arrival ${node.arrival}`);
  if (node.exit !== undefined) parts.push(`exit ${node.exit}`);
  if (node.fanout === true) parts.push('fan-out');
  if (node.exited !== undefined) parts.push(`exited ${node.exited}`);
  if (node.throughput !== undefined) parts.push(`throughput ${node.throughput}`);
  if (node.utilization !== undefined) parts.push(`utilization ${node.utilization}`);
  const facts = parts.join(', ');
  const latency = latencyFacts(node, name);
  return facts === '' || latency === '' ? facts + latency : `${facts}\n${latency}`;
}

/** A node's service and latency fields in words, for `openFacts`: one line, or empty. */
function latencyFacts(node: NodeState, name: (id: string) => string): string {
  const parts: string[] = [];
  if (typeof node.serviceTime === 'number') parts.push(`service time ${durationText(node.serviceTime)}`);
  if (typeof node.servers === 'number') parts.push(`${node.servers} server${node.servers === 1 ? '' : 's'}`);
  if (node.responseTime !== undefined) parts.push(`response time ${durationText(node.responseTime)}`);
  if (node.waiting !== undefined) parts.push(`waiting ${durationText(node.waiting)}`);
  if (node.inFlight !== undefined) parts.push(`in flight ${Number(node.inFlight.toPrecision(4))}`);
  if (node.p99 !== undefined) parts.push(`p99 ${durationText(node.p99)}`);
  if (node.latency !== undefined) parts.push(`latency ${durationText(node.latency)}`);
  if (node.latencyLimit !== undefined) parts.push(`latency: ${latencyLimitText(node.latencyLimit, name)}`);
  if (typeof node.slo === 'number') parts.push(`SLO ${durationText(node.slo)}`);
  return parts.join(', ');
}
