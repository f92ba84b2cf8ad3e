/** A camera of the WebGL view: its centre in world units and its zoom. */
export interface HeldCamera {
  x: number;
  y: number;
  zoom: number;
}

/**
 * A held frame may be shown scaled up to this many times: past it, points grow blocky and fat
 * enough to mislead (a new frame is drawn instead).
 */
const MAX_SCALE = 2;
/** …and only while at most this share of the view is left empty by the move (a new frame is drawn then). */
const MAX_EMPTY = 0.25;

/**
 * The last frame the WebGL view drew, shown moved and scaled by a CSS transform of `stage` (the
 * element holding its canvases) while the camera moves, instead of drawing the scene again.
 *
 * Why: in software WebGL (SwiftShader, where there is no GPU) a frame of 20,000 points costs the
 * GPU process ~15 ms and the page as long again waiting to read the frame back for the software
 * compositor (measured with Chromium's trace: docs/explorer.md); a changed transform costs
 * neither, only the compositor's copy of the layer. The picture at rest is drawn as before, with
 * the transform cleared: the caller draws again once the camera rests.
 *
 * `project` is where a world point is drawn with the current camera, in CSS pixels of the view.
 */
export function holdFrames(
  stage: HTMLElement,
  project: (x: number, y: number) => [number, number],
): {
  /** A frame was just drawn with `camera`: shown as it is. */
  drawn(camera: HeldCamera): void;
  /** The frame drawn no longer stands for the view (resized, or its overlay changed). */
  forget(): void;
  /**
   * Shows the held frame where the current camera (`camera`) would draw it. False, leaving the
   * view as it was, when there is none, or it would be scaled up past `MAX_SCALE` or leave over
   * `MAX_EMPTY` of the view empty: the caller draws a frame then.
   */
  show(camera: HeldCamera): boolean;
} {
  let held: HeldCamera | undefined;
  let transform = '';
  const setTransform = (value: string) => {
    // Written only when it changes: each write costs the page a style and paint-property update.
    if (value !== transform) stage.style.transform = value;
    transform = value;
  };
  return {
    drawn(camera) {
      held = { ...camera };
      setTransform('');
    },
    forget() {
      held = undefined;
    },
    show(camera) {
      if (held === undefined) return false;
      const factor = camera.zoom / held.zoom;
      if (factor > MAX_SCALE) return false;
      const width = stage.clientWidth;
      const height = stage.clientHeight;
      if (width === 0 || height === 0) return false;
      // The held frame's centre is the held camera's: where the current camera draws that point.
      const [cx, cy] = project(held.x, held.y);
      const ratio = window.devicePixelRatio || 1;
      // Whole device pixels while not scaled, so the compositor copies the layer without resampling.
      const dx = factor === 1 ? Math.round((cx - width / 2) * ratio) / ratio : cx - width / 2;
      const dy = factor === 1 ? Math.round((cy - height / 2) * ratio) / ratio : cy - height / 2;
      const covered =
        overlap(cx - (factor * width) / 2, cx + (factor * width) / 2, width) *
        overlap(cy - (factor * height) / 2, cy + (factor * height) / 2, height);
      if (covered < (1 - MAX_EMPTY) * width * height) return false;
      setTransform(
        factor === 1 ? `translate(${dx}px, ${dy}px)` : `translate(${dx}px, ${dy}px) scale(${factor})`,
      );
      return true;
    },
  };
}

/** How much of [0, size] the span [from, to] covers. */
function overlap(from: number, to: number, size: number): number {
  return Math.max(0, Math.min(to, size) - Math.max(from, 0));
}
