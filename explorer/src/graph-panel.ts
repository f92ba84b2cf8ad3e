import type { EngineResult } from '../../lib/engine/types';
import { renderColourBar } from './colour-bar';
import { type ColourChoice, type Colouring, defaultColouring, largestPressure } from './colour-by';
import {
  backShare,
  chosenLayout,
  cyclicShare,
  FORCE_FROM_NODES,
  type LayoutChoice,
  MOSTLY_CYCLES,
  mostlyCycles,
} from './cycles';
import { $, download } from './dom';
import { appendExportLegend } from './export-legend';
import type { ForcePositions } from './force-placement';
import { forceLayout } from './force-runner';
import { renderGraphKey } from './graph-key';
import { setInteractive } from './graph-roles';
import { createGraphTooltip } from './graph-tooltip';
import { drawGraph, type GraphDrawing, MAX_DRAWN_NODES } from './graph-view';
import { collapseGroups, type Grouping, groupingOf, groupNameOf } from './groups';
import { nodeHoverText } from './hover-text';
import type { LargeGraphView } from './large-graph';
import { createLargeGraphKeys } from './large-graph-keys';
import { hasLatency } from './latency';
import { indexResult, type Layout } from './layout';
import { marksOf, unmarkedText } from './marks';
import { nodeSizing } from './node-size';
import { withCutDependencies } from './scenario-marks';
import { edgeKeyText, hasSteadyState, saturationByNode } from './steady';
import { svgElement } from './svg';
import { createSvgCamera } from './svg-camera';
import { createSvgNodeKeys } from './svg-node-keys';
import { nameOf, type View } from './view';

/** No value on the colour scale for any node: grey, as a node without a measure is. */
const NO_COLOURING: Colouring = { key: '', fraction: () => undefined };

/** An SVG drawing and what it was drawn for. */
interface SvgDrawn {
  drawing: GraphDrawing;
  for: {
    /** The answer (its first state) or bare structure the camera keeps its place for. */
    answer: EngineResult | undefined;
    /** The state drawn, as drawn (groups collapsed, cut dependencies added). */
    result: EngineResult;
    selected: string | undefined;
    marks: Colouring['marks'];
    withoutResult: boolean;
    force: ForcePositions | undefined;
    boxes: { of: Int32Array; names: readonly string[] } | undefined;
    aspect: number;
    viewHeight: number;
  };
}

/**
 * Whether a drawing made for `a` can take `b` by `GraphDrawing.update`: the same answer's
 * states, with the same nodes and dependencies in the same order, drawn with the same selection,
 * marks, layout, groups and view. Anything else is drawn anew.
 */
function sameDrawing(a: SvgDrawn['for'], b: SvgDrawn['for']): boolean {
  if (
    a.answer === undefined ||
    a.answer !== b.answer ||
    a.selected !== b.selected ||
    a.marks !== b.marks ||
    a.withoutResult ||
    b.withoutResult ||
    a.force !== b.force ||
    a.aspect !== b.aspect ||
    a.viewHeight !== b.viewHeight
  )
    return false;
  if ((a.boxes === undefined) !== (b.boxes === undefined)) return false;
  if (a.boxes !== undefined && b.boxes !== undefined) {
    if (a.boxes.names !== b.boxes.names || a.boxes.of.length !== b.boxes.of.length) return false;
    for (let i = 0; i < a.boxes.of.length; i++) if (a.boxes.of[i] !== b.boxes.of[i]) return false;
  }
  const [x, y] = [a.result, b.result];
  if (x.nodes.length !== y.nodes.length || x.dependencies.length !== y.dependencies.length) return false;
  for (let i = 0; i < x.nodes.length; i++) if (x.nodes[i]!.id !== y.nodes[i]!.id) return false;
  for (let e = 0; e < x.dependencies.length; e++) {
    const [d, f] = [x.dependencies[e]!, y.dependencies[e]!];
    if (d.from !== f.from || d.to !== f.to) return false;
  }
  return true;
}

/**
 * The structure on show: the SVG view up to `MAX_DRAWN_NODES`, the WebGL view above (loaded on
 * first use; one view per answer, recoloured for each state), and its SVG and PNG exports.
 */
export function createGraphPanel(view: View, select: (id: string) => void) {
  const graph = document.getElementById('graph') as unknown as SVGSVGElement;
  const graphNote = $('graph-note');
  const colourKey = $('colour-key');
  const colourBar = $('colour-bar');
  const colourByRow = $('colour-by-row');
  const fixedScaleRow = $('fixed-scale-row');
  const fixedScale = $<HTMLInputElement>('fixed-scale');
  const colourBy = $<HTMLSelectElement>('colour-by');
  const widthKey = $('width-key');
  const markKey = $('mark-key');
  const largeGraph = $('large-graph');
  const figure = $('graph-figure');
  const groupRow = $('group-row');
  const groupBy = $<HTMLInputElement>('group-by');
  const groupList = $('group-list');
  /** The groups of the structure on show (groups.ts), found once per answer. */
  let groupsFor: { result: EngineResult; grouping: Grouping | undefined } | undefined;
  /** Groups expanded while grouping is on (the rest are collapsed: grouping starts collapsed). */
  const expanded = new Set<string>();
  /** The collapsed structure drawn for an answer's first state, kept while no group is toggled. */
  let collapsedFirst: { source: EngineResult; key: string; result: EngineResult } | undefined;
  /** The state as drawn (its groups collapsed), for the WebGL view's keys. */
  let shownResult: EngineResult | undefined;
  const layoutChoice = $<HTMLSelectElement>('layout-choice');
  const layoutRow = $('layout-row');
  const layoutKey = $('layout-key');
  let largeView: LargeGraphView | undefined;
  let largeViewFor: EngineResult | undefined;
  /** The force layout the WebGL view was drawn with, if any. */
  let largeViewForce: ForcePositions | undefined;
  /**
   * The structure on show (an answer's first state): its dependencies as index pairs, the share
   * of its nodes on a cycle and of its dependencies pointing back (cycles.ts), and its force
   * layout once the worker has answered.
   */
  let layoutFor:
    | {
        result: EngineResult;
        edges: Array<readonly [number, number]>;
        onCycles: number;
        /** The share of dependencies pointing back in its layering, once the layers are drawn. */
        back?: number;
        force?: ForcePositions;
        asked: boolean;
        failed: boolean;
      }
    | undefined;
  const camera = createSvgCamera(graph);
  // Interactive while they hold nodes (graph-roles.ts): the SVG a listbox of them, the WebGL view
  // an application taking the keys.
  setInteractive(graph, 'listbox', -1);
  setInteractive(largeGraph, 'application', 0);
  const tooltip = createGraphTooltip();
  const svgKeys = createSvgNodeKeys(graph, tooltip, choose);
  /** The colouring on show (its marks say what the hover text adds in a comparison). */
  let shownColouring: Colouring = NO_COLOURING;
  /** Each state's saturated nodes, found once for the WebGL view's hover text. */
  const saturations = new WeakMap<EngineResult, ReturnType<typeof saturationByNode>>();
  const largeKeys = createLargeGraphKeys(largeGraph, tooltip, {
    view: () => (showsLarge() ? largeView : undefined),
    state: () => shownResult,
    selected: () => view.selected,
    select: choose,
    hoverText(result, index) {
      const node = result.nodes[index]!;
      let saturated = saturations.get(result);
      if (saturated === undefined) {
        saturated = saturationByNode(result);
        saturations.set(result, saturated);
      }
      const { marks } = shownColouring;
      return nodeHoverText(node, {
        name: nameFor,
        saturated: saturated.get(node.id),
        down: marks?.down.has(node.id) === true,
        capacityChange: marks?.capacity.get(node.id),
        withoutResult: false,
      });
    },
  });
  /** The SVG drawing on show and what it was drawn for (see `sameDrawing`). */
  let svgDrawn: SvgDrawn | undefined;
  /** The answer the SVG camera was fitted to: other states of it keep the camera where it is. */
  let cameraFor: EngineResult | undefined;
  const showsLarge = () => !largeGraph.hidden && largeView !== undefined;
  /** A colouring another panel set for this answer (see `ExplorerPage.setColouring`). */
  let colouringSet: Colouring | undefined;
  /** The largest pressure of every tick of the answer on show, found once per answer. */
  let largestOf: { states: View['states']; largestPressure: number } | undefined;
  const overTicks = () => {
    if (largestOf?.states !== view.states)
      largestOf = { states: view.states, largestPressure: largestPressure(view.states.map((s) => s.result)) };
    return largestOf;
  };
  /** A node's name as drawn: a collapsed group's is its name and size. */
  function nameFor(id: string): string {
    const name = groupNameOf(id);
    const grouping = groupsFor?.grouping;
    const g = name === undefined || grouping === undefined ? -1 : grouping.names.indexOf(name);
    return g < 0 ? nameOf(view, id) : `${name} (${grouping!.sizes[g]} nodes)`;
  }

  /** A node clicked or chosen with Enter: a collapsed group expands, any other node is selected. */
  function choose(id: string): void {
    const name = groupNameOf(id);
    if (name !== undefined && groupsFor?.grouping?.names.includes(name)) {
      expanded.add(name);
      regroup();
      return;
    }
    select(id);
  }

  /** Draws the state on show again after a group was collapsed or expanded, fitted. */
  function regroup(): void {
    const state = view.states[view.current];
    if (!state) return;
    cameraFor = undefined;
    render(state.result);
  }

  /** The groups of `first` (an answer's first state), and the list of their buttons when they change. */
  function groupingFor(first: EngineResult): Grouping | undefined {
    if (groupsFor?.result === first) return groupsFor.grouping;
    const grouping = groupingOf(first.nodes);
    const same = grouping?.names.join('\u0000') === groupsFor?.grouping?.names.join('\u0000');
    groupsFor = { result: first, grouping };
    if (!same) {
      expanded.clear();
      groupList.replaceChildren(
        ...(grouping?.names ?? []).map((name, g) => {
          const button = document.createElement('button');
          button.type = 'button';
          button.dataset.group = name;
          button.textContent = `${name} (${grouping!.sizes[g]})`;
          button.addEventListener('click', () => {
            if (expanded.has(name)) expanded.delete(name);
            else expanded.add(name);
            regroup();
          });
          return button;
        }),
      );
    }
    return grouping;
  }

  /**
   * `state` (and `first`, its answer's first state) as drawn with grouping on: the collapsed
   * groups each one node, and the expanded groups' members to box; as they are with it off.
   */
  function grouped(
    state: EngineResult,
    first: EngineResult,
  ): { state: EngineResult; first: EngineResult; boxes?: { of: Int32Array; names: readonly string[] } } {
    const grouping = groupingFor(first);
    groupRow.hidden = grouping === undefined;
    groupList.hidden = !groupBy.checked;
    if (grouping === undefined || !groupBy.checked) return { state, first };
    for (const button of groupList.querySelectorAll('button'))
      button.setAttribute('aria-expanded', String(expanded.has(button.dataset.group!)));
    const closed = new Set(grouping.names.filter((name) => !expanded.has(name)));
    const key = [...closed].join('\u0000');
    if (collapsedFirst?.source !== first || collapsedFirst.key !== key)
      collapsedFirst = { source: first, key, result: collapseGroups(first, grouping, closed) };
    const drawn = collapseGroups(state, grouping, closed);
    // The expanded groups' members, by their place in the collapsed state.
    const original = new Map(first.nodes.map((node, v) => [node.id, v] as const));
    const of = Int32Array.from(drawn.nodes, (node) => {
      const g = grouping.of[original.get(node.id) ?? -1] ?? -1;
      return g >= 0 && expanded.has(grouping.names[g]!) ? g : -1;
    });
    return { state: drawn, first: collapsedFirst.result, boxes: { of, names: grouping.names } };
  }

  /**
   * The user's "Colour by" choice applies to answers with latency only (the select is hidden for
   * the rest), and stays for the next such answer: a re-run keeps what the user looks at. With
   * "Fixed colour scale" (the default) a timeline's pressure is on one scale for every tick.
   */
  const colouringOf = (result: EngineResult, latency: boolean) =>
    colouringSet ??
    defaultColouring(
      result,
      latency ? (colourBy.value as ColourChoice) : 'utilization',
      view.states.length > 1 && fixedScale.checked ? overTicks() : undefined,
    );

  /** The structure `first` (an answer's first state) as the layout's rule sees it. */
  function layoutEntry(first: EngineResult): NonNullable<typeof layoutFor> {
    if (layoutFor?.result !== first) {
      const { edges } = indexResult(first);
      layoutFor = {
        result: first,
        edges,
        onCycles: cyclicShare(first.nodes.length, edges),
        asked: false,
        failed: false,
      };
    }
    return layoutFor;
  }

  /**
   * The layout chosen for `entry` (cycles.ts): the user's, or automatically by the rule, whose
   * second part (dependencies pointing back) waits for the layering to be drawn: undecided till then.
   */
  function layoutWanted(entry: NonNullable<typeof layoutFor>): 'layers' | 'force' | undefined {
    const choice = layoutChoice.value as LayoutChoice;
    const nodes = entry.result.nodes.length;
    if (choice !== 'auto' || entry.onCycles <= MOSTLY_CYCLES || nodes < FORCE_FROM_NODES)
      return chosenLayout(choice, false);
    return entry.back === undefined
      ? undefined
      : chosenLayout(choice, mostlyCycles(nodes, entry.onCycles, entry.back));
  }

  /** The force layout's positions to draw the structure `first` with, when it is wanted and has come. */
  function forceToDraw(first: EngineResult): ForcePositions | undefined {
    const entry = layoutEntry(first);
    return layoutWanted(entry) === 'force' ? entry.force : undefined;
  }

  /**
   * After a drawing of the structure `first` (`layering` the layers it drew, none for the force
   * layout): the rule decided with the layering, the force layout asked of its worker the first
   * time it is wanted (the layers stay until it answers; then the drawing is redrawn with it and
   * fitted), and which layout is drawn, and why, said beside the control.
   */
  function layoutDrawn(first: EngineResult, layering: Layout | undefined): void {
    const entry = layoutEntry(first);
    if (entry.back === undefined && layering !== undefined)
      entry.back = backShare(layering.layer, entry.edges);
    const wanted = layoutWanted(entry) ?? 'layers';
    if (wanted === 'force' && entry.force === undefined && !entry.asked && !entry.failed) {
      entry.asked = true;
      const started = performance.now();
      const aspect = Math.max(1, figure.clientWidth) / Math.max(1, window.innerHeight * 0.7);
      forceLayout(first.nodes.length, entry.edges, aspect).then(
        (answer) => {
          entry.force = answer;
          document.body.dataset.forceMs = (performance.now() - started).toFixed(0);
          const state = view.states[view.current];
          if (layoutFor !== entry || state === undefined) return;
          cameraFor = undefined;
          render(state.result);
        },
        (reason: unknown) => {
          entry.asked = false;
          // Superseded by another structure's: nothing to say. Failed: the layers stay, said so.
          if (reason instanceof Error && reason.message === 'superseded') return;
          entry.failed = true;
          if (layoutFor === entry) layoutKey.textContent = 'Layout: layers (the force layout failed).';
        },
      );
    }
    const percent = (share: number) => `${Math.round(share * 100)}%`;
    const why =
      layoutChoice.value !== 'auto'
        ? ''
        : ` (automatic: ${first.nodes.length < FORCE_FROM_NODES ? `${first.nodes.length} nodes, ` : ''}${percent(entry.onCycles)} of the nodes on a cycle${entry.back === undefined ? '' : `, ${percent(entry.back)} of the dependencies pointing back`})`;
    layoutKey.textContent =
      layering === undefined
        ? `Layout: force${why}.`
        : wanted === 'layers'
          ? `Layout: layers${why}.`
          : entry.failed
            ? 'Layout: layers (the force layout failed).'
            : `Layout: force, being computed; layers meanwhile${why}.`;
    document.body.dataset.layout = layering === undefined ? 'force' : 'layers';
  }

  async function showLargeGraph(
    result: EngineResult,
    first: EngineResult,
    colouring: Colouring,
    force: ForcePositions | undefined,
  ): Promise<void> {
    if (largeView === undefined || largeViewFor !== first || largeViewForce !== force) {
      largeView?.kill();
      document.body.dataset.graph = 'loading';
      const started = performance.now();
      const { drawLargeGraph } = await import('./large-graph');
      // Another draw may have finished while this one loaded the chunk.
      largeView?.kill();
      largeView = drawLargeGraph(largeGraph, result, colouring, nameFor, choose, force);
      largeViewFor = first;
      largeViewForce = force;
      largeKeys.reset();
      document.body.dataset.graphMs = (performance.now() - started).toFixed(0);
    } else {
      largeView.update(result, view.selected, colouring);
    }
    document.body.dataset.graph = 'webgl';
    largeKeys.rendered();
    layoutDrawn(first, largeView.layout);
  }

  /**
   * For the tests and the benchmark: each node as drawn, its centre (client coordinates) and
   * radius in CSS pixels, in either view.
   */
  (globalThis as { explorerNodeDiscs?: () => Array<[number, number, number]> }).explorerNodeDiscs = () =>
    showsLarge()
      ? largeView!.discs()
      : [...graph.querySelectorAll('.node circle.body')].map((circle) => {
          const box = circle.getBoundingClientRect();
          return [box.left + box.width / 2, box.top + box.height / 2, box.width / 2];
        });

  /** For the benchmark: frame times of camera moves on the WebGL view. */
  (globalThis as { explorerFrameTimes?: (frames: number) => Promise<number[]> }).explorerFrameTimes = (
    frames,
  ) => largeView?.measureFrames(frames) ?? Promise.resolve([]);

  /** The graph as a standalone SVG document, its style sheet embedded. */
  function graphSvgText(): string {
    // The whole structure at scale 1, whatever the camera shows.
    const copy = camera.whole(() => graph.cloneNode(true) as SVGSVGElement);
    copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    copy.removeAttribute('style');
    copy.removeAttribute('tabindex');
    const box = copy.viewBox.baseVal;
    copy.setAttribute('width', String(Math.ceil(box.width)));
    copy.setAttribute('height', String(Math.ceil(box.height)));
    const style = svgElement('style', {});
    style.textContent = $('svg-style').textContent ?? '';
    copy.prepend(style);
    if (shownColouring.key !== '') appendExportLegend(copy, shownColouring);
    return new XMLSerializer().serializeToString(copy);
  }

  // Pan and zoom: buttons and keys for either view; wheel and drag are the views' own.
  const zoomIn = () => (showsLarge() ? largeView!.zoomBy(1.25) : camera.zoomBy(1.25));
  const zoomOut = () => (showsLarge() ? largeView!.zoomBy(0.8) : camera.zoomBy(0.8));
  const fit = () => (showsLarge() ? largeView!.fit() : camera.fit());
  const pan = (dx: number, dy: number) => (showsLarge() ? largeView!.panBy(dx, dy) : camera.panBy(dx, dy));
  $('zoom-in').addEventListener('click', zoomIn);
  $('zoom-out').addEventListener('click', zoomOut);
  $('zoom-fit').addEventListener('click', fit);
  const keys: Record<string, () => void> = {
    '+': zoomIn,
    '=': zoomIn,
    '-': zoomOut,
    '0': fit,
    ArrowLeft: () => pan(-60, 0),
    ArrowRight: () => pan(60, 0),
    ArrowUp: () => pan(0, -60),
    ArrowDown: () => pan(0, 60),
  };
  // On a node (each is focusable) or a zoom button: keys bubble up to the figure.
  // Not where a key means something of its own: a node's arrows move among nodes (they have
  // prevented the default by then; with Shift they pan), a select's change its value.
  figure.addEventListener('keydown', (event) => {
    const action = keys[event.key];
    if (!action || event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLSelectElement || event.target instanceof HTMLInputElement) return;
    event.preventDefault();
    action();
  });

  const exportSvg = $<HTMLButtonElement>('export-svg');
  const exportPng = $<HTMLButtonElement>('export-png');
  exportSvg.addEventListener('click', () => download('structure.svg', 'image/svg+xml', graphSvgText()));
  exportPng.addEventListener('click', () => {
    const url = URL.createObjectURL(new Blob([graphSvgText()], { type: 'image/svg+xml' }));
    const image = new Image();
    image.onload = () => {
      const scale = 2;
      const canvas = document.createElement('canvas');
      canvas.width = image.width * scale;
      canvas.height = image.height * scale;
      const context = canvas.getContext('2d')!;
      context.fillStyle = '#fff';
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => {
        if (blob) download('structure.png', 'image/png', blob);
      }, 'image/png');
    };
    image.src = url;
  });

  /**
   * The SVG view of `result`; `answer` is what the camera keeps its place for (a state of the
   * same answer, or the same bare structure, keeps the camera where it is).
   */
  function drawSvg(
    result: EngineResult,
    colouring: Colouring,
    answer: EngineResult | undefined,
    withoutResult = false,
    force?: ForcePositions,
    boxes?: { of: Int32Array; names: readonly string[] },
  ): GraphDrawing {
    graphNote.textContent = '';
    largeGraph.hidden = true;
    graph.style.display = '';
    // Redrawing replaces the focused node: the focus goes back to it after (svg-node-keys.ts).
    const hadFocus = document.activeElement !== graph && graph.contains(document.activeElement);
    // With a drawing on show the camera knows the svg's width (reading it here, after the other
    // panels wrote theirs, would force a layout); else it is read.
    const aspect =
      (svgDrawn === undefined ? graph.clientWidth : camera.width()) / Math.max(1, window.innerHeight * 0.7);
    const viewHeight = Math.max(1, window.innerHeight * 0.7);
    const drawnFor: SvgDrawn['for'] = {
      answer,
      result,
      selected: view.selected,
      marks: colouring.marks,
      withoutResult,
      force,
      boxes,
      aspect,
      viewHeight,
    };
    // Another state of the structure on show, drawn the same way (a timeline's tick): painted into
    // the same elements, which is several times faster than building them again.
    const reuse = svgDrawn !== undefined && sameDrawing(svgDrawn.for, drawnFor);
    const drawing = reuse
      ? svgDrawn!.drawing
      : drawGraph(graph, result, {
          selected: view.selected,
          colouring,
          name: nameFor,
          aspect,
          viewHeight,
          onSelect: choose,
          withoutResult,
          ...(force === undefined ? {} : { force }),
          ...(boxes === undefined ? {} : { groups: boxes }),
        });
    if (reuse) drawing.update(result, colouring);
    svgDrawn = { drawing, for: drawnFor };
    camera.show(drawing, cameraFor === answer);
    cameraFor = answer;
    svgKeys.drawn(drawing, [view.selected, result.primaryBlockage], hadFocus);
    document.body.dataset.graph = 'svg';
    return drawing;
  }

  function killLargeView(): void {
    largeView?.kill();
    largeView = undefined;
    largeViewFor = undefined;
    largeViewForce = undefined;
    largeGraph.hidden = true;
  }

  function render(state: EngineResult): void {
    figure.hidden = false;
    const latency = hasLatency(state);
    // Another panel's colouring (a comparison) is not one of the choices: the select steps aside.
    colourByRow.hidden = !latency || colouringSet !== undefined;
    // Only pressure changes its scale from tick to tick (a comparison's is fixed already).
    fixedScaleRow.hidden = view.states.length < 2 || colouringSet !== undefined || hasSteadyState(state);
    const colouring = colouringOf(state, latency);
    shownColouring = colouring;
    colourKey.textContent = colouring.key;
    renderColourBar(colourBar, colouring);
    // A comparison's cut dependencies are drawn where they were, dashed red; collapsed groups as one node each.
    const {
      state: result,
      first,
      boxes,
    } = grouped(withCutDependencies(state, colouring.marks), view.states[0]?.result ?? state);
    shownResult = result;
    const large = result.nodes.length > MAX_DRAWN_NODES;
    widthKey.textContent = edgeKeyText(hasSteadyState(result) ? 'throughput' : 'flow', large);
    markKey.textContent = unmarkedText(marksOf(result.nodes).unmarked);
    layoutRow.hidden = false;
    const force = forceToDraw(first);
    renderGraphKey(
      large ? 'webgl' : 'svg',
      colouring.marks,
      force !== undefined,
      nodeSizing(result.nodes).measure,
    );
    // The SVG and PNG exports copy the SVG view: the WebGL view has none to copy (Export SVG wrote
    // an empty image, PNG nothing or the last small graph drawn), so they say so instead.
    for (const button of [exportSvg, exportPng]) {
      button.disabled = large;
      button.title = large
        ? `The graph of ${result.nodes.length.toLocaleString('en')} nodes is drawn with WebGL (above ${MAX_DRAWN_NODES.toLocaleString('en')} nodes): Export JSON keeps the answer whole`
        : '';
    }
    if (!large) {
      layoutDrawn(first, drawSvg(result, colouring, view.states[0]?.result, false, force, boxes).layout);
    } else {
      graph.replaceChildren();
      svgDrawn = undefined;
      graph.style.display = 'none';
      largeGraph.hidden = false;
      graphNote.textContent = `${result.nodes.length.toLocaleString('en')} nodes, drawn with WebGL: drag to pan, scroll to zoom, click a node for its numbers.`;
      void showLargeGraph(result, first, colouring, force);
    }
  }

  for (const control of [colourBy, fixedScale]) {
    control.addEventListener('change', () => {
      const state = view.states[view.current];
      if (state) render(state.result);
    });
  }
  // Grouping on: every group collapsed, each expanded with its button or its node.
  groupBy.addEventListener('change', () => {
    expanded.clear();
    regroup();
  });
  // Another layout is fitted to the view, as a new answer is.
  layoutChoice.addEventListener('change', () => {
    const state = view.states[view.current];
    if (!state) return;
    cameraFor = undefined;
    render(state.result);
  });

  return {
    render,
    /** Sets (or, with `undefined`, drops) the colouring for the answer on show; a new answer drops it. */
    setColouring(colouring: Colouring | undefined): void {
      colouringSet = colouring;
    },
    /**
     * A run without a result: `bare`, a structure as written (bare-structure.ts), drawn without
     * colours or numbers so its nodes can be picked; one too large for the SVG view is not drawn.
     */
    renderWithoutResult(bare: EngineResult): void {
      killLargeView();
      figure.hidden = false;
      // Drawn as written, in layers: no layout to choose, no groups.
      layoutRow.hidden = true;
      groupRow.hidden = true;
      layoutKey.textContent = '';
      delete document.body.dataset.layout;
      colourByRow.hidden = true;
      fixedScaleRow.hidden = true;
      renderColourBar(colourBar, undefined);
      renderGraphKey('svg', undefined);
      widthKey.textContent = '';
      markKey.textContent = '';
      if (bare.nodes.length > MAX_DRAWN_NODES) {
        graph.replaceChildren();
        svgDrawn = undefined;
        cameraFor = undefined;
        colourKey.textContent = '';
        graphNote.textContent = `No result to draw; the structure's ${bare.nodes.length.toLocaleString('en')} nodes are too many to draw without one.`;
        return;
      }
      colourKey.textContent =
        'Colour: none, the run gave no result; the structure as written (click a node to pick it).';
      drawSvg(bare, NO_COLOURING, bare, true);
    },
    clear(): void {
      figure.hidden = true;
      graph.replaceChildren();
      svgDrawn = undefined;
      cameraFor = undefined;
      killLargeView();
      graphNote.textContent = '';
    },
  };
}
