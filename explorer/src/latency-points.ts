import type { LatencyCurve } from '../../lib/engine';

/**
 * What the latency chart draws for one entry (latency-chart.ts), computed in the engine worker:
 * the page itself imports no engine code.
 */
export interface LatencyPoints {
  /** Factors of today's traffic, increasing from 0, all below `saturation` (today's among them when it is). */
  scales: number[];
  /** The entry's latency at each scale, in steps: finite, every scale being below saturation. */
  latency: number[];
  /** The factor at which the first node on the entry's paths saturates; `Infinity` for none. */
  saturation: number;
  /**
   * The chart's right edge: `saturation`, or `FLAT_RANGE` without one; ×1 when the saturation is
   * below it (an entry over capacity today), so today shows past the saturation.
   */
  end: number;
  /**
   * The knee: the factor at which the latency is twice what it is with no traffic. With no
   * traffic a request waits nowhere, so the latency there is all service; at the knee it waits
   * as long as it is served, and from there on waiting is most of its time. `undefined` when
   * the latency does not double below saturation (or is 0 with no traffic).
   */
  knee?: number;
  /**
   * With an SLO: the factor at which the latency reaches it (0 when it does with no traffic;
   * `saturation` when it holds right up to it); `undefined` when it never does.
   */
  sloScale?: number;
}

/** Scales evenly spread over the chart's width. */
const SAMPLES = 160;
/** Scales added inside each bracket where the latency crosses a mark, to place the mark. */
const REFINE = 32;
/**
 * The chart's width without a saturation: nothing on the way queues (service times without
 * servers), so the latency is flat and ×3 shows as much as any width would.
 */
const FLAT_RANGE = 3;

/**
 * The points of `curve` (`latencyCurve` for one entry: each call is one steady solve and one
 * pass per scale) the chart draws, in three calls: the saturation, which sets the width; an
 * even spread with today (×1) and scales ever closer to the saturation, where the curve climbs;
 * then `REFINE` more inside the step where it crosses the knee and the SLO, so each mark sits
 * on the curve to within 1/5,000 of the width. `undefined` when the entry has no curve (stuck
 * today, or no entry at all).
 */
export function latencyPoints(
  curve: (scales: readonly number[]) => LatencyCurve | undefined,
  slo: number | undefined,
): LatencyPoints | undefined {
  const probe = curve([0]);
  if (probe === undefined) return undefined;
  const { saturation } = probe;
  // Where the curve runs: to the saturation, or across the flat range.
  const reach = Number.isFinite(saturation) ? saturation : FLAT_RANGE;
  const end = Math.max(reach, 1);
  const scales = [1];
  for (let i = 0; i < SAMPLES; i++) scales.push((reach * i) / SAMPLES);
  if (Number.isFinite(saturation)) for (let k = 8; k <= 16; k++) scales.push(reach * (1 - 2 ** -k));
  const points = new Map<number, number>();
  const add = (at: readonly number[]) => {
    const { latency } = curve(at)!;
    at.forEach((scale, i) => {
      if (scale < saturation && Number.isFinite(latency[i]!)) points.set(scale, latency[i]!);
    });
  };
  add(scales);
  const idle = points.get(0)!;
  const targets = [idle > 0 ? 2 * idle : undefined, slo];
  const refine: number[] = [];
  for (const target of targets) {
    const bracket = target === undefined ? undefined : crossingBracket(points, target, reach);
    if (bracket === undefined) continue;
    const [low, high] = bracket;
    for (let i = 1; i <= REFINE; i++) refine.push(low + ((high - low) * i) / (REFINE + 1));
  }
  if (refine.length > 0) add(refine);
  const sorted = [...points.keys()].sort((a, b) => a - b);
  const result: LatencyPoints = {
    scales: sorted,
    latency: sorted.map((scale) => points.get(scale)!),
    saturation,
    end,
  };
  const knee = targets[0] === undefined ? undefined : crossing(result, targets[0]);
  if (knee !== undefined) result.knee = knee;
  if (slo !== undefined) {
    const reached = crossing(result, slo);
    // The latency grows without bound at the saturation: an SLO it has not reached by then is
    // reached there (the node saturating takes no time of its own, so the curve jumps).
    const sloScale = reached ?? (Number.isFinite(saturation) ? saturation : undefined);
    if (sloScale !== undefined) result.sloScale = sloScale;
  }
  return result;
}

/** The step of `points` where the latency first reaches `target`, or the last one to `reach`. */
function crossingBracket(
  points: ReadonlyMap<number, number>,
  target: number,
  reach: number,
): [number, number] | undefined {
  const sorted = [...points.keys()].sort((a, b) => a - b);
  if (points.get(sorted[0]!)! >= target) return undefined;
  for (let i = 1; i < sorted.length; i++) {
    if (points.get(sorted[i]!)! >= target) return [sorted[i - 1]!, sorted[i]!];
  }
  // Not reached yet: between the last point and the saturation, where the latency grows without
  // bound (beyond a flat curve's edge it never does).
  return reach > sorted[sorted.length - 1]! ? [sorted[sorted.length - 1]!, reach] : undefined;
}

/** Where the latency first reaches `target`, linearly between the points around it. */
function crossing(points: Pick<LatencyPoints, 'scales' | 'latency'>, target: number): number | undefined {
  const { scales, latency } = points;
  if (latency[0]! >= target) return scales[0];
  for (let i = 1; i < scales.length; i++) {
    if (latency[i]! >= target) {
      const low = latency[i - 1]!;
      return scales[i - 1]! + ((scales[i]! - scales[i - 1]!) * (target - low)) / (latency[i]! - low);
    }
  }
  return undefined;
}
