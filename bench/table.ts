/**
 * Formatting for the benchmark's output. The table is padded to fixed widths so it reads well
 * in a terminal, and it is a valid Markdown table so it can be pasted into docs as is.
 */

/** One target of the bench, as its PASS or MISS line prints it. */
export interface TargetCheck {
  row: string;
  target: string;
  measured: string;
  pass: boolean;
  /** Why it misses (or what it rests on). */
  note?: string;
}

export interface Column {
  header: string;
  align: 'left' | 'right';
}

export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, c) =>
    Math.max(column.header.length, 3, ...rows.map((row) => (row[c] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((cell, c) => (columns[c]!.align === 'right' ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join(' | ')} |`;
  const separator = `| ${columns
    .map((column, c) =>
      column.align === 'right' ? `${'-'.repeat(widths[c]! - 1)}:` : '-'.repeat(widths[c]!),
    )
    .join(' | ')} |`;
  return [line(columns.map((column) => column.header)), separator, ...rows.map(line)].join('\n');
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Milliseconds with about three significant digits: `0.84 ms`, `42.1 ms`, `1,234 ms`. */
export function formatMs(ms: number): string {
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${grouped.format(ms)} ms`;
}

/** A ratio such as `23.4×`; `≥ 0.21×` when the numerator is only a lower bound. */
export function formatRatio(ratio: number, lowerBound = false): string {
  const digits = ratio < 10 ? 2 : 1;
  return `${lowerBound ? '≥ ' : ''}${ratio.toFixed(digits)}×`;
}

/** Nanoseconds with about three significant digits: `4.87 ns`, `1,631 ns`. */
export function formatNs(ns: number): string {
  if (ns < 10) return `${ns.toFixed(2)} ns`;
  if (ns < 100) return `${ns.toFixed(1)} ns`;
  return `${grouped.format(ns)} ns`;
}

/** `1k`, `40k`, `1M`: sizes as the issue names them. */
export function formatCount(count: number): string {
  if (count >= 1_000_000 && count % 100_000 === 0) return `${count / 1_000_000}M`;
  if (count >= 1_000 && count % 1_000 === 0) return `${count / 1_000}k`;
  return String(count);
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
