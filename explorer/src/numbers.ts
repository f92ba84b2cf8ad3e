/**
 * Numbers as the page shows them: rounded for reading (four significant digits, whole numbers from
 * 1,000 on), with the exact value the answer holds kept for hover and exports.
 */
export function shortNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  // Past 1e15 a double holds no exact whole number to group: its four digits and exponent
  // (`1.5e+300`, where grouping wrote 301 digits and 100 commas).
  if (Math.abs(value) >= 1e15) return Number(value.toPrecision(4)).toExponential();
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en');
  return String(Number(value.toPrecision(4)));
}

/** A number's text for reading, its exact value as the element's hover text when they differ. */
export function showNumber(element: { textContent: string | null; title: string }, value: number): void {
  element.textContent = shortNumber(value);
  if (element.textContent !== String(value)) element.title = String(value);
}

/**
 * A factor of traffic for reading: `×1.42`, three significant digits. A factor below 1 never
 * reads as `×1` (0.9999 is `×0.999`): below today's traffic is what it says.
 */
export function scaleText(scale: number): string {
  const rounded = Number(scale.toPrecision(3));
  return `×${scale < 1 ? Math.min(rounded, 0.999) : rounded}`;
}

/** Units below the second, largest first: a time is said in the first it is at least one of. */
const SUBSECOND_UNITS: ReadonlyArray<readonly [string, number]> = [
  ['ms', 1e-3],
  ['µs', 1e-6],
  ['ns', 1e-9],
];

/**
 * A time the engine gives in steps, for reading: a step is read as a second (as with arrivals per
 * second), so under one it is milliseconds, microseconds or nanoseconds, whichever it holds at
 * least one of. Three significant digits: `20.8 ms`, `300 ms`, `1.42 s`, `1,240 s`, `4.29 µs`
 * (not `0.00429 ms`); below a nanosecond, in nanoseconds (`0.05 ns`).
 */
export function durationText(steps: number): string {
  if (!Number.isFinite(steps)) return String(steps);
  // Rounded first, so a time that rounds to 1 s (0.9999) is said in seconds, not as "1000 ms".
  const rounded = Number(steps.toPrecision(3));
  if (rounded === 0) return '0 ms';
  if (Math.abs(rounded) >= 1) return `${shortNumber(rounded)} s`;
  const inUnit = (size: number) => Number((steps / size).toPrecision(3));
  const [unit, size] =
    SUBSECOND_UNITS.find(([, size]) => Math.abs(inUnit(size)) >= 1) ?? SUBSECOND_UNITS.at(-1)!;
  return `${inUnit(size)} ${unit}`;
}
