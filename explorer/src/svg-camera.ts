import type { GraphDrawing, NodeLabel } from './graph-view';
import { trackPinch } from './pinch';

/** A box on screen: left, top, right, bottom. */
type Box = [number, number, number, number];

/**
 * Pan and zoom for the SVG view, and its labels. The camera is a centre and a scale (screen
 * pixels per drawing unit) written into the `viewBox`, so nothing is redrawn while it moves.
 * Labels keep their size on screen (12 px) whatever the zoom, and a label is shown only where it
 * overlaps no label placed before it (the selected node, the blockage, the origin and the trace
 * first, then by load): zoomed out, a 300-node graph names the nodes that matter; zooming in
 * names the rest.
 */
export interface SvgCamera {
  /** A drawing to show: fitted to the view, or (`keep`) under the camera as it was. */
  show(drawing: GraphDrawing, keep: boolean): void;
  zoomBy(factor: number): void;
  panBy(dx: number, dy: number): void;
  fit(): void;
  /** The svg's width as the camera last knew it (read now only when it does not know it). */
  width(): number;
  /** Runs `read` with the whole drawing in view at scale 1 and every label that fits placed (for export). */
  whole<T>(read: () => T): T;
}

const LABEL_PX = 12;
/** Below this radius on screen a node is drawn this large, so a zoomed-out graph still shows it. */
const MIN_RADIUS_PX = 3.5;
/** Gap between a node (or its outermost ring) and its label, on screen. */
const RING_GAP_PX = 3;
/** Below this scale rows are too close for labels under their nodes: beside them first. */
const DENSE_SCALE = 0.6;
const LABEL_HEIGHT_PX = 15;
/**
 * Room kept free on each side of a placed label, in screen pixels: its white halo (0.25em) and a
 * gap, so two labels side by side never read as one name ("auth-gateway-4checkout-api-10", the
 * right edge of one at the left edge of the next).
 */
const LABEL_SIDE_GAP_PX = 6;
/** Room around a fitted drawing, in screen pixels: half a label on the sides, one below. */
const PAD = { side: 12, top: 14, bottom: 30 };
const MAX_FIT_SCALE = 2;
const MIN_HEIGHT_PX = 220;
/** The smallest node's radius in the drawing's units (graph-view.ts: 9, growing with load). */
const SMALLEST_RADIUS = 9;
/** A capacity's outline on screen: this share of the smallest node's radius, within these px. */
const OUTLINE_SHARE = 0.2;
const OUTLINE_PX = [1, 2.5] as const;
/** After the wheel or a drag stops this long, labels and node sizes follow the camera. */
const SETTLE_MS = 120;

/**
 * Sets an attribute only when its value changes (`undefined`: removes it): the camera lays every
 * label out again at each state of a timeline, and an attribute written with the value it had
 * still costs the browser a style recalculation.
 */
function set(element: Element, name: string, value: string | undefined): void {
  if (value === undefined) {
    if (element.hasAttribute(name)) element.removeAttribute(name);
  } else if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

let measurer: CanvasRenderingContext2D | undefined;
function labelWidth(text: string): number {
  measurer ??= document.createElement('canvas').getContext('2d')!;
  measurer.font = `${LABEL_PX}px system-ui, sans-serif`;
  return measurer.measureText(text).width;
}

export function createSvgCamera(svg: SVGSVGElement): SvgCamera {
  let drawing: GraphDrawing | undefined;
  let widths: number[] = [];
  let edgeLabelWidths: number[] = [];
  /** Room left and right of a fitted drawing for labels (below a node, or beside it on the right). */
  let room = { left: PAD.side, right: PAD.side };
  const camera = { x: 0, y: 0, scale: 1 };
  let fitted = 1;
  let frame: number | undefined;

  /**
   * The svg's size, as last read where reading it costs nothing (the resize observer, after
   * layout); read again only when unknown. Reading it after writing the drawing would force a
   * layout in the middle of the work (a timeline's step: the graph, then the chart).
   */
  let known: [number, number] | undefined;
  const read = (): [number, number] => [Math.max(1, svg.clientWidth), Math.max(1, svg.clientHeight)];
  const size = (): [number, number] => {
    known ??= read();
    return known;
  };
  const limits = () => [fitted * 0.5, Math.max(fitted, 4)] as const;

  function fitCamera(): void {
    if (!drawing) return;
    const { bounds } = drawing;
    const [width, height] = size();
    const scale = Math.min(
      MAX_FIT_SCALE,
      (width - room.left - room.right) / Math.max(bounds.width, 1),
      (height - PAD.top - PAD.bottom) / Math.max(bounds.height, 1),
    );
    fitted = Math.max(scale, 1e-3);
    camera.scale = fitted;
    camera.x = bounds.x + bounds.width / 2 + (room.right - room.left) / 2 / fitted;
    // Centred between the room above and the (larger) room below for the bottom row's labels.
    camera.y = bounds.y + bounds.height / 2 + (PAD.bottom - PAD.top) / 2 / fitted;
  }

  /**
   * The viewBox for the camera, and (unless `moving`) the labels and node sizes laid out for its
   * scale: while the wheel or a drag moves the camera only the viewBox changes, since redrawing
   * a 2,000-node SVG is already most of a frame; the rest follows once it rests.
   */
  function apply(moving = false): void {
    frame = undefined;
    if (!drawing) return;
    const [width, height] = size();
    const { scale } = camera;
    const left = camera.x - width / 2 / scale;
    const top = camera.y - height / 2 / scale;
    svg.setAttribute('viewBox', `${left} ${top} ${width / scale} ${height / scale}`);
    if (!moving) placeLabels(scale, left, top, width, height);
  }

  /**
   * Greedy placement in priority order on a grid of screen cells: the nodes in view are
   * obstacles, and a label goes to the first of its places (below its node, or beside it on the
   * right where rows are dense) whose box meets no obstacle and no label placed before it; else it
   * stays hidden, as it does when its node is out of view. Node sizes follow too: rings keep
   * their width on screen, and a node is never smaller than `MIN_RADIUS_PX`.
   */
  function placeLabels(scale: number, left: number, top: number, width: number, height: number): void {
    if (!drawing) return;
    const scene = svg.querySelector<SVGGElement>('.scene');
    const smallest = MIN_RADIUS_PX / scale;
    if (scene) {
      const fontSize = `${LABEL_PX / scale}px`;
      if (scene.style.fontSize !== fontSize) scene.style.fontSize = fontSize;
      // A capacity's outline grows with the nodes on screen, so a dense column of small nodes
      // stays its colours rather than a column of outlines.
      const nodePx = Math.max(MIN_RADIUS_PX, SMALLEST_RADIUS * scale);
      const outline = Math.min(OUTLINE_PX[1], Math.max(OUTLINE_PX[0], nodePx * OUTLINE_SHARE));
      const width = `${Number(outline.toFixed(2))}px`;
      if (scene.style.getPropertyValue('--capacity-outline') !== width)
        scene.style.setProperty('--capacity-outline', width);
    }
    const ringScale = Math.max(1, 1 / scale);
    const cell = 64;
    const grid = new Map<number, Box[]>();
    const key = (cx: number, cy: number) => cx * 100_003 + cy;
    const cells = (box: Box, visit: (list: Box[] | undefined, k: number) => boolean | undefined) => {
      for (let cx = Math.floor(box[0] / cell); cx <= Math.floor(box[2] / cell); cx++)
        for (let cy = Math.floor(box[1] / cell); cy <= Math.floor(box[3] / cell); cy++)
          if (visit(grid.get(key(cx, cy)), key(cx, cy)) === false) return false;
      return true;
    };
    const occupy = (box: Box) =>
      cells(box, (list, k) => {
        if (list) list.push(box);
        else grid.set(k, [box]);
        return true;
      });
    // Only wholly in view: a label is shown whole or not at all, never cut at an edge.
    const free = (box: Box) =>
      box[0] >= 0 &&
      box[2] <= width &&
      box[1] >= 0 &&
      box[3] <= height &&
      cells(
        box,
        (list) => !list?.some((o) => box[0] < o[2] && o[0] < box[2] && box[1] < o[3] && o[1] < box[3]),
      );
    const screen = (label: NodeLabel): [number, number, number] => [
      (label.x - left) * scale,
      (label.y - top) * scale,
      Math.max(label.radius, smallest),
    ];
    for (const label of drawing.labels) {
      const [sx, sy, radius] = screen(label);
      for (const [circle, ring] of label.circles) set(circle, 'r', String(radius + ring * ringScale));
      const r = radius * scale;
      if (sx + r > 0 && sx - r < width && sy + r > 0 && sy - r < height)
        occupy([sx - r, sy - r, sx + r, sy + r]);
    }
    const dense = scale < DENSE_SCALE;
    for (const index of drawing.order) {
      const label = drawing.labels[index]!;
      const [sx, sy, radius] = screen(label);
      const rings = label.circles.reduce((widest, [, ring]) => Math.max(widest, ring), 0);
      const out = radius + rings * ringScale + RING_GAP_PX / scale;
      const labelWidth = widths[index]!;
      const below: Box = [
        sx - labelWidth / 2,
        sy + out * scale + 1,
        sx + labelWidth / 2,
        sy + out * scale + 1 + LABEL_HEIGHT_PX,
      ];
      const right: Box = [
        sx + out * scale + 2,
        sy - LABEL_HEIGHT_PX / 2,
        sx + out * scale + 2 + labelWidth,
        sy + LABEL_HEIGHT_PX / 2,
      ];
      const places: Array<['below' | 'right', Box]> = dense
        ? [
            ['right', right],
            ['below', below],
          ]
        : [
            ['below', below],
            ['right', right],
          ];
      const place = places.find(([, box]) => free(box));
      const text = label.element;
      if (place === undefined) {
        set(text, 'display', 'none');
        continue;
      }
      const [x0, y0, x1, y1] = place[1];
      occupy([x0 - LABEL_SIDE_GAP_PX, y0, x1 + LABEL_SIDE_GAP_PX, y1]);
      set(text, 'display', undefined);
      if (place[0] === 'below') {
        set(text, 'x', '0');
        set(text, 'y', String(out + (LABEL_PX - 1) / scale));
        set(text, 'text-anchor', 'middle');
      } else {
        set(text, 'x', String(out + 2 / scale));
        set(text, 'y', String(4 / scale));
        set(text, 'text-anchor', 'start');
      }
    }
    // Then the dependencies' labels, the busiest first, centred on their curves' middles.
    drawing.edgeLabels.forEach((label, index) => {
      const sx = (label.x - left) * scale;
      const sy = (label.y - top) * scale;
      const half = edgeLabelWidths[index]! / 2;
      const box: Box = [sx - half, sy - LABEL_HEIGHT_PX / 2, sx + half, sy + LABEL_HEIGHT_PX / 2];
      if (!free(box)) {
        set(label.element, 'display', 'none');
        return;
      }
      occupy(box);
      set(label.element, 'display', undefined);
      set(label.element, 'x', String(label.x));
      set(label.element, 'y', String(label.y + 4 / scale));
    });
  }

  let settle: ReturnType<typeof setTimeout> | undefined;
  let settled = true;
  /** Applies the camera at the next frame; `moving` (wheel, drag) lays labels out once it rests. */
  function schedule(moving = false): void {
    if (moving) {
      settled = false;
      if (settle !== undefined) clearTimeout(settle);
      settle = setTimeout(() => {
        settled = true;
        schedule();
      }, SETTLE_MS);
    }
    frame ??= requestAnimationFrame(() => apply(!settled));
  }

  /** Zooms by `factor` keeping the drawing point under (`px`, `py`) (screen, in the svg) still. */
  function zoomAt(factor: number, px: number, py: number, moving = false): void {
    const [width, height] = size();
    const [low, high] = limits();
    const scale = Math.min(high, Math.max(low, camera.scale * factor));
    const wx = camera.x + (px - width / 2) / camera.scale;
    const wy = camera.y + (py - height / 2) / camera.scale;
    camera.x = wx - (px - width / 2) / scale;
    camera.y = wy - (py - height / 2) / scale;
    camera.scale = scale;
    schedule(moving);
  }

  svg.addEventListener(
    'wheel',
    (event) => {
      if (!drawing) return;
      event.preventDefault();
      const box = svg.getBoundingClientRect();
      zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - box.left, event.clientY - box.top, true);
    },
    { passive: false },
  );

  // On a touch screen the graph takes fingers only while it holds the focus (a tap gives it):
  // until then a finger scrolls the page (touch-action in explorer.css). Two fingers pinch.
  const active = () => svg.matches(':focus-within');
  const pinch = trackPinch(svg, active, ({ factor, x, y, dx, dy }) => {
    const box = svg.getBoundingClientRect();
    camera.x -= dx / camera.scale;
    camera.y -= dy / camera.scale;
    zoomAt(factor, x - box.left, y - box.top, true);
  });

  // Drag to pan; a drag ends without selecting the node it started on.
  let drag: { x: number; y: number; moved: boolean; pointer: number } | undefined;
  svg.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || (event.pointerType === 'touch' && !active())) return;
    drag = { x: event.clientX, y: event.clientY, moved: false, pointer: event.pointerId };
  });
  svg.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.pointer || pinch.pinching()) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    if (!drag.moved) {
      drag.moved = true;
      svg.setPointerCapture(event.pointerId);
      svg.classList.add('dragging');
    }
    drag.x = event.clientX;
    drag.y = event.clientY;
    camera.x -= dx / camera.scale;
    camera.y -= dy / camera.scale;
    schedule(true);
  });
  const endDrag = () => {
    if (drag?.moved) {
      svg.classList.remove('dragging');
      // The click that ends a drag is not a click on a node.
      svg.addEventListener('click', stop, { capture: true });
      setTimeout(() => svg.removeEventListener('click', stop, { capture: true }), 0);
    }
    drag = undefined;
  };
  const stop = (event: Event) => event.stopPropagation();
  svg.addEventListener('pointerup', endDrag);
  svg.addEventListener('pointercancel', () => {
    svg.classList.remove('dragging');
    drag = undefined;
  });

  // A node reached with Tab comes into view.
  svg.addEventListener('focusin', (event) => {
    const id = (event.target as Element).getAttribute?.('data-id');
    if (!drawing || id === null) return;
    const label = drawing.labels.find((l) => l.element.parentElement === event.target);
    if (!label) return;
    const [width, height] = size();
    const sx = (label.x - camera.x) * camera.scale + width / 2;
    const sy = (label.y - camera.y) * camera.scale + height / 2;
    if (sx < 0 || sx > width || sy < 0 || sy > height) {
      camera.x = label.x;
      camera.y = label.y;
      schedule();
    }
  });

  new ResizeObserver(() => {
    known = read();
    schedule();
  }).observe(svg);

  const view: SvgCamera = {
    show(next, keep) {
      // The same drawing again (another state painted into it): its nodes' names are as they were.
      if (next !== drawing || widths.length !== next.labels.length)
        widths = next.labels.map((label) => labelWidth(label.element.textContent ?? ''));
      drawing = next;
      edgeLabelWidths = next.edgeLabels.map((label) => labelWidth(label.element.textContent ?? ''));
      const widest = Math.max(0, ...widths.slice(0, 2000));
      room = { left: PAD.side + Math.min(90, widest / 2), right: PAD.side + Math.min(140, widest) };
      if (!keep) {
        // The height the drawing takes at the full width, within a sensible range.
        const width = Math.max(1, svg.clientWidth);
        const scale = Math.min(
          MAX_FIT_SCALE,
          (width - room.left - room.right) / Math.max(next.bounds.width, 1),
        );
        const natural = next.bounds.height * scale + PAD.top + PAD.bottom;
        svg.style.height = `${Math.round(Math.min(window.innerHeight * 0.7, Math.max(MIN_HEIGHT_PX, natural)))}px`;
        known = undefined;
        fitCamera();
      }
      if (frame !== undefined) cancelAnimationFrame(frame);
      apply();
    },
    zoomBy(factor) {
      const [width, height] = size();
      zoomAt(factor, width / 2, height / 2);
    },
    panBy(dx, dy) {
      camera.x += dx / camera.scale;
      camera.y += dy / camera.scale;
      schedule();
    },
    fit() {
      fitCamera();
      schedule();
    },
    width: () => size()[0],
    whole(read) {
      if (!drawing) return read();
      const { bounds } = drawing;
      const width = bounds.width + room.left + room.right;
      const height = bounds.height + PAD.top + PAD.bottom;
      const left = bounds.x - room.left;
      const top = bounds.y - PAD.top;
      svg.setAttribute('viewBox', `${left} ${top} ${width} ${height}`);
      placeLabels(1, left, top, width, height);
      try {
        return read();
      } finally {
        apply();
      }
    },
  };
  return view;
}
