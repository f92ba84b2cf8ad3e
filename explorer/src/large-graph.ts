import type { EngineResult } from '../../lib/engine/types';
import { type Box, besidePointClear } from './canvas-label';
import type { Colouring } from './colour-by';
import { type ForcePositions, placeForce } from './force-placement';
import { holdFrames } from './held-frame';
import { indexResult, type Layout, layoutResult } from './layout';
import { type Mark, marksOf } from './marks';
import { nodeSizing } from './node-size';
import { type Palette, paletteRgb } from './palette';
import { trackPinch } from './pinch';
import { placeInView, type Spacing } from './placement';
import { type CapacityChange, capacityTag, cutBy } from './scenario-marks';
import { shortName } from './short-name';
import { edgeWidths, type Saturation, saturationByNode } from './steady';
import { TAP_SLOP_PX } from './taps';

/**
 * Grey for a node without a value on the colour scale, as in the SVG view, but darker: the SVG
 * view outlines its nodes, these points have no outline to stand out from the grey lines with.
 */
const NO_MEASURE: readonly [number, number, number] = [0.5, 0.5, 0.5];

function colourOf(
  fraction: number | undefined,
  palette: Palette | undefined,
): readonly [number, number, number] {
  return fraction === undefined ? NO_MEASURE : paletteRgb(fraction, palette);
}

/** The WebGL view of a large structure, kept so the next state reuses positions and buffers. */
export interface LargeGraphView {
  /** The layering drawn; none for a force layout (for the rule of cycles.ts). */
  readonly layout: Layout | undefined;
  /** Recolours and resizes for another state of the same structure. */
  update(result: EngineResult, selected: string | undefined, colouring: Colouring): void;
  /** Zooms by `factor` about the centre of the view. */
  zoomBy(factor: number): void;
  /** Moves the view by screen pixels. */
  panBy(dx: number, dy: number): void;
  /** Back to the whole structure. */
  fit(): void;
  /** The node drawn under a point of the page (client coordinates), if any. */
  nodeAt(clientX: number, clientY: number): number | undefined;
  /** Where node `v` is, in the page's client coordinates. */
  clientPoint(v: number): [number, number];
  /** Node `v`'s place in the layout, y growing downwards (for the arrow keys, graph-nav.ts). */
  position(v: number): [number, number];
  /** Draws the keyboard's focus ring on node `v` (brought into view), or none. */
  setFocus(v: number | undefined): void;
  /** Each node's point as drawn: its centre in client coordinates and its radius, in CSS pixels. */
  discs(): Array<[number, number, number]>;
  /** Frame times (ms) of `frames` camera moves, as while the user drags: for the benchmark. */
  measureFrames(frames: number): Promise<number[]>;
  kill(): void;
}

const TRACE: [number, number, number] = [0.85, 0.37, 0.01];
const ORIGIN: [number, number, number] = [0.11, 0.62, 0.47];
const EDGE: [number, number, number] = [0.78, 0.8, 0.83];
/** A dependency leaving a node that grows without limit (the SVG view's dotted red). */
const UNBOUNDED_EDGE: [number, number, number] = [0.73, 0.11, 0.11];
/** Saturated nodes' badges, as the SVG view draws them. */
const BADGE_COLOUR = '#b91c1c';
const BADGE_GLYPH: Record<Saturation['kind'], string> = { over: '!', lost: '✕', unbounded: '∞' };
/** Up to this many badges are drawn at any zoom: a saturated node among few is worth finding zoomed out. */
const FEW_BADGES = 50;
/** After the camera stops this long, the dependencies are drawn again. */
const SETTLE_MS = 150;
/** Exit and fan-out marks are drawn once neighbouring places in the layout are this far apart on screen. */
const MARK_SPACING_PX = 14;
/** And at most this many (in view), so a frame stays cheap. */
const MAX_MARKS = 3000;
const MARK_COLOUR = { exit: '#333', fanout: '#7570b3' } as const;
/**
 * Arrowheads at each dependency's target are drawn on the overlay once places are this far
 * apart on screen (CSS px) and the camera rests, as the marks are: the lines alone do not say
 * which way a call goes.
 */
const ARROW_SPACING_PX = 14;
/** And at most this many (those whose target is in view), so the overlay stays cheap. */
const MAX_ARROWS = 6000;
/** An arrowhead's length and width, CSS px; its tip this far from the target's point. */
const ARROW_PX = 7;
const ARROW_GAP_PX = 1.5;
/** Arrowheads by what their dependency is: slate, the trace's orange, a cut's or an unbounded node's red. */
const ARROW_COLOUR = ['#475569', '#d95f02', '#b91c1c', '#b91c1c'] as const;
const ARROW_PLAIN = 0;
const ARROW_TRACE = 1;
const ARROW_CUT = 2;
const ARROW_UNBOUNDED = 3;
/** A comparison's marks, as the SVG view draws them: cut dependencies red, capacity tags dark blue. */
const CUT_EDGE: [number, number, number] = [0.73, 0.11, 0.11];
/** A cut dependency is drawn as this many dashes (WebGL lines have no dash pattern of their own). */
const CUT_DASHES = 12;
/** Black: no other point or label is, so the stripes read over any colour. */
const HATCH: [number, number, number] = [0, 0, 0];
const TAG_COLOUR = '#1e3a5f';
/** The background a cut dependency's own line takes, so only its dashes show. */
const BACKGROUND: [number, number, number] = [1, 1, 1];

/**
 * A dependency's colour with a steady state: WebGL lines are one pixel wide, so what the SVG
 * view shows by width this view shows by shade, light for little to dark for the most.
 */
function edgeShade(share: number): readonly [number, number, number] {
  // The lightest no lighter than 0.7: at 0.85 and the haze's opacity, a quiet dependency was
  // 99% white on white, its arrowhead drawn alone (docs/explorer.md).
  const grey = 0.7 - 0.5 * share;
  return [grey, grey, grey + 0.03];
}

/**
 * Nodes one unit apart in a column, layers two, bands three: at Fit, 20,000 nodes are about
 * 4 px apart in a 1280 × 630 view, enough for points that do not touch.
 */
const SPACING: Spacing = { row: 1, column: 1, layer: 2, band: 3 };
/** Lines covering the view up to this many times (end to end, in pixels) are drawn opaque… */
const EDGE_COVER = 0.6;
/** …more, fainter, down to this opacity. */
const FAINTEST_EDGE = 0.06;
/** The faintest an ordinary dependency's arrowhead is drawn, however faint its line. */
const ARROW_FLOOR = 0.35;
/**
 * At Fit, points this far apart are far enough (the largest, 9 px, with room between): tall
 * layers are wrapped no further, which keeps lines shorter and crossing less (Jaeger's 871
 * services: 211,265 crossings, against 383,268 wrapped as far as the view allows). 20,000
 * nodes never get this far apart and are wrapped as far as it takes.
 */
const ENOUGH_APART_PX = 12;
/** Zoomed in, points grow up to this many times their size at Fit. */
const MAX_GROWTH = 3;
/** Names are drawn once neighbouring places are this far apart on screen (CSS px)… */
const NAME_SPACING_PX = 28;
/** …at most this many. */
const MAX_NAMES = 600;
const NAME_COLOUR = '#333';
/** A point is at most this share of the distance between neighbouring places on screen… */
const POINT_SHARE = 0.9;
/** …and never smaller than this, in CSS pixels. */
const SMALLEST_POINT = 1.5;

// A point's size is capped at `limit` (the spacing on screen), so points never touch at Fit; a
// negative size is one drawn as it is (the blockage, the origin and the selected node).
const VERTEX = `#version 300 es
in vec2 position;
in vec3 colour;
in float size;
uniform vec2 centre;
uniform vec2 scale;
uniform float limit;
uniform float grow;
out vec3 fill;
void main() {
  gl_Position = vec4((position - centre) * scale, 0.0, 1.0);
  gl_PointSize = size < 0.0 ? -size : min(size * grow, limit);
  fill = colour;
}`;
const FRAGMENT = `#version 300 es
precision mediump float;
in vec3 fill;
uniform int style;
uniform float alpha;
out vec4 colour;
void main() {
  // 0: lines; 1: round points; 2: round points hatched (a comparison's down nodes), every third
  // diagonal of pixels drawn and the rest left to the point under it.
  if (style > 0 && length(gl_PointCoord - vec2(0.5)) > 0.5) discard;
  if (style == 2 && mod(gl_FragCoord.x + gl_FragCoord.y, 5.0) >= 2.0) discard;
  colour = vec4(fill, style == 0 ? alpha : 1.0);
}`;

function compile(gl: WebGL2RenderingContext, type: number, source: string): WebGLShader {
  const shader = gl.createShader(type)!;
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  return shader;
}

/**
 * Draws a structure of any size with one WebGL program: nodes as round points (colour as the
 * colouring says, pressure on viridis by default; size is load or throughput (node-size.ts); the primary blockage orange, the
 * origin green, both large), dependencies as lines, the trace's in orange (in an open `analyze`,
 * shaded by steady throughput), with arrowheads at their targets on the overlay once zoomed in, saturated, down and unbounded nodes badged on the overlay; in a
 * comparison, down nodes hatched, cut dependencies dashed red, changed capacities tagged. While the
 * camera moves the last frame is shown moved and scaled with it (held-frame.ts), and where that
 * would leave too much of the view empty only the nodes and the trace are drawn (a
 * software-rendered WebGL spends most of a frame on tens of thousands of lines); everything once
 * it settles. Positions come from the same layered layout as the small view,
 * folded into bands, or from `force` (a force layout, snapped to a grid of the view's shape, as
 * the small view does with it). Drag to pan, wheel to zoom, click a node to select it. Its own chunk,
 * loaded only for structures above the SVG view's limit.
 */
export function drawLargeGraph(
  container: HTMLElement,
  result: EngineResult,
  colouring: Colouring,
  name: (id: string) => string,
  onSelect: (id: string) => void,
  force?: ForcePositions,
): LargeGraphView {
  const canvas = document.createElement('canvas');
  const labels = document.createElement('canvas');
  canvas.className = 'large-graph-canvas';
  labels.className = 'large-graph-labels';
  // Both canvases in one element, moved together while a held frame stands in for a new one.
  const stage = document.createElement('div');
  stage.className = 'large-graph-stage';
  stage.append(canvas, labels);
  container.replaceChildren(stage);
  // The input is the container's, which outlives this view: the listeners go with it (kill).
  // The container, not the canvas: a held frame moved aside leaves part of the view uncovered.
  const listening = new AbortController();
  const { signal } = listening;
  const gl = canvas.getContext('webgl2', { antialias: false })!;
  const program = gl.createProgram()!;
  gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, VERTEX));
  gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
  gl.linkProgram(program);
  gl.useProgram(program);
  const attribute = {
    position: gl.getAttribLocation(program, 'position'),
    colour: gl.getAttribLocation(program, 'colour'),
    size: gl.getAttribLocation(program, 'size'),
  };
  const uniform = {
    centre: gl.getUniformLocation(program, 'centre'),
    scale: gl.getUniformLocation(program, 'scale'),
    style: gl.getUniformLocation(program, 'style'),
    limit: gl.getUniformLocation(program, 'limit'),
    alpha: gl.getUniformLocation(program, 'alpha'),
    grow: gl.getUniformLocation(program, 'grow'),
  };

  const nodeCount = result.nodes.length;
  const aspect = Math.max(1, container.clientWidth) / Math.max(1, container.clientHeight);
  const { index, edges, layout } =
    force === undefined ? layoutResult(result) : { ...indexResult(result), layout: undefined };
  // Wrapped and folded to the view's shape, as the SVG view is (placement.ts), or the force layout
  // snapped to a grid of that shape; y grows upwards here.
  const placed =
    layout === undefined
      ? placeForce(force!, aspect, SPACING.row)
      : placeInView(
          layout,
          { aspect, enough: { px: ENOUGH_APART_PX, height: Math.max(1, container.clientHeight) } },
          SPACING,
        );
  const x = Float32Array.from(placed.x);
  const y = Float32Array.from(placed.y, (value) => -value);
  // World coordinates in [-1, 1] on the longer side.
  let minX = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (let v = 0; v < nodeCount; v++) {
    minX = Math.min(minX, x[v]!);
    maxX = Math.max(maxX, x[v]!);
    minY = Math.min(minY, y[v]!);
    maxY = Math.max(maxY, y[v]!);
  }
  const span = Math.max(maxX - minX, maxY - minY, 1);
  // Centred on the origin, so zooming about the centre of the view zooms into the drawing.
  const midX = (minX + maxX) / 2;
  const midY = (minY + maxY) / 2;
  for (let v = 0; v < nodeCount; v++) {
    x[v] = ((x[v]! - midX) / span) * 2;
    y[v] = ((y[v]! - midY) / span) * 2;
  }
  /** The zoom at Fit: the whole drawing in view, with a little room around it. */
  const fitZoom = (() => {
    const halfX = Math.max((maxX - minX) / span, 1e-3);
    const halfY = Math.max((maxY - minY) / span, 1e-3);
    const zoom =
      aspect >= 1 ? Math.min(aspect / halfX, 1 / halfY) : Math.min(1 / halfX, 1 / (aspect * halfY));
    return 0.96 * zoom;
  })();
  const zoomLimits = [0.5 * fitZoom, 400 * fitZoom] as const;

  // Interleaved vertices: x, y, r, g, b, size.
  const nodeData = new Float32Array(nodeCount * 6);
  const edgeData = new Float32Array(result.dependencies.length * 12);
  /** The dependencies' lines end to end, in world units: how much of the view they cover. */
  let edgeLength = 0;
  /** The drawing's area, in world units (at least a sliver, for a single row or column). */
  const drawingArea = Math.max(((maxX - minX) / span) * 2, 0.05) * Math.max(((maxY - minY) / span) * 2, 0.05);
  for (const [a, b] of edges) edgeLength += Math.hypot(x[b]! - x[a]!, y[b]! - y[a]!);
  let traceData = new Float32Array(0);
  /** A comparison's marks: its cut dependencies as dashes, its down nodes as hatched points. */
  let cutData = new Float32Array(0);
  let hatchData = new Float32Array(0);
  const nodeBuffer = gl.createBuffer();
  const edgeBuffer = gl.createBuffer();
  const traceBuffer = gl.createBuffer();
  const cutBuffer = gl.createBuffer();
  const hatchBuffer = gl.createBuffer();
  let pointSizes = new Float32Array(nodeCount);
  /** Each dependency's arrowhead colour, an index into `ARROW_COLOUR`, for the state drawn. */
  let arrowKind = new Uint8Array(result.dependencies.length);
  /** The blockage, the origin and the selected node: drawn at their size whatever the spacing. */
  let specialPoint = new Uint8Array(nodeCount);
  // Exits and fan-out belong to the structure, not to a state: found once. A mark every node
  // carries is left off, as in the SVG view (marks.ts).
  const marks: Array<{ v: number; kind: Mark }> = [];
  const nodeMarks = marksOf(result.nodes);
  result.nodes.forEach((node, v) => {
    const kind = nodeMarks.of(node);
    if (kind !== undefined) marks.push({ v, kind });
  });
  let marked: Array<{ v: number; text: string; colour: string }> = [];
  /** The state's saturated and unbounded nodes, badged beside them on the overlay. */
  let badges: Array<{ v: number; glyph: string }> = [];
  /** A comparison's changed capacities, tagged beside their nodes on the overlay. */
  let tags: Array<{ v: number; text: string }> = [];

  const camera = { x: 0, y: 0, zoom: fitZoom };
  /** The node the keyboard is on, ringed on the overlay. */
  let focused: number | undefined;
  let moving = false;
  let settleTimer: ReturnType<typeof setTimeout> | undefined;
  let frame: number | undefined;
  /** The last frame drawn, shown moved with the camera while it moves (held-frame.ts). */
  const held = holdFrames(stage, (wx, wy) => project(wx, wy, canvas.clientWidth, canvas.clientHeight));

  /** A cut dependency from node `a` to node `b` as `CUT_DASHES` red segments, every other left out. */
  function dashes(a: number, b: number): number[] {
    const out: number[] = [];
    const step = 1 / (2 * CUT_DASHES - 1);
    for (let i = 0; i < 2 * CUT_DASHES - 1; i += 2) {
      const s = i * step;
      const t = (i + 1) * step;
      out.push(x[a]! + (x[b]! - x[a]!) * s, y[a]! + (y[b]! - y[a]!) * s, ...CUT_EDGE, 1);
      out.push(x[a]! + (x[b]! - x[a]!) * t, y[a]! + (y[b]! - y[a]!) * t, ...CUT_EDGE, 1);
    }
    return out;
  }

  function resize(): void {
    held.forget();
    const ratio = window.devicePixelRatio || 1;
    for (const target of [canvas, labels]) {
      target.width = Math.max(1, Math.round(container.clientWidth * ratio));
      target.height = Math.max(1, Math.round(container.clientHeight * ratio));
    }
  }

  function scale(): [number, number] {
    const aspect = canvas.width / canvas.height;
    return aspect >= 1 ? [camera.zoom / aspect, camera.zoom] : [camera.zoom, camera.zoom * aspect];
  }

  function bind(buffer: WebGLBuffer | null): void {
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.enableVertexAttribArray(attribute.position);
    gl.vertexAttribPointer(attribute.position, 2, gl.FLOAT, false, 24, 0);
    gl.enableVertexAttribArray(attribute.colour);
    gl.vertexAttribPointer(attribute.colour, 3, gl.FLOAT, false, 24, 8);
    gl.enableVertexAttribArray(attribute.size);
    gl.vertexAttribPointer(attribute.size, 1, gl.FLOAT, false, 24, 20);
  }

  function draw(): void {
    frame = undefined;
    // While the camera moves, the last frame moved with it, where it still covers the view.
    if (moving && held.show(camera)) return;
    render();
  }

  function render(): void {
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(1, 1, 1, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.uniform1f(uniform.alpha, 1);
    gl.uniform2f(uniform.centre, camera.x, camera.y);
    gl.uniform2f(uniform.scale, ...scale());
    gl.uniform1f(uniform.limit, pointLimit());
    gl.uniform1f(uniform.grow, pointGrowth());
    gl.uniform1i(uniform.style, 0);
    if (!moving) {
      // Blending only for the faded lines: in software it costs every other draw a read of the frame.
      gl.enable(gl.BLEND);
      gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
      gl.uniform1f(uniform.alpha, edgeAlpha());
      bind(edgeBuffer);
      gl.drawArrays(gl.LINES, 0, edgeData.length / 6);
      gl.uniform1f(uniform.alpha, 1);
      gl.disable(gl.BLEND);
    }
    bind(traceBuffer);
    gl.drawArrays(gl.LINES, 0, traceData.length / 6);
    bind(cutBuffer);
    gl.drawArrays(gl.LINES, 0, cutData.length / 6);
    gl.uniform1i(uniform.style, 1);
    bind(nodeBuffer);
    gl.drawArrays(gl.POINTS, 0, nodeCount);
    gl.uniform1i(uniform.style, 2);
    bind(hatchBuffer);
    gl.drawArrays(gl.POINTS, 0, hatchData.length / 6);
    drawLabels();
    held.drawn(camera);
  }

  /**
   * How opaque the dependencies' lines are: where they would cover the drawing many times over
   * (tens of thousands of them at Fit) each is faint, so the view is a haze the points show
   * through rather than a grey block; where they cover it less than `EDGE_COVER` times (fewer,
   * or zoomed in, where the same lines spread over more pixels), opaque.
   */
  function edgeAlpha(): number {
    // Line pixels per pixel of the drawing (as long as it is drawn, over its own area on screen).
    const pxPerUnit = scale()[0] * (canvas.width / 2);
    const cover = edgeLength / (drawingArea * pxPerUnit);
    return Math.min(1, Math.max(FAINTEST_EDGE, EDGE_COVER / Math.max(cover, 1e-9)));
  }

  /** Neighbouring places in the layout, this many CSS pixels apart on screen. */
  function spacingPx(): number {
    return (2 / span) * placed.closest * scale()[0] * (canvas.clientWidth / 2);
  }

  /** The largest point drawn, in device pixels: a share of the spacing, so points do not touch. */
  function pointLimit(): number {
    const ratio = window.devicePixelRatio || 1;
    return Math.max(SMALLEST_POINT, POINT_SHARE * spacingPx()) * ratio;
  }

  /** Points grow as the camera zooms in past places `ENOUGH_APART_PX` apart, up to `MAX_GROWTH`×. */
  function pointGrowth(): number {
    return Math.min(MAX_GROWTH, Math.max(1, spacingPx() / ENOUGH_APART_PX));
  }

  /** Node `v`'s point as drawn: its diameter in device pixels. */
  function drawnSize(v: number): number {
    return specialPoint[v] ? pointSizes[v]! : Math.min(pointSizes[v]! * pointGrowth(), pointLimit());
  }

  /** Where the world point (`wx`, `wy`) is drawn with the camera, in a view `width` × `height`. */
  function project(wx: number, wy: number, width: number, height: number): [number, number] {
    const [sx, sy] = scale();
    return [(((wx - camera.x) * sx + 1) / 2) * width, ((1 - (wy - camera.y) * sy) / 2) * height];
  }

  /** Node `v`'s centre on the labels' canvas, in device pixels. */
  function toScreen(v: number): [number, number] {
    return project(x[v]!, y[v]!, labels.width, labels.height);
  }

  function drawLabels(): void {
    const context = labels.getContext('2d')!;
    context.clearRect(0, 0, labels.width, labels.height);
    const ratio = window.devicePixelRatio || 1;
    // The marks beside the nodes in view, as the SVG view draws them, once the camera rests and
    // the nodes are far enough apart to tell the marks apart.
    const cellPx = spacingPx();
    if (!moving && marks.length > 0 && cellPx >= MARK_SPACING_PX) {
      const shown: Array<[number, number, 'exit' | 'fanout']> = [];
      for (const { v, kind } of marks) {
        const [sx, sy] = toScreen(v);
        if (sx < 0 || sy < 0 || sx > labels.width || sy > labels.height) continue;
        shown.push([sx, sy, kind]);
        if (shown.length > MAX_MARKS) break;
      }
      if (shown.length <= MAX_MARKS) {
        context.font = `700 ${13 * ratio}px system-ui, sans-serif`;
        for (const [sx, sy, kind] of shown) {
          context.fillStyle = MARK_COLOUR[kind];
          context.fillText(kind === 'fanout' ? '⋔' : '⇥', sx + 5 * ratio, sy - 3 * ratio);
        }
      }
    }
    if (!moving && cellPx >= ARROW_SPACING_PX) drawArrows(context, ratio);
    if (!moving && badges.length > 0 && (badges.length <= FEW_BADGES || cellPx >= MARK_SPACING_PX))
      drawBadges(context, ratio);
    if (!moving && tags.length > 0 && (tags.length <= FEW_BADGES || cellPx >= MARK_SPACING_PX))
      drawTags(context, ratio);
    if (!moving && cellPx >= NAME_SPACING_PX) drawNames(context, ratio);
    if (focused !== undefined) drawFocusRing(context, focused, ratio);
    context.font = `${12 * ratio}px system-ui, sans-serif`;
    // Each name clear of the others and of the points they name (the blockage's and the origin's
    // points are often close: their names were written one over the other).
    const taken: Box[] = marked.map(({ v }) => {
      const [sx, sy] = toScreen(v);
      const half = drawnSize(v) / 2;
      return { left: sx - half, top: sy - half, right: sx + half, bottom: sy + half };
    });
    for (const { v, text, colour } of marked) {
      const [sx, sy] = toScreen(v);
      context.fillStyle = colour;
      const { x, y } = besidePointClear(
        { x: sx, y: sy },
        { width: context.measureText(text).width, height: 12 * ratio },
        labels,
        taken,
        Math.max(8, drawnSize(v) / 2 + 2 * ratio),
      );
      context.fillText(text, x, y);
    }
  }

  /**
   * An arrowhead on each dependency whose target is in view, its tip just outside the target's
   * point and pointing along the line from the source (at most `MAX_ARROWS`), one path a colour.
   */
  function drawArrows(context: CanvasRenderingContext2D, ratio: number): void {
    const length = ARROW_PX * ratio;
    const half = length / 2;
    const paths = ARROW_COLOUR.map(() => new Path2D());
    let drawn = 0;
    for (let e = 0; e < edges.length && drawn < MAX_ARROWS; e++) {
      const [a, b] = edges[e]!;
      if (a === b) continue;
      const [tx, ty] = toScreen(b);
      if (tx < 0 || ty < 0 || tx > labels.width || ty > labels.height) continue;
      const [sx, sy] = toScreen(a);
      const distance = Math.hypot(tx - sx, ty - sy);
      const reach = drawnSize(b) / 2 + ARROW_GAP_PX * ratio;
      // Too short a line for a head beside the target: the line says enough there.
      if (distance < reach + 2 * length) continue;
      const ux = (tx - sx) / distance;
      const uy = (ty - sy) / distance;
      const tipX = tx - ux * reach;
      const tipY = ty - uy * reach;
      const baseX = tipX - ux * length;
      const baseY = tipY - uy * length;
      const path = paths[arrowKind[e]!]!;
      path.moveTo(tipX, tipY);
      path.lineTo(baseX - uy * half, baseY + ux * half);
      path.lineTo(baseX + uy * half, baseY - ux * half);
      path.closePath();
      drawn++;
    }
    // An ordinary dependency's head as faint as its line (not under `ARROW_FLOOR`, so a head
    // still says which way): an opaque head beside a line too faint to see read as drawn alone.
    // The trace's and the saturated ones' heads stay opaque, as their lines are.
    paths.forEach((path, kind) => {
      context.globalAlpha = kind === 0 ? Math.max(ARROW_FLOOR, edgeAlpha()) : 1;
      context.fillStyle = ARROW_COLOUR[kind]!;
      context.fill(path);
    });
    context.globalAlpha = 1;
  }

  /**
   * The names of the nodes in view, right of their points, as the SVG view labels them: each
   * where it meets no name drawn before it (at most `MAX_NAMES`, in the order of the nodes).
   */
  function drawNames(context: CanvasRenderingContext2D, ratio: number): void {
    context.font = `${11 * ratio}px system-ui, sans-serif`;
    context.fillStyle = NAME_COLOUR;
    const cell = 64 * ratio;
    const taken = new Map<number, Array<[number, number, number, number]>>();
    const cells = (box: [number, number, number, number], visit: (k: number) => void) => {
      for (let cx = Math.floor(box[0] / cell); cx <= Math.floor(box[2] / cell); cx++)
        for (let cy = Math.floor(box[1] / cell); cy <= Math.floor(box[3] / cell); cy++)
          visit(cx * 65_537 + cy);
    };
    let drawn = 0;
    for (let v = 0; v < nodeCount && drawn < MAX_NAMES; v++) {
      const [sx, sy] = toScreen(v);
      if (sx < 0 || sy < 0 || sx > labels.width || sy > labels.height) continue;
      const text = shortName(name(result.nodes[v]!.id));
      const left = sx + drawnSize(v) / 2 + 3 * ratio;
      const box: [number, number, number, number] = [
        left,
        sy - 7 * ratio,
        left + context.measureText(text).width,
        sy + 7 * ratio,
      ];
      let free = box[2] <= labels.width;
      cells(box, (k) => {
        free &&= !taken.get(k)?.some((o) => box[0] < o[2] && o[0] < box[2] && box[1] < o[3] && o[1] < box[3]);
      });
      if (!free) continue;
      cells(box, (k) => {
        const list = taken.get(k);
        if (list) list.push(box);
        else taken.set(k, [box]);
      });
      context.fillText(text, left, sy + 4 * ratio);
      drawn++;
    }
  }

  /** The keyboard's focus ring: the page's focus colour, outlined white and dark so it shows on any colour. */
  function drawFocusRing(context: CanvasRenderingContext2D, v: number, ratio: number): void {
    const [sx, sy] = toScreen(v);
    const radius = Math.max(pointSizes[v] ?? 0, 8 * ratio) / 2 + 5 * ratio;
    for (const [colour, width] of [
      ['#1d1f23', 6],
      ['#f59e0b', 3],
    ] as const) {
      context.beginPath();
      context.arc(sx, sy, radius, 0, 2 * Math.PI);
      context.strokeStyle = colour;
      context.lineWidth = width * ratio;
      context.stroke();
    }
  }

  /** The badges of the nodes in view, at their upper left (at most `MAX_MARKS`, as the marks). */
  function drawBadges(context: CanvasRenderingContext2D, ratio: number): void {
    context.font = `700 ${13 * ratio}px system-ui, sans-serif`;
    context.fillStyle = BADGE_COLOUR;
    let drawn = 0;
    for (const { v, glyph } of badges) {
      const [sx, sy] = toScreen(v);
      if (sx < 0 || sy < 0 || sx > labels.width || sy > labels.height) continue;
      if (drawn++ >= MAX_MARKS) break;
      context.fillText(glyph, sx - 14 * ratio, sy - 3 * ratio);
    }
  }

  /** The capacity tags of the nodes in view, at their lower right, as the SVG view's. */
  function drawTags(context: CanvasRenderingContext2D, ratio: number): void {
    context.font = `700 ${10 * ratio}px system-ui, sans-serif`;
    let drawn = 0;
    for (const { v, text } of tags) {
      const [sx, sy] = toScreen(v);
      if (sx < 0 || sy < 0 || sx > labels.width || sy > labels.height) continue;
      if (drawn++ >= MAX_MARKS) break;
      const width = context.measureText(text).width + 6 * ratio;
      context.fillStyle = TAG_COLOUR;
      context.fillRect(sx + 4 * ratio, sy + 2 * ratio, width, 13 * ratio);
      context.fillStyle = '#fff';
      context.fillText(text, sx + 7 * ratio, sy + 12 * ratio);
    }
  }

  function schedule(): void {
    if (frame === undefined) frame = requestAnimationFrame(draw);
  }

  function moved(): void {
    moving = true;
    schedule();
    if (settleTimer !== undefined) clearTimeout(settleTimer);
    settleTimer = setTimeout(() => {
      moving = false;
      schedule();
    }, SETTLE_MS);
  }

  /** The view on the page: the container's box, which a held frame's transform does not move. */
  const viewBox = () => container.getBoundingClientRect();

  function toWorld(clientX: number, clientY: number): [number, number] {
    const box = viewBox();
    const [sx, sy] = scale();
    const cx = ((clientX - box.left) / box.width) * 2 - 1;
    const cy = 1 - ((clientY - box.top) / box.height) * 2;
    return [cx / sx + camera.x, cy / sy + camera.y];
  }

  /** Zooms by `factor` keeping the point of the page at (`clientX`, `clientY`) still. */
  function zoomAbout(clientX: number, clientY: number, factor: number): void {
    const [wx, wy] = toWorld(clientX, clientY);
    camera.zoom = Math.min(zoomLimits[1], Math.max(zoomLimits[0], camera.zoom * factor));
    const [nx, ny] = toWorld(clientX, clientY);
    camera.x += wx - nx;
    camera.y += wy - ny;
  }

  /** The node nearest a point of the page, if the point is within its drawn radius. */
  function nodeAt(clientX: number, clientY: number): number | undefined {
    const [wx, wy] = toWorld(clientX, clientY);
    const [sx] = scale();
    const ratio = window.devicePixelRatio || 1;
    let best = -1;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (let v = 0; v < nodeCount; v++) {
      const distance = Math.hypot(x[v]! - wx, y[v]! - wy);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = v;
      }
    }
    // Within the point's radius, in world units.
    const reach = ((Math.max(pointSizes[best] ?? 0, 8) / ratio / canvas.clientWidth) * 2) / sx;
    return best >= 0 && bestDistance <= reach ? best : undefined;
  }

  let drag: { x: number; y: number; startX: number; startY: number } | undefined;
  // On a touch screen the view takes fingers only while it holds the focus (a tap gives it):
  // until then a finger scrolls the page (touch-action in explorer.css). Two fingers pinch.
  const active = () => container.contains(document.activeElement);
  const pinch = trackPinch(
    container,
    active,
    ({ factor, x: px, y: py, dx, dy }) => {
      const [ax, ay] = toWorld(px - dx, py - dy);
      const [bx, by] = toWorld(px, py);
      camera.x -= bx - ax;
      camera.y -= by - ay;
      zoomAbout(px, py, factor);
      moved();
    },
    signal,
  );
  const onDown = (event: PointerEvent) => {
    if (event.pointerType === 'touch' && !active()) return;
    drag = { x: event.clientX, y: event.clientY, startX: event.clientX, startY: event.clientY };
    container.setPointerCapture(event.pointerId);
  };
  const onMove = (event: PointerEvent) => {
    if (!drag) return;
    if (pinch.pinching()) {
      drag = undefined;
      return;
    }
    const [ax, ay] = toWorld(drag.x, drag.y);
    const [bx, by] = toWorld(event.clientX, event.clientY);
    camera.x -= bx - ax;
    camera.y -= by - ay;
    drag.x = event.clientX;
    drag.y = event.clientY;
    moved();
  };
  const onUp = (event: PointerEvent) => {
    const clicked =
      drag && Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) < TAP_SLOP_PX;
    drag = undefined;
    if (!clicked) return;
    const v = nodeAt(event.clientX, event.clientY);
    if (v !== undefined) onSelect(result.nodes[v]!.id);
  };
  const onWheel = (event: WheelEvent) => {
    event.preventDefault();
    zoomAbout(event.clientX, event.clientY, Math.exp(-event.deltaY * 0.0015));
    moved();
  };
  container.addEventListener('pointerdown', onDown, { signal });
  container.addEventListener('pointermove', onMove, { signal });
  container.addEventListener('pointerup', onUp, { signal });
  container.addEventListener('wheel', onWheel, { passive: false, signal });
  const observer = new ResizeObserver(() => {
    resize();
    schedule();
  });
  observer.observe(container);
  resize();

  const view: LargeGraphView = {
    layout,
    update(state, selected, colouring) {
      const sizing = nodeSizing(state.nodes);
      const blockage = state.primaryBlockage === null ? -1 : index.get(state.primaryBlockage)!;
      const origin = state.origin === null ? -1 : index.get(state.origin.id)!;
      const chosen = selected === undefined ? -1 : (index.get(selected) ?? -1);
      const ratio = window.devicePixelRatio || 1;
      pointSizes = new Float32Array(nodeCount);
      specialPoint = new Uint8Array(nodeCount);
      const { marks, palette } = colouring;
      state.nodes.forEach((node, v) => {
        const colour =
          v === blockage ? TRACE : v === origin ? ORIGIN : colourOf(colouring.fraction(node), palette);
        const special = v === blockage || v === origin || v === chosen;
        const size = (special ? 14 : 3 + sizing.fraction(node) * 6) * ratio;
        pointSizes[v] = size;
        specialPoint[v] = special ? 1 : 0;
        nodeData.set([x[v]!, y[v]!, colour[0], colour[1], colour[2], special ? -size : size], v * 6);
      });
      const onTrace = new Set<string>();
      for (let i = 0; i + 1 < state.trace.length; i++)
        onTrace.add(`${state.trace[i]}\u0000${state.trace[i + 1]}`);
      const trace: number[] = [];
      const widths = edgeWidths(state);
      const shaded = widths.measure === 'throughput';
      const isCut = cutBy(marks);
      const cut: number[] = [];
      const arrows = new Uint8Array(state.dependencies.length);
      state.dependencies.forEach((d, e) => {
        const [a, b] = edges[e]!;
        const cutHere = isCut(d);
        const colour = cutHere
          ? BACKGROUND
          : !shaded
            ? EDGE
            : widths.unbounded(d)
              ? UNBOUNDED_EDGE
              : edgeShade(widths.share(d));
        edgeData.set([x[a]!, y[a]!, ...colour, 1, x[b]!, y[b]!, ...colour, 1], e * 12);
        if (cutHere) cut.push(...dashes(a, b));
        const traced = onTrace.has(`${d.from}\u0000${d.to}`);
        if (traced) trace.push(x[a]!, y[a]!, ...TRACE, 1, x[b]!, y[b]!, ...TRACE, 1);
        arrows[e] = cutHere
          ? ARROW_CUT
          : traced
            ? ARROW_TRACE
            : shaded && widths.unbounded(d)
              ? ARROW_UNBOUNDED
              : ARROW_PLAIN;
      });
      traceData = new Float32Array(trace);
      cutData = new Float32Array(cut);
      arrowKind = arrows;
      const hatched: number[] = [];
      for (const id of marks?.down ?? []) {
        const v = index.get(id);
        if (v !== undefined) hatched.push(x[v]!, y[v]!, ...HATCH, pointSizes[v]!);
      }
      hatchData = new Float32Array(hatched);
      tags = [];
      for (const [id, change] of marks?.capacity ?? new Map<string, CapacityChange>()) {
        const v = index.get(id);
        if (v !== undefined) tags.push({ v, text: capacityTag(change) });
      }
      // The blockage and the origin drawn last, so no other point hides them.
      for (const v of [origin, blockage]) {
        if (v < 0) continue;
        const last = nodeCount - 1;
        const a = nodeData.slice(v * 6, v * 6 + 6);
        nodeData.copyWithin(v * 6, last * 6, last * 6 + 6);
        nodeData.set(a, last * 6);
      }
      badges = [];
      for (const [id, saturation] of saturationByNode(state)) {
        const v = index.get(id);
        if (v !== undefined) badges.push({ v, glyph: BADGE_GLYPH[saturation.kind] });
      }
      marked = [];
      if (blockage >= 0)
        marked.push({
          v: blockage,
          text: `${name(state.primaryBlockage!)} (primary blockage)`,
          colour: '#b34700',
        });
      if (origin >= 0 && origin !== blockage)
        marked.push({ v: origin, text: `${name(state.origin!.id)} (origin)`, colour: '#137a5c' });
      if (chosen >= 0 && chosen !== blockage && chosen !== origin)
        marked.push({ v: chosen, text: name(selected!), colour: '#222' });
      // What the summary names first on a service graph, named at Fit too, where no other name
      // fits: the node traffic saturates first, and the entry that misses its SLO first.
      const named = new Set(marked.map((mark) => mark.v));
      for (const [id, words] of [
        [state.headroom?.node, 'saturates first'],
        [state.latencyHeadroom?.node, 'misses its SLO first'],
      ] as const) {
        const v = id === undefined ? -1 : (index.get(id) ?? -1);
        if (v < 0 || named.has(v)) continue;
        named.add(v);
        marked.push({ v, text: `${name(id!)} (${words})`, colour: '#222' });
      }
      // The names drawn at every zoom, for what reads the page without seeing the canvas.
      stage.dataset.named = marked.map((mark) => mark.text).join('\n');
      gl.bindBuffer(gl.ARRAY_BUFFER, nodeBuffer);
      gl.bufferData(gl.ARRAY_BUFFER, nodeData, gl.DYNAMIC_DRAW);
      gl.bindBuffer(gl.ARRAY_BUFFER, edgeBuffer);
      gl.bufferData(gl.ARRAY_BUFFER, edgeData, gl.DYNAMIC_DRAW);
      gl.bindBuffer(gl.ARRAY_BUFFER, traceBuffer);
      gl.bufferData(gl.ARRAY_BUFFER, traceData, gl.DYNAMIC_DRAW);
      gl.bindBuffer(gl.ARRAY_BUFFER, cutBuffer);
      gl.bufferData(gl.ARRAY_BUFFER, cutData, gl.DYNAMIC_DRAW);
      gl.bindBuffer(gl.ARRAY_BUFFER, hatchBuffer);
      gl.bufferData(gl.ARRAY_BUFFER, hatchData, gl.DYNAMIC_DRAW);
      render();
    },
    zoomBy(factor) {
      camera.zoom = Math.min(zoomLimits[1], Math.max(zoomLimits[0], camera.zoom * factor));
      moved();
    },
    panBy(dx, dy) {
      const [sx, sy] = scale();
      camera.x += (dx / Math.max(1, canvas.clientWidth)) * (2 / sx);
      camera.y -= (dy / Math.max(1, canvas.clientHeight)) * (2 / sy);
      moved();
    },
    fit() {
      camera.x = 0;
      camera.y = 0;
      camera.zoom = fitZoom;
      moved();
    },
    nodeAt,
    clientPoint(v) {
      const box = viewBox();
      const ratio = window.devicePixelRatio || 1;
      const [sx, sy] = toScreen(v);
      return [box.left + sx / ratio, box.top + sy / ratio];
    },
    position(v) {
      return [x[v]!, -y[v]!];
    },
    setFocus(v) {
      focused = v;
      // The ring is on the held frame's overlay: a frame is drawn with it where it now is.
      held.forget();
      if (v !== undefined) {
        const [sx, sy] = toScreen(v);
        // Brought into view when the camera has left it out.
        if (sx < 0 || sy < 0 || sx > labels.width || sy > labels.height) {
          camera.x = x[v]!;
          camera.y = y[v]!;
          moved();
          return;
        }
      }
      // Only the ring moved: everything is drawn again at once, dependencies too.
      schedule();
    },
    discs() {
      const box = viewBox();
      const ratio = window.devicePixelRatio || 1;
      return Array.from({ length: nodeCount }, (_, v): [number, number, number] => {
        const [sx, sy] = toScreen(v);
        return [box.left + sx / ratio, box.top + sy / ratio, drawnSize(v) / 2 / ratio];
      });
    },
    async measureFrames(frames) {
      const times: number[] = [];
      let last = performance.now();
      for (let i = 0; i < frames; i++) {
        camera.zoom = fitZoom * (1 + (i % 20) / 10);
        camera.x = 0.1 * Math.sin(i / 5);
        moved();
        await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      camera.zoom = fitZoom;
      camera.x = 0;
      camera.y = 0;
      moved();
      return times;
    },
    kill() {
      listening.abort();
      observer.disconnect();
      if (settleTimer !== undefined) clearTimeout(settleTimer);
      if (frame !== undefined) cancelAnimationFrame(frame);
      container.replaceChildren();
    },
  };
  view.update(result, undefined, colouring);
  return view;
}
