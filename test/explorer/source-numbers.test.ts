/**
 * The source's own numbers beside the engine's (explorer/src/source-numbers.ts): an observed
 * latency reads in the page's time format when its unit is a time, and says when it has none.
 */
import { describe, expect, it } from 'vitest';
import { sourceNumbers } from '../../explorer/src/source-numbers';

describe('sourceNumbers', () => {
  // X-Ray's mean for Grafana's SampleSite (1427.793 s over 3553 requests) reads as the page's
  // own times do, three digits; Kiali's p95 in ms as well, past a second in seconds.
  it('says an observed latency in a time unit as the page says times', () => {
    const observed = (value: number, unit?: string) =>
      sourceNumbers({ observedLatency: { value, statistic: unit === 'second' ? 'mean' : 'p95', unit } });
    expect(observed(1427.793 / 3553, 'second')).toEqual(['observed mean 402 ms']);
    expect(observed(12, 'millisecond')).toEqual(['observed p95 12 ms']);
    expect(observed(1500, 'millisecond')).toEqual(['observed p95 1.5 s']);
  });

  // A native document's own observedLatency may carry any unit, or none: said as given, or said missing.
  it('keeps another unit as given and says when there is none', () => {
    expect(sourceNumbers({ observedLatency: { value: 48, statistic: 'p95' } })).toEqual([
      'observed p95 48 (no unit given)',
    ]);
    expect(sourceNumbers({ observedLatency: { value: 3, statistic: 'p50', unit: 'ticks' } })).toEqual([
      'observed p50 3 ticks',
    ]);
  });
});
