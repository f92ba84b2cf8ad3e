/**
 * Where the latency chart puts its SLO line's label (explorer/src/chart-labels.ts): somewhere the
 * curve and the marks do not run through. Pixels as the chart draws them, y growing downwards:
 * a plot from x 54 to 346, the SLO line at y 100; "SLO 300 ms" is some 65 px wide.
 */
import { describe, expect, it } from 'vitest';
import { sloLabelPlace } from '../../explorer/src/chart-labels';

const PLOT = { left: 54, right: 346 };
const LINE = 100;

describe('sloLabelPlace', () => {
  // A curve that stays well below the SLO (lower on screen) until the far right: the label sits
  // above the line at the left, where it always did.
  it('keeps the label above the line at the left when nothing crosses it there', () => {
    const curve = [
      [54, 150],
      [250, 140],
      [340, 20],
    ] as const;
    expect(sloLabelPlace('SLO 300 ms', LINE, PLOT, curve, [])).toEqual({ x: 58, y: 96, anchor: 'start' });
  });

  // An entry over its SLO even with no traffic: the curve starts 3 px above the line and only
  // climbs, through the label's place above it; below the line is clear.
  it('moves the label below the line where the curve starts just above it', () => {
    const curve = [
      [54, 97],
      [200, 94],
      [300, 30],
    ] as const;
    expect(sloLabelPlace('SLO 9 ms', LINE, PLOT, curve, [])).toEqual({ x: 58, y: 114, anchor: 'start' });
  });

  // The SLO reached early (30 px in): the curve climbs through the line under the label on
  // either side of it at the left; at the right end it is far above, so the label goes there.
  it('moves the label to the right end where the curve climbs through it at the left', () => {
    const curve = [
      [54, 130],
      [84, 100],
      [120, 60],
      [346, 24],
    ] as const;
    expect(sloLabelPlace('SLO 110 ms', LINE, PLOT, curve, [])).toEqual({ x: 342, y: 96, anchor: 'end' });
  });

  // A mark (the SLO's square, reached at ×0.05) under the label's place: the label gives way.
  it('keeps the label clear of the marks', () => {
    const curve = [
      [54, 150],
      [346, 140],
    ] as const;
    expect(sloLabelPlace('SLO 300 ms', LINE, PLOT, curve, [[70, 100]])).toEqual({
      x: 342,
      y: 96,
      anchor: 'end',
    });
  });

  // A curve that zigzags through every place: the first is as good as any.
  it('falls back to the first place when every one is crossed', () => {
    const curve = [
      [54, 80],
      [346, 120],
      [54, 120],
      [346, 80],
    ] as const;
    expect(sloLabelPlace('SLO 1 s', LINE, PLOT, curve, [])).toEqual({ x: 58, y: 96, anchor: 'start' });
  });
});
