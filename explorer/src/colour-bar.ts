import type { Colouring } from './colour-by';
import { type Palette, paletteGradient } from './palette';

/** A number on the colour bar: its place along the bar (0 left, 1 right) and its text. */
export interface BarTick {
  at: number;
  text: string;
}

/**
 * One row of numbers under the colour bar, and what they measure when the bar has more than one
 * (a comparison's utilization and, for nodes without a capacity, pressure).
 */
export interface BarRow {
  label: string;
  ticks: BarTick[];
}

/** Ticks at the two ends and the middle of a scale from `low` to `high`, as `text` writes them. */
export function endsAndMiddle(low: number, high: number, text: (value: number) => string): BarTick[] {
  if (high === low) return [{ at: 0, text: text(low) }];
  return [
    { at: 0, text: text(low) },
    { at: 0.5, text: text((low + high) / 2) },
    { at: 1, text: text(high) },
  ];
}

/**
 * The colour bar under the graph: the palette as a gradient with its numbers under it (every
 * colouring says what its ends and middle are), one row per measure, named at its right. Its
 * spoken label reads the numbers. Without a colouring (a run without a result), it is hidden.
 */
export function renderColourBar(container: HTMLElement, colouring: Colouring | undefined): void {
  container.replaceChildren();
  const rows = colouring?.bar ?? [];
  container.hidden = colouring === undefined || rows.length === 0;
  if (container.hidden) return;
  const palette: Palette = colouring?.palette ?? 'viridis';
  container.dataset.palette = palette;
  const gradient = document.createElement('span');
  gradient.className = 'colour-gradient';
  gradient.style.background = paletteGradient(palette);
  container.append(gradient);
  for (const row of rows) {
    const numbers = document.createElement('span');
    numbers.className = 'colour-numbers';
    numbers.dataset.row = row.label;
    for (const { at, text } of row.ticks) {
      const tick = document.createElement('span');
      tick.className = 'colour-tick';
      tick.textContent = text;
      // The ends hold their edge of the bar; a middle number is centred on its place.
      tick.style.left = `${at * 100}%`;
      tick.style.transform = at <= 0 ? 'none' : at >= 1 ? 'translateX(-100%)' : 'translateX(-50%)';
      numbers.append(tick);
    }
    const label = document.createElement('span');
    label.className = 'colour-row-label';
    label.textContent = row.label;
    container.append(numbers, label);
  }
  container.setAttribute(
    'aria-label',
    `Colour bar: ${rows.map((row) => `${row.label} ${row.ticks.map((tick) => tick.text).join(', ')}`).join('; ')}`,
  );
}
