import type { Layout } from './layout';

/** Distances in a drawing's units. */
export interface Spacing {
  /** Between rows of a column. */
  row: number;
  /** Between the columns one layer is wrapped into. */
  column: number;
  /** Between the last column of a layer and the first of the next. */
  layer: number;
  /** Between two bands of a folded drawing. */
  band: number;
}

/** The view a drawing is fitted to. */
export interface ViewShape {
  /** Width over height. */
  aspect: number;
  /**
   * Nodes this far apart at Fit are far enough: the drawing is wrapped and folded no more than
   * it takes to reach it, `px` pixels in a view `height` pixels high (the SVG view, whose labels
   * read best beside tall columns). Without it, as far apart as the drawing allows.
   */
  enough?: { px: number; height: number };
}

/** Where each node is drawn, y growing downwards. */
export interface Placement {
  x: Float64Array;
  y: Float64Array;
  /** The least distance between two nodes, in the drawing's units. */
  closest: number;
}

/** Fold a drawing into bands only with this many layers or more. */
const FOLD_MIN_LAYERS = 16;
/** A fold must fit the drawing this much larger than the same columns without one. */
const FOLD_GAIN = 1.25;
/** A layer is wrapped into fewer columns when that fits the drawing nearly as large (within this share). */
const WRAP_SLACK = 0.03;
/** Layers are spread apart up to this many times their gap to give the drawing the view's shape. */
const MAX_STRETCH = 8;
/** Count a drawing at least this many rows tall (labels and arcs need room above and below). */
const MIN_ROWS = 3;

interface Shape {
  /** Most rows in a column. */
  rows: number;
  /** Layers per band, first to last. */
  bands: number[][];
  /** How large the drawing is drawn when fitted to a view of width `aspect` and height 1. */
  scale: number;
}

/**
 * Layers left to right, each wrapped into as many columns as it needs of at most `rows` nodes
 * (row by row, so a layer's order reads top to bottom), the layers folded into bands (left to
 * right, then right to left) when there are many. Of every such shape the one drawn largest
 * when fitted to the view is taken (or the least wrapped one whose nodes are `enough` apart),
 * so at Fit nodes are as far apart as this layering allows: a layer of thousands becomes a
 * block, a long chain a serpentine. Then layers are spread apart (up to 8×) until the drawing
 * has the view's shape. Deterministic; O(L log R + n) for L layers of at most R nodes.
 */
export function placeInView(layout: Layout, view: ViewShape, spacing: Spacing): Placement {
  const { aspect } = view;
  const { layer, row, layerCount, rowCount } = layout;
  const n = layer.length;
  const sizes = new Int32Array(layerCount);
  for (let v = 0; v < n; v++) sizes[layer[v]!]!++;
  // Fitted to a view `aspect` wide and 1 high, nodes `enough` apart are drawn at this scale.
  const enoughScale = view.enough && view.enough.px / (view.enough.height * spacing.row);
  const shape = bestShape(sizes, Math.max(1, rowCount), aspect, spacing, enoughScale);
  const bandHeight = Math.max(shape.rows, MIN_ROWS) * spacing.row;
  const height = shape.bands.length * (bandHeight + spacing.band) - spacing.band;
  // Each layer's columns and rows, and where its first column starts within its band.
  const columns = new Int32Array(layerCount);
  const rowsOf = new Int32Array(layerCount);
  const left = new Float64Array(layerCount);
  const top = new Float64Array(layerCount);
  /** Lays the bands out with layers `gap` apart; returns the widest band's width, and the widest gap that keeps every band within `target`. */
  const lay = (gap: number, target = 0): { widest: number; fitting: number } => {
    let widest = 0;
    let fitting = Number.POSITIVE_INFINITY;
    shape.bands.forEach((band, b) => {
      let at = 0;
      for (const l of band) {
        columns[l] = Math.max(1, Math.ceil(sizes[l]! / shape.rows));
        rowsOf[l] = Math.ceil(sizes[l]! / columns[l]!);
        left[l] = at;
        top[l] = b * (bandHeight + spacing.band);
        at += (columns[l]! - 1) * spacing.column + gap;
      }
      widest = Math.max(widest, at - gap);
      if (band.length > 1) fitting = Math.min(fitting, gap + (target - (at - gap)) / (band.length - 1));
    });
    return { widest, fitting };
  };
  // Layers spread apart (their columns stay as close) until the drawing has the view's shape.
  const { fitting } = lay(spacing.layer, aspect * height - spacing.column);
  const gap = Math.min(MAX_STRETCH * spacing.layer, Math.max(spacing.layer, fitting));
  const { widest } = lay(Number.isFinite(gap) ? gap : spacing.layer);
  // Every other band runs right to left, so a layer's neighbours stay beside it at a band's end.
  shape.bands.forEach((band, b) => {
    if (b % 2 === 0) return;
    for (const l of band) left[l] = widest - left[l]! - (columns[l]! - 1) * spacing.column;
  });
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    const l = layer[v]!;
    const r = row[v]!;
    const across = r % columns[l]!;
    const down = Math.floor(r / columns[l]!);
    x[v] = left[l]! + across * spacing.column;
    // A layer's rows spread over the band's height, so layers of any size line up.
    y[v] = top[l]! + ((down + 0.5) * bandHeight) / rowsOf[l]!;
  }
  return { x, y, closest: Math.min(spacing.row, spacing.column) };
}

/** The layers of each band, when layers `widths` wide are cut into `count` bands about as wide. */
function cutIntoBands(widths: Float64Array, count: number, gap: number): number[][] {
  let total = 0;
  for (const w of widths) total += w + gap;
  const target = total / count;
  const bands: number[][] = [[]];
  let at = 0;
  widths.forEach((w, l) => {
    const band = bands[bands.length - 1]!;
    if (band.length > 0 && at + (w + gap) / 2 > target && bands.length < count) {
      bands.push([l]);
      at = w + gap;
    } else {
      band.push(l);
      at += w + gap;
    }
  });
  return bands;
}

function bestShape(
  sizes: Int32Array,
  rowCount: number,
  aspect: number,
  spacing: Spacing,
  enoughScale: number | undefined,
): Shape {
  const layerCount = sizes.length;
  const all = Array.from({ length: layerCount }, (_, l) => l);
  const widths = new Float64Array(layerCount);
  const fitted = (rows: number, bands: number[][]): number => {
    let widest = 0;
    for (const band of bands) {
      let width = spacing.column;
      for (const l of band) width += widths[l]! + spacing.layer;
      widest = Math.max(widest, width - spacing.layer);
    }
    const height = bands.length * (Math.max(rows, MIN_ROWS) * spacing.row + spacing.band) - spacing.band;
    return Math.min(aspect / widest, 1 / height);
  };
  let best: Shape | undefined;
  // Rows per column from the tallest layer down, each about 8% fewer: O(log R) shapes.
  for (let rows = rowCount; rows >= 1; rows = Math.min(rows - 1, Math.floor(rows / 1.08))) {
    let total = 0;
    for (let l = 0; l < layerCount; l++) {
      widths[l] = (Math.ceil(sizes[l]! / rows) - 1) * spacing.column;
      total += widths[l]! + spacing.layer;
    }
    let shape: Shape = { rows, bands: [all], scale: fitted(rows, [all]) };
    if (layerCount >= FOLD_MIN_LAYERS) {
      // Bands about the view's shape: count² ≈ width / (aspect · band height).
      const bandHeight = Math.max(rows, MIN_ROWS) * spacing.row + spacing.band;
      const around = Math.round(Math.sqrt(total / (aspect * bandHeight)));
      const unfolded = shape.scale;
      for (let count = Math.max(2, around - 1); count <= Math.min(layerCount, around + 1); count++) {
        const bands = cutIntoBands(widths, count, spacing.layer);
        const scale = fitted(rows, bands);
        if (scale > unfolded * FOLD_GAIN && scale > shape.scale) shape = { rows, bands, scale };
      }
    }
    if (enoughScale !== undefined && shape.scale >= enoughScale) return shape;
    if (best === undefined || shape.scale > best.scale * (1 + WRAP_SLACK)) best = shape;
  }
  return best ?? { rows: rowCount, bands: [all], scale: 1 };
}
