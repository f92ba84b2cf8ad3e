import type { EngineResult, NodeState } from '../../lib/engine/types';
import type { Colouring } from './colour-by';
import { type ForcePositions, placeForce } from './force-placement';
import { dependencyHoverText, nodeHoverText } from './hover-text';
import { latencyLimitText } from './latency';
import { indexResult, type Layout, layoutResult } from './layout';
import { marksOf } from './marks';
import { nodeSizing } from './node-size';
import { durationText, shortNumber } from './numbers';
import { paletteColour } from './palette';
import { placeInView, type Spacing } from './placement';
import { capacityChangeText, capacityTag, cutBy } from './scenario-marks';
import { capacityBadge, downHatch, hatchPattern } from './scenario-marks-svg';
import { shortName } from './short-name';
import { edgeWidths, type Saturation, saturationByNode, saturationText } from './steady';
import { svgElement } from './svg';

/** A node without a value on the colour scale (no capacity, when colouring by utilization). */
const NO_MEASURE_FILL = '#b8b8b8';

/**
 * Largest structure drawn as SVG; above it, the WebGL view. Panning 871 services in SVG took
 * 107–202 ms a frame (a median; every node, curve and arrowhead is rasterised again), the
 * WebGL view under 33 ms (docs/explorer.md, Benchmark).
 */
export const MAX_DRAWN_NODES = 800;

/**
 * Rows 56 apart (the largest node is 44 across), a layer's columns 64, layers 150 (room for the
 * arcs and arrowheads between them), bands two rows apart.
 */
const SPACING: Spacing = { row: 56, column: 64, layer: 150, band: 112 };
/**
 * At Fit, nodes this far apart on screen are far enough (two of the smallest, 3.5 px in radius,
 * with 2 px between): tall layers are wrapped into columns only until they are, since labels read
 * best beside tall columns with a layer's gap to the right.
 */
const ENOUGH_APART_PX = 9;
/** The glyph on a node's badge, per way the steady state overloads it. */
const SATURATION_GLYPH: Record<Saturation['kind'], string> = { over: '!', lost: '✕', unbounded: '∞' };
/** The badge's radius, in the drawing's units (as the exit and fan-out marks, it scales with zoom). */
const BADGE_RADIUS = 7;

/** Room between a group's box and its members, in the drawing's units. */
const GROUP_PADDING = 10;
/** An arrowhead's length (and width), in the drawing's units. */
const ARROW_LENGTH = 9;
/** Room between an arrowhead's tip and the node (or its outermost ring), in the drawing's units. */
const ARROW_GAP = 2;

export interface GraphViewOptions {
  selected: string | undefined;
  colouring: Colouring;
  /** The name to show for a node id (its readable name, else the id). */
  name: (id: string) => string;
  /**
   * Width over height of the view it is drawn for: tall layers wrapped into columns, many layers
   * folded into bands and layers spread apart until the drawing is about that shape, so at Fit
   * nodes are as far apart as they can be (placement.ts).
   */
  aspect: number;
  /** The view's height in pixels: nodes are wrapped no more than it takes to be `ENOUGH_APART_PX` apart at Fit. */
  viewHeight: number;
  onSelect: (id: string) => void;
  /**
   * The run gave no result: `result` is a bare structure's (see bare-structure.ts), whose numbers
   * mean nothing, so the hover and spoken texts give names alone.
   */
  withoutResult?: boolean;
  /**
   * Positions of a force layout (force-worker.ts) to draw instead of the layers, snapped to a grid
   * of the view's shape (force-placement.ts); dependencies are then straight.
   */
  force?: ForcePositions;
  /**
   * Groups to box (groups.ts): each node's group, an index into `names`, or -1. Their members
   * are kept together in each layer and drawn over a box named for the group.
   */
  groups?: { of: Int32Array; names: readonly string[] };
}

/** A node's label, placed by the camera (svg-camera.ts): shown where it collides with none. */
export interface NodeLabel {
  element: SVGTextElement;
  /** The node's circles (body and rings) and how far each is outside the body. */
  circles: Array<[SVGCircleElement, number]>;
  /** The node's centre and radius, in the drawing's units. */
  x: number;
  y: number;
  radius: number;
}

/** A dependency's label (its steady throughput), placed by the camera at the middle of its curve. */
export interface EdgeLabel {
  element: SVGTextElement;
  x: number;
  y: number;
}

/** What the camera needs of a drawing. */
export interface GraphDrawing {
  /** The drawn nodes, dependencies and marks, labels left out (they keep their size on screen). */
  bounds: { x: number; y: number; width: number; height: number };
  labels: NodeLabel[];
  /**
   * Indices into `labels`, the most important first: selected, blockage, origin, trace, blocked,
   * then by pressure and load.
   */
  order: number[];
  /** Dependencies' labels, the busiest first: placed after the nodes', where they collide with none. */
  edgeLabels: EdgeLabel[];
  /** The layering drawn; none for a force layout (for the rule of cycles.ts). */
  layout: Layout | undefined;
  /**
   * Draws `state`, another state of the structure drawn (a timeline's tick, with the same
   * options), into the same elements: colours, sizes, rings, widths, the trace, badges and
   * texts, and this drawing's labels, order and bounds for the camera.
   */
  update(state: EngineResult, colouring: Colouring): void;
  /**
   * The hover text of a drawn node or dependency (its `<desc>`) for the state drawn last: a
   * dependency's, written a frame late after a timeline's step, is written at once when asked.
   */
  hoverText(element: Element): string;
}

/**
 * Draws one described state: nodes coloured as `colouring` says (by default pressure on viridis,
 * or utilization for an open structure's `analyze`; a comparison's change on the diverging
 * scale, its down nodes hatched, changed capacities tagged, cut dependencies dashed red), exits and fan-out
 * marked beside the node (unless every node carries the mark: marks.ts), sized by load (throughput where no node holds any: node-size.ts), the
 * primary blockage and the origin ringed, the trace drawn thick, each dependency as wide as its
 * share of the largest flow (of the largest steady throughput, with a steady state: see
 * `edgeWidths`, and then labelled with it), its arrowhead at the target's edge, nodes the steady
 * state saturates outlined and badged. Hover shows a node's or a dependency's numbers, the
 * source's own among them (hover-text.ts, a `<desc>` the shared tooltip shows); nodes are the
 * options of a listbox, for the keyboard and screen readers (svg-node-keys.ts).
 */
export function drawGraph(svg: SVGSVGElement, result: EngineResult, options: GraphViewOptions): GraphDrawing {
  svg.replaceChildren();
  const { force } = options;
  const { edges, layout } =
    force === undefined
      ? layoutResult(result, options.groups?.of)
      : { ...indexResult(result), layout: undefined };
  // Wrapped and folded to the view's shape (placement.ts), as the WebGL view is; or the force
  // layout snapped to a grid of that shape, a row's spacing apart.
  const placed =
    layout === undefined
      ? placeForce(force!, options.aspect, SPACING.row)
      : placeInView(
          layout,
          { aspect: options.aspect, enough: { px: ENOUGH_APART_PX, height: options.viewHeight } },
          SPACING,
        );
  const x = (i: number) => placed.x[i]!;
  const y = (i: number) => placed.y[i]!;

  const scene = svgElement('g', { class: 'scene' });
  const { marks: scenario } = options.colouring;
  const isCut = cutBy(scenario);
  const defs = svgElement('defs', {});
  if (scenario !== undefined && scenario.down.size > 0) defs.append(hatchPattern());
  svg.append(
    defs,
    (() => {
      const marker = svgElement('marker', {
        id: 'arrow',
        viewBox: '0 0 10 10',
        // The head's base at the path's end and its tip ARROW_LENGTH on (see `edgeCurve`).
        refX: 0,
        refY: 5,
        markerWidth: ARROW_LENGTH,
        markerHeight: ARROW_LENGTH,
        markerUnits: 'userSpaceOnUse',
        orient: 'auto-start-reverse',
      });
      marker.append(svgElement('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }));
      return marker;
    })(),
    scene,
  );

  // What belongs to the structure is made once: a path per dependency and a group per node, with
  // their marks, labels and descriptions; what belongs to a state is written into them by
  // `paint`, again for each state of the same structure (a timeline's ticks), so scrubbing
  // rewrites attributes rather than building some thousands of elements anew.
  const boxLayer = svgElement('g', { class: 'group-boxes' });
  const edgeLayer = svgElement('g', { class: 'edges' });
  const edgeLabelLayer = svgElement('g', { class: 'edge-labels' });
  const nodeLayer = svgElement('g', { class: 'nodes' });
  if (options.groups !== undefined) scene.append(boxLayer);
  scene.append(edgeLayer, nodeLayer);

  const edgePaths = result.dependencies.map((d) => {
    const line = svgElement('path', { 'marker-end': 'url(#arrow)', 'data-from': d.from, 'data-to': d.to });
    // The hover text, shown by the shared tooltip (graph-tooltip.ts); a <desc>, not a <title>, so
    // the browser adds no tooltip of its own.
    const desc = svgElement('desc', {});
    line.append(desc);
    edgeLayer.append(line);
    return { line, desc };
  });

  const marks = marksOf(result.nodes);
  const nodeParts = result.nodes.map((node, i) => {
    const down = scenario?.down.has(node.id) === true;
    const capacityChange = scenario?.capacity.get(node.id);
    // A collapsed group (groups.ts): Enter or a click expands it.
    const groupName = typeof node.group === 'string' ? node.group : undefined;
    const group = svgElement('g', {
      class: groupName === undefined ? 'node' : 'node collapsed-group',
      transform: `translate(${x(i)} ${y(i)})`,
      // Options of the listbox the graph is (svg-node-keys.ts moves the one tab stop among them).
      tabindex: -1,
      role: 'option',
      'aria-selected': String(node.id === options.selected),
      'data-id': node.id,
      ...(groupName === undefined ? {} : { 'data-group': groupName }),
    });
    const groupRing =
      groupName === undefined ? undefined : svgElement('circle', { r: 0, class: 'ring group' });
    if (groupRing !== undefined) group.append(groupRing);
    const body = svgElement('circle', { r: 0 });
    group.append(body);
    // A comparison's marks: a node the scenario takes down hatched, a changed capacity tagged.
    let hatch: SVGCircleElement | undefined;
    if (down) {
      group.dataset.down = 'true';
      hatch = downHatch(0);
      group.append(hatch);
    }
    // Where value leaves the system (an exit) or multiplies (fan-out): a glyph at the node's side.
    // A mark every node carries is left off (see marks.ts).
    const mark = marks.of(node);
    let glyph: SVGTextElement | undefined;
    if (mark !== undefined) {
      group.dataset.mark = mark;
      glyph = svgElement('text', { class: `mark ${mark}` });
      glyph.textContent = mark === 'fanout' ? '⋔' : '⇥';
      group.append(glyph);
    }
    let tag: SVGGElement | undefined;
    if (capacityChange !== undefined) {
      group.dataset.capacityChange = capacityTag(capacityChange);
      tag = capacityBadge(capacityChange, 0);
      group.append(tag);
    }
    // Hidden until the camera places it (it measures the drawing without labels first).
    const label = svgElement('text', { 'text-anchor': 'middle', class: 'label', display: 'none' });
    label.textContent = shortName(options.name(node.id));
    // Its numbers, as the shared tooltip shows them and as the option's description.
    const desc = svgElement('desc', {});
    group.append(label, desc);
    group.addEventListener('click', () => options.onSelect(node.id));
    nodeLayer.append(group);
    return {
      group,
      groupRing,
      body,
      hatch,
      glyph,
      tag,
      label,
      desc,
      down,
      capacityChange,
      groupWords:
        groupName === undefined ? '' : `, a group of ${node.members} nodes, collapsed (Enter expands it)`,
      /** The state's rings (blockage, origin, selected) and saturation badge, replaced by each paint. */
      rings: [] as SVGCircleElement[],
      badge: undefined as SVGGElement | undefined,
      saturation: undefined as Saturation['kind'] | undefined,
    };
  });

  /** Whether a state was painted already: the camera has sized its circles and placed its labels since. */
  let drawn = false;
  /** The bounds measured at the first paint. */
  let measured: GraphDrawing['bounds'] | undefined;
  /** Texts to write once the frame of a later state is drawn, and the write waiting for it. */
  let later = new Map<Element, () => string>();
  let writing: number | undefined;
  function writeLater(): void {
    if (writing !== undefined) return;
    writing = requestAnimationFrame(() =>
      setTimeout(() => {
        writing = undefined;
        const texts = later;
        later = new Map();
        for (const [element, text] of texts) setText(element, text());
      }),
    );
  }
  /** A node's or a dependency's hover text as of the state drawn last: one still waiting is written now. */
  function hoverText(element: Element): string {
    const desc = element.querySelector(':scope > desc');
    if (desc === null) return '';
    const waiting = later.get(desc);
    if (waiting !== undefined) {
      later.delete(desc);
      setText(desc, waiting());
    }
    return desc.textContent ?? '';
  }

  function paint(state: EngineResult, colouring: Colouring): void {
    const { palette } = colouring;
    const labels: NodeLabel[] = [];
    const onTrace = new Set(state.trace);
    const blocked = new Set(state.nodes.filter((node) => node.blocked).map((node) => node.id));
    const widths = edgeWidths(state);
    const saturation = saturationByNode(state);
    const traceEdges = new Set<string>();
    for (let i = 0; i + 1 < state.trace.length; i++)
      traceEdges.add(`${state.trace[i]}\u0000${state.trace[i + 1]}`);

    // Each node's radius, and how far out from its centre an arrowhead's tip stays: past its
    // outermost ring, so the head sits at the node's edge rather than under it.
    const sizing = nodeSizing(state.nodes);
    const radii = state.nodes.map((node) => 9 + sizing.fraction(node) * 13);
    const reach = state.nodes.map(
      (node, i) =>
        radii[i]! +
        (node.id === options.selected
          ? 10
          : node.id === state.primaryBlockage
            ? 7
            : node.id === state.origin?.id
              ? 4
              : 0) +
        ARROW_GAP,
    );
    const labelled = widths.measure === 'throughput' && !options.withoutResult;
    const edgeLabels: Array<EdgeLabel & { throughput: number }> = [];
    const edgeLabelElements: SVGTextElement[] = [];
    later = new Map();
    state.dependencies.forEach((d, e) => {
      const [from, to] = edges[e]!;
      const onTrace = traceEdges.has(`${d.from}\u0000${d.to}`);
      const widthPx = widths.width(d);
      const unbounded = widths.unbounded(d);
      const x1 = x(from);
      const y1 = y(from);
      const x2 = x(to);
      const y2 = y(to);
      // In the force layout every dependency is straight (control points a third of the way along).
      const span = layout === undefined ? 1 : layout.layer[to]! - layout.layer[from]!;
      const back = span <= 0;
      // Edges that skip layers arc above the row so they do not hide the edges they pass.
      const lift = span > 1 ? 30 + 12 * span : 0;
      const r = radii[from]!;
      const [c1, c2]: [Point, Point] =
        from === to
          ? [
              [x1 - r - 12, y1 - r - 36],
              [x1 + r + 12, y1 - r - 36],
            ]
          : layout === undefined
            ? [
                [x1 + (x2 - x1) / 3, y1 + (y2 - y1) / 3],
                [x1 + (2 * (x2 - x1)) / 3, y1 + (2 * (y2 - y1)) / 3],
              ]
            : back
              ? [
                  [x1 + 60, y1 + 70],
                  [x2 - 60, y2 + 70],
                ]
              : [
                  [(x1 + x2) / 2, y1 - lift],
                  [(x1 + x2) / 2, y2 - lift],
                ];
      const curve = edgeCurve([x1, y1], c1, c2, [x2, y2], from === to ? r : 0, reach[to]!);
      const cut = isCut(d);
      const { line, desc } = edgePaths[e]!;
      setAttributes(line, {
        d: curve.d,
        class: cut
          ? 'edge cut'
          : `${onTrace ? 'edge trace' : back ? 'edge back' : 'edge'}${unbounded ? ' unbounded' : ''}`,
        'stroke-width': String(onTrace ? Math.max(widthPx, 4) : widthPx),
      });
      const hover = () =>
        dependencyHoverText(d, options.name, {
          withoutResult: options.withoutResult === true,
          cut,
          measure: widths.measure,
        });
      // At a later state (a timeline's step) the dependencies' hover texts, which only the
      // pointer shows, are written after the frame is drawn (see `writeLater`).
      if (measured === undefined) setText(desc, hover());
      else later.set(desc, hover);
      // In a steady state each dependency is labelled with its throughput, placed by the camera
      // where it collides with no node and no label.
      if (labelled && !cut && d.throughput !== undefined) {
        const label = svgElement('text', {
          class: 'edge-label',
          'text-anchor': 'middle',
          display: 'none',
          'data-from': d.from,
          'data-to': d.to,
        });
        label.textContent = shortNumber(d.throughput);
        edgeLabelElements.push(label);
        edgeLabels.push({ element: label, x: curve.mid[0], y: curve.mid[1], throughput: d.throughput });
      }
    });
    if (later.size > 0) writeLater();
    edgeLabelLayer.replaceChildren(...edgeLabelElements);
    // Boxes behind everything: each group's members' extent, with room around, named at its top.
    if (options.groups !== undefined) paintBoxes(boxLayer, options.groups, state.nodes.length, x, y, reach);
    edgeLabels.sort((a, b) => b.throughput - a.throughput);

    state.nodes.forEach((node, i) => {
      const part = nodeParts[i]!;
      const saturated = saturation.get(node.id);
      const { down, capacityChange } = part;
      const scenarioWords = `${down ? ', down in the scenario' : ''}${capacityChange === undefined ? '' : `, ${capacityChangeText(capacityChange)}`}`;
      part.group.setAttribute(
        'aria-label',
        options.withoutResult
          ? `${options.name(node.id)}: no result`
          : `${options.name(node.id)}${part.groupWords}: load ${shortNumber(node.load)}, pressure ${shortNumber(node.pressure)}, ${node.role}${node.id === state.primaryBlockage ? ', primary blockage' : ''}${node.utilization === undefined ? '' : `, utilization ${shortNumber(node.utilization)}`}${saturated === undefined ? '' : `, ${saturationText(saturated)}`}${node.responseTime === undefined ? '' : `, response time ${durationText(node.responseTime)}`}${entryWords(node, options.name)}${scenarioWords}`,
      );
      const radius = radii[i]!;
      // Each circle's radius beyond the body's: the camera sizes them all for its zoom (a circle
      // made here gets its radius now; the others keep the camera's until it lays them out).
      const circles: Array<[SVGCircleElement, number]> = [];
      if (part.groupRing !== undefined) {
        if (!drawn) part.groupRing.setAttribute('r', String(radius + 5));
        circles.push([part.groupRing, 5]);
      }
      // The state's rings, between the group's ring and the body.
      for (const ring of part.rings) ring.remove();
      part.rings = [];
      for (const [kind, beyond, has] of [
        ['blockage', 7, node.id === state.primaryBlockage],
        ['origin', 4, node.id === state.origin?.id],
        ['selected', 10, node.id === options.selected],
      ] as const) {
        if (!has) continue;
        const ring = svgElement('circle', { r: radius + beyond, class: `ring ${kind}` });
        part.rings.push(ring);
        circles.push([ring, beyond]);
      }
      if (part.rings.length > 0) part.body.before(...part.rings);
      const fraction = colouring.fraction(node);
      setAttributes(part.body, {
        fill: fraction === undefined ? NO_MEASURE_FILL : paletteColour(fraction, palette),
        class: `body${node.capacity === undefined ? '' : ' throttled'}${saturated === undefined ? '' : ' saturated'}`,
      });
      if (!drawn) part.body.setAttribute('r', String(radius));
      circles.push([part.body, 0]);
      if (part.hatch !== undefined) {
        if (!drawn) part.hatch.setAttribute('r', String(radius));
        circles.push([part.hatch, 0]);
      }
      if (part.glyph !== undefined)
        setAttributes(part.glyph, { x: String(radius + 3), y: String(-radius + 4) });
      if (saturated?.kind !== part.saturation || part.badge !== undefined) {
        part.badge?.remove();
        part.badge = undefined;
        part.saturation = saturated?.kind;
        if (saturated === undefined) delete part.group.dataset.saturation;
        else {
          part.group.dataset.saturation = saturated.kind;
          part.badge = saturationBadge(saturated, radius);
          (part.tag ?? part.label).before(part.badge);
        }
      }
      if (part.tag !== undefined) {
        const at = radius * Math.SQRT1_2;
        part.tag.setAttribute('transform', `translate(${at} ${at})`);
      }
      if (!drawn) part.label.setAttribute('y', String(radius + 14));
      setText(
        part.desc,
        nodeHoverText(node, {
          name: options.name,
          saturated,
          down,
          capacityChange,
          withoutResult: options.withoutResult === true,
        }),
      );
      labels.push({ element: part.label, circles, x: x(i), y: y(i), radius });
    });

    // Measured without the edge labels (hidden until placed; the camera keeps their size on
    // screen) once, when first drawn; a later state of the same structure moves no node, only
    // resizes them, so its bounds are those widened to its nodes' reach (no layout forced).
    let bounds: GraphDrawing['bounds'];
    drawn = true;
    if (measured === undefined) {
      edgeLabelLayer.remove();
      const box = scene.getBBox();
      measured = { x: box.x, y: box.y, width: box.width, height: box.height };
      bounds = measured;
    } else {
      let [left, top, right, bottom] = [
        measured.x,
        measured.y,
        measured.x + measured.width,
        measured.y + measured.height,
      ];
      state.nodes.forEach((_, i) => {
        left = Math.min(left, x(i) - reach[i]!);
        top = Math.min(top, y(i) - reach[i]!);
        right = Math.max(right, x(i) + reach[i]!);
        bottom = Math.max(bottom, y(i) + reach[i]!);
      });
      bounds = { x: left, y: top, width: right - left, height: bottom - top };
    }
    if (edgeLabelLayer.parentNode !== scene) scene.append(edgeLabelLayer);
    const rank = (id: string) =>
      id === options.selected
        ? 0
        : id === state.primaryBlockage
          ? 1
          : id === state.origin?.id
            ? 2
            : onTrace.has(id)
              ? 3
              : blocked.has(id)
                ? 4
                : 5;
    const order = state.nodes
      .map((_, i) => i)
      .sort(
        (a, b) =>
          rank(state.nodes[a]!.id) - rank(state.nodes[b]!.id) ||
          state.nodes[b]!.pressure - state.nodes[a]!.pressure ||
          state.nodes[b]!.load - state.nodes[a]!.load ||
          a - b,
      );
    drawing.bounds = bounds;
    drawing.labels = labels;
    drawing.order = order;
    drawing.edgeLabels = edgeLabels.map(({ element, x, y }) => ({ element, x, y }));
  }

  const drawing: GraphDrawing = {
    bounds: { x: 0, y: 0, width: 0, height: 0 },
    labels: [],
    order: [],
    edgeLabels: [],
    layout,
    update: paint,
    hoverText,
  };
  paint(result, options.colouring);
  return drawing;
}

/** Sets each attribute whose value differs (an unchanged one is left alone: no style to recompute). */
function setAttributes(element: Element, attributes: Record<string, string>): void {
  for (const [name, value] of Object.entries(attributes))
    if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

function setText(element: Element, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/** The groups' boxes: each expanded group's members' extent, with room around, named at its top. */
function paintBoxes(
  layer: SVGGElement,
  groups: NonNullable<GraphViewOptions['groups']>,
  nodeCount: number,
  x: (i: number) => number,
  y: (i: number) => number,
  reach: readonly number[],
): void {
  const { of, names } = groups;
  const extent = names.map(() => [
    Number.POSITIVE_INFINITY,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ]);
  for (let i = 0; i < nodeCount; i++) {
    const g = of[i] ?? -1;
    if (g < 0) continue;
    const box = extent[g]!;
    const r = reach[i]!;
    box[0] = Math.min(box[0]!, x(i) - r);
    box[1] = Math.min(box[1]!, y(i) - r);
    box[2] = Math.max(box[2]!, x(i) + r);
    box[3] = Math.max(box[3]!, y(i) + r + 14);
  }
  const rects: SVGRectElement[] = [];
  const boxNames: SVGTextElement[] = [];
  extent.forEach(([left, top, right, bottom], g) => {
    if (!Number.isFinite(left!)) return;
    const pad = GROUP_PADDING;
    rects.push(
      svgElement('rect', {
        class: 'group-box',
        x: left! - pad,
        y: top! - pad - 14,
        width: right! - left! + 2 * pad,
        height: bottom! - top! + 2 * pad + 14,
        rx: 10,
        'data-group': names[g]!,
      }),
    );
    const label = svgElement('text', { class: 'group-label', x: left! - pad + 8, y: top! - pad });
    label.textContent = names[g]!;
    boxNames.push(label);
  });
  // The names over every box, so a box drawn later does not hide an earlier one's.
  layer.replaceChildren(...rects, ...boxNames);
}

type Point = readonly [number, number];

const toward = (from: Point, to: Point): Point => {
  const length = Math.hypot(to[0] - from[0], to[1] - from[1]);
  return [(to[0] - from[0]) / length, (to[1] - from[1]) / length];
};

/**
 * A dependency's cubic curve from `start` to `end` (the nodes' centres) through `c1` and `c2`,
 * with its ends at the nodes' edges: it leaves the source `startRadius` from its centre (0: from
 * the centre, under the node) and ends where its arrowhead, ARROW_LENGTH long along the last
 * control point's line to the target's centre, has its tip `endReach` from that centre. Ending
 * on that line keeps the curve's direction there, so the head points at the centre. `mid` is the
 * curve's middle (t = ½), for its label. Nodes too close for a head between them keep the curve
 * to the centre, as before.
 */
function edgeCurve(
  start: Point,
  c1: Point,
  c2: Point,
  end: Point,
  startRadius: number,
  endReach: number,
): { d: string; mid: Point } {
  const out = toward(start, c1);
  const from: Point = [start[0] + out[0] * startRadius, start[1] + out[1] * startRadius];
  const back = endReach + ARROW_LENGTH;
  const room = Math.hypot(end[0] - c2[0], end[1] - c2[1]);
  let to: Point = end;
  if (room > back) {
    const into = toward(c2, end);
    to = [end[0] - into[0] * back, end[1] - into[1] * back];
  }
  const mid: Point = [
    (from[0] + 3 * c1[0] + 3 * c2[0] + to[0]) / 8,
    (from[1] + 3 * c1[1] + 3 * c2[1] + to[1]) / 8,
  ];
  const at = (p: Point) => `${p[0]} ${p[1]}`;
  return { d: `M ${at(from)} C ${at(c1)}, ${at(c2)}, ${at(to)}`, mid };
}

/**
 * A badge at a node's upper left for a node the steady state overloads: `!` over capacity, `✕`
 * losing traffic (down, or its way out cut), `∞` unbounded. A rounded square rather than a circle, so the camera,
 * which resizes a node's circles as it zooms, leaves it alone.
 */
function saturationBadge(saturation: Saturation, radius: number): SVGGElement {
  const at = radius * Math.SQRT1_2;
  const badge = svgElement('g', {
    class: `badge ${saturation.kind}`,
    transform: `translate(${-at} ${-at})`,
  });
  badge.append(
    svgElement('rect', {
      x: -BADGE_RADIUS,
      y: -BADGE_RADIUS,
      width: 2 * BADGE_RADIUS,
      height: 2 * BADGE_RADIUS,
      rx: BADGE_RADIUS,
    }),
  );
  const glyph = svgElement('text', { y: 4 });
  glyph.textContent = SATURATION_GLYPH[saturation.kind];
  badge.append(glyph);
  return badge;
}

/**
 * What an entry's requests meet, for its spoken label: its end-to-end latency against its SLO,
 * or that they never finish and where (it was heard as "utilization 0.8, response time 50 ms",
 * its own numbers, while its requests were stuck further on).
 */
function entryWords(node: NodeState, name: (id: string) => string): string {
  const slo = typeof node.slo === 'number' ? ` against its SLO of ${durationText(node.slo)}` : '';
  if (node.latencyLimit !== undefined)
    return `, its requests never finish: ${latencyLimitText(node.latencyLimit, name)}`;
  if (node.latency !== undefined) return `, end-to-end latency ${durationText(node.latency)}${slo}`;
  return '';
}
