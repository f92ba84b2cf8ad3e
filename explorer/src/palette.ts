/** Which scale a colouring uses: viridis for a measure, the diverging scale for a change. */
export type Palette = 'viridis' | 'change';

type Stops = readonly (readonly [number, number, number])[];

/**
 * Viridis (matplotlib's default colour map): perceptually uniform, readable in greyscale and by
 * the common forms of colour blindness. Eleven stops, interpolated linearly.
 */
const VIRIDIS: Stops = [
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
];

/**
 * A change, less to more: ColorBrewer's RdBu, 9 classes, from blue (less) to red (more), by
 * Cynthia A. Brewer, Mark Harrower and The Pennsylvania State University (colorbrewer2.org;
 * Apache License 2.0). A diverging scale, so no change sits in the middle as a colour of its own
 * and more and less read apart (viridis's teal middle read as a measure, not as "none"), and its
 * two hues stay apart for the common forms of colour blindness. One change from ColorBrewer's:
 * the middle class, #f7f7f7, is the neutral grey #d9d9d9 (ColorBrewer's Greys), so a node with
 * no change stays visible on the white page and in the WebGL view, which draws no outlines.
 */
const CHANGE: Stops = [
  [33, 102, 172],
  [67, 147, 195],
  [146, 197, 222],
  [209, 229, 240],
  [217, 217, 217],
  [253, 219, 199],
  [244, 165, 130],
  [214, 96, 77],
  [178, 24, 43],
];

const STOPS: Record<Palette, Stops> = { viridis: VIRIDIS, change: CHANGE };

/**
 * The colour for `t` in [0, 1] (clamped) on `palette`, as red, green and blue from 0 to 1 (for
 * WebGL). On the change scale ½ is no change.
 */
export function paletteRgb(t: number, palette: Palette = 'viridis'): [number, number, number] {
  const stops = STOPS[palette];
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const a = stops[i]!;
  const b = stops[i + 1]!;
  const channel = (k: 0 | 1 | 2) => (a[k] + (b[k] - a[k]) * f) / 255;
  return [channel(0), channel(1), channel(2)];
}

/** The colour for `t` in [0, 1] (clamped) on `palette`, as CSS. */
export function paletteColour(t: number, palette: Palette = 'viridis'): string {
  const [r, g, b] = paletteRgb(t, palette);
  return `rgb(${Math.round(r * 255)}, ${Math.round(g * 255)}, ${Math.round(b * 255)})`;
}

/** The whole scale as a CSS gradient, left to right, for the colour bar under the graph. */
export function paletteGradient(palette: Palette): string {
  const stops = STOPS[palette];
  return `linear-gradient(90deg, ${stops.map(([r, g, b]) => `rgb(${r}, ${g}, ${b})`).join(', ')})`;
}
