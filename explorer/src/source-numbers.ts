/**
 * The numbers a registered system's source measured, as its format kept them beside the engine's
 * (connect.md; the engine passes extra fields through `analyze`): Kiali's `rates` on an edge and
 * its node's `traffic`, `observedLatency` (Kiali, X-Ray), Jaeger's and Zipkin's `callCount` and
 * `errorCount`, X-Ray's counts, Grafana's node graph `mainStat`, `secondaryStat`, `arc__*` and
 * `detail__*`. Shown as the source wrote them (Kiali's `"20.00"` stays `20.00`): they are its
 * words, beside the engine's steady numbers, which they may differ from. An observed latency in
 * a time unit reads as the page's own times do (`402 ms`), since its value is a mean or a
 * percentile the reader worked out, not a string of the source's.
 */

import { durationText } from './numbers';

const COUNTS = [
  'callCount',
  'errorCount',
  'totalCount',
  'okCount',
  'faultCount',
  'throttleCount',
  'totalResponseTime',
  'mainStat',
  'secondaryStat',
] as const;
const PREFIXES = ['arc__', 'detail__'] as const;
/** Seconds in each time unit a format gives its observed latencies in. */
const SECONDS: Record<string, number> = { millisecond: 1e-3, second: 1 };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const isScalar = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** `http rates: http 20.00, http5xx 10.00`: a Kiali rates object, each rate as given. */
function ratesText(protocol: unknown, rates: unknown): string | undefined {
  if (!isRecord(rates)) return undefined;
  const parts = Object.entries(rates)
    .filter(([, value]) => isScalar(value))
    .map(([name, value]) => `${name} ${value}`);
  if (parts.length === 0) return undefined;
  return `${typeof protocol === 'string' ? `${protocol} ` : ''}rates: ${parts.join(', ')}`;
}

/**
 * An observed latency for reading: in a time unit, as the page says its own times (X-Ray's mean
 * of 0.4018556 s reads `402 ms`, Kiali's 12 ms `12 ms`); in any other unit, as given with it; with
 * none, said so (a native document's own field may have none).
 */
function observedTime(value: number, unit: unknown): string {
  const seconds = typeof unit === 'string' && Object.hasOwn(SECONDS, unit) ? SECONDS[unit]! : undefined;
  if (seconds !== undefined) return durationText(value * seconds);
  return typeof unit === 'string' && unit !== '' ? `${value} ${unit}` : `${value} (no unit given)`;
}

/** The source's numbers on a node or a dependency, one phrase each; empty when it kept none. */
export function sourceNumbers(entry: Readonly<Record<string, unknown>>): string[] {
  const found: string[] = [];
  const latency = entry.observedLatency;
  if (isRecord(latency) && typeof latency.value === 'number')
    found.push(
      `observed ${String(latency.statistic ?? 'latency')} ${observedTime(latency.value, latency.unit)}`,
    );
  const rates = ratesText(entry.protocol, entry.rates);
  if (rates !== undefined) found.push(rates);
  if (Array.isArray(entry.traffic))
    for (const traffic of entry.traffic) {
      if (!isRecord(traffic)) continue;
      const text = ratesText(traffic.protocol, traffic.rates);
      if (text !== undefined) found.push(text);
    }
  for (const name of COUNTS) {
    const value = entry[name];
    if (isScalar(value)) found.push(`${name} ${value}`);
  }
  for (const [name, value] of Object.entries(entry))
    if (PREFIXES.some((prefix) => name.startsWith(prefix)) && isScalar(value)) found.push(`${name} ${value}`);
  return found;
}

/** The hover text's line for them: `\nfrom the source: …`, or empty. */
export function sourceLine(entry: Readonly<Record<string, unknown>>): string {
  const found = sourceNumbers(entry);
  return found.length === 0 ? '' : `\nfrom the source: ${found.join('; ')}`;
}
