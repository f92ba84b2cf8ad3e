import type { Changes } from '../../lib/engine/compare';
import type { EngineResult, NodeState } from '../../lib/engine/types';
import type { EngineAnswer } from './behaviour';
import type { BarRow } from './colour-bar';
import type { Colouring } from './colour-by';
import { shortNumber } from './numbers';
import type { ScenarioMarks } from './scenario-marks';

/** A change with its sign, so a decrease reads as one: `+1.333`, `−2` (a real minus sign). */
const signed = (change: number): string =>
  change < 0 ? `−${shortNumber(-change)}` : change > 0 ? `+${shortNumber(change)}` : '0';

const asStates = (value: unknown): EngineResult[] =>
  ([] as EngineResult[]).concat((value as EngineResult) ?? []);
const tickOf = (state: EngineResult) => (state as EngineResult & { tick?: number }).tick ?? 0;

/** The bar's numbers for a change from −`spread` to +`spread`: both ends and 0 in the middle. */
const changeTicks = (label: string, spread: number): BarRow => ({
  label,
  ticks:
    spread > 0
      ? [
          { at: 0, text: signed(-spread) },
          { at: 0.5, text: '0' },
          { at: 1, text: signed(spread) },
        ]
      : [{ at: 0.5, text: '0' }],
});

/**
 * Colours each node by how it changed against the baseline's state at the same tick, on the
 * diverging change palette (palette.ts): no change the grey middle, more towards red, less towards
 * blue, symmetric about 0 and scaled by the largest change of any tick (so a timeline's ticks
 * compare with each other). The measure is utilization for an open `analyze`; a node without a
 * utilization on either side (no capacity, or one the scenario removed) is coloured by its change
 * in pressure instead, on a scale of its own, so a node without a capacity that becomes the
 * primary blockage does not read as "no change". The colour bar carries both scales' numbers.
 */
export function changeColouring(answer: EngineAnswer, changes: Changes, marks: ScenarioMarks): Colouring {
  const baseline = new Map<number, Map<string, NodeState>>();
  for (const state of asStates(answer.baseline)) {
    baseline.set(tickOf(state), new Map(state.nodes.map((node) => [node.id, node])));
  }
  // Which state a node on show belongs to, so it is compared with the baseline's at that tick.
  const tickOfNode = new WeakMap<NodeState, number>();
  const utilization = changes.utilization !== undefined;
  const before = (node: NodeState) => baseline.get(tickOfNode.get(node) ?? changes.tick)?.get(node.id);
  /** Whether `node`'s change is in utilization (else in pressure). */
  const byUtilization = (node: NodeState) =>
    utilization && node.utilization !== undefined && before(node)?.utilization !== undefined;
  const delta = (node: NodeState) =>
    byUtilization(node)
      ? node.utilization! - before(node)!.utilization!
      : node.pressure - (before(node)?.pressure ?? 0);
  let spread = 0;
  let pressureSpread = 0;
  let pressureNodes = false;
  for (const state of asStates(answer.engine ?? answer.snapshot ?? answer.snapshots)) {
    for (const node of state.nodes) {
      tickOfNode.set(node, tickOf(state));
      const change = Math.abs(delta(node));
      // Infinity (an unbounded node) would flatten every other change to grey.
      if (!Number.isFinite(change)) continue;
      if (byUtilization(node)) spread = Math.max(spread, change);
      else {
        pressureNodes = true;
        pressureSpread = Math.max(pressureSpread, change);
      }
    }
  }
  const place = (change: number, across: number) =>
    across > 0 ? Math.max(0, Math.min(1, 0.5 + change / (2 * across))) : 0.5;
  const measure = utilization ? 'utilization' : 'pressure';
  const bar = [changeTicks(`change in ${measure}`, utilization ? spread : pressureSpread)];
  if (utilization && pressureNodes) bar.push(changeTicks('change in pressure (no capacity)', pressureSpread));
  return {
    key:
      `Colour: change in ${measure} against the baseline, from less (blue) through none (grey) to more (red), ` +
      `symmetric about 0, the largest change of any tick at the ends` +
      (utilization ? '; a node without a capacity: change in pressure, on a scale of its own.' : '.'),
    palette: 'change',
    bar,
    marks,
    fraction(node: NodeState): number {
      return place(delta(node), byUtilization(node) ? spread : pressureSpread);
    },
  };
}
