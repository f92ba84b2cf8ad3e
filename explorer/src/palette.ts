/**
 * Viridis (matplotlib's default colour map): perceptually uniform, readable in greyscale and by
 * the common forms of colour blindness. Eleven stops, interpolated linearly.
 */
const VIRIDIS = [
  [68, 1, 84],
  [72, 36, 117],
  [65, 68, 135],
  [53, 95, 141],
  [42, 120, 142],
  [33, 145, 140],
  [34, 168, 132],
  [68, 191, 112],
  [122, 209, 81],
  [189, 223, 38],
  [253, 231, 37],
] as const;

/** The colour for `t` in [0, 1] (clamped), as red, green and blue from 0 to 1 (for WebGL). */
export function viridisRgb(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const a = VIRIDIS[i]!;
  const b = VIRIDIS[i + 1]!;
  const channel = (k: 0 | 1 | 2) => (a[k] + (b[k] - a[k]) * f) / 255;
  return [channel(0), channel(1), channel(2)];
}

/** The colour for `t` in [0, 1] (clamped), as CSS. */
export function viridis(t: number): string {
  const [r, g, b] = viridisRgb(t);
  return `rgb(${Math.round(r * 255)}, ${Math.round(g * 255)}, ${Math.round(b * 255)})`;
}
