/**
 * The numbers a registered system's source measured, as its format kept them beside the engine's
 * (connect.md; the engine passes extra fields through `analyze`): Kiali's `rates` on an edge and
 * its node's `traffic`, `observedLatency` (Kiali, X-Ray), Jaeger's and Zipkin's `callCount` and
 * `errorCount`, X-Ray's counts, Grafana's node graph `mainStat`, `secondaryStat`, `arc__*` and
 * `detail__*`. Shown as the source wrote them (Kiali's `"20.00"` stays `20.00`): they are its
 * words, beside the engine's steady numbers, which they may differ from.
 */

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
const UNIT: Record<string, string> = { millisecond: 'ms', second: 's' };

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

/** The source's numbers on a node or a dependency, one phrase each; empty when it kept none. */
export function sourceNumbers(entry: Readonly<Record<string, unknown>>): string[] {
  const found: string[] = [];
  const latency = entry.observedLatency;
  if (isRecord(latency) && typeof latency.value === 'number')
    found.push(
      `observed ${String(latency.statistic ?? 'latency')} ${latency.value} ${UNIT[String(latency.unit)] ?? String(latency.unit ?? '')}`.trim(),
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
