import type { EngineResult } from '../../lib/engine/types';
import { $ } from './dom';
import { isNavKey, nextNode } from './graph-nav';
import { type Anchor, type GraphTooltip, pointAnchor } from './graph-tooltip';
import type { LargeGraphView } from './large-graph';
import { trackTaps } from './taps';

/** What the WebGL view's keys need of the page. */
export interface LargeGraphHost {
  view(): LargeGraphView | undefined;
  /** The state on show. */
  state(): EngineResult | undefined;
  selected(): string | undefined;
  /** A node's hover text (hover-text.ts), for the tooltip and, in one line, the live region. */
  hoverText(result: EngineResult, index: number): string;
  select(id: string): void;
}

/** Room around a point for the tooltip, in pixels. */
const POINT_ROOM = 8;

const around = ([x, y]: [number, number]): Anchor => ({
  left: x - POINT_ROOM,
  top: y - POINT_ROOM,
  right: x + POINT_ROOM,
  bottom: y + POINT_ROOM,
});

/**
 * The WebGL view for the keyboard, screen readers, the pointer and touch: one tab stop (the
 * container) whose keys move a drawn focus ring among the nodes, as the SVG view's (arrows to the
 * nearest node that way, Home, End: graph-nav.ts; Enter and Space select), the ringed node's
 * numbers in the shared tooltip and, in one line, in a live region for screen readers (there is
 * no element per node to focus). Hovering a node shows its numbers too; a tap selects it.
 */
export function createLargeGraphKeys(container: HTMLElement, tooltip: GraphTooltip, host: LargeGraphHost) {
  const live = $('large-graph-focus');
  /** The node the keyboard is on, and the selection it last followed. */
  let current: number | undefined;
  let followed: string | undefined;

  const indexOf = (result: EngineResult, id: string | null | undefined) =>
    id == null ? -1 : result.nodes.findIndex((node) => node.id === id);

  function show(spoken: boolean): void {
    const view = host.view();
    const result = host.state();
    if (view === undefined || result === undefined || current === undefined) return;
    view.setFocus(current);
    const text = host.hoverText(result, current);
    // After the camera has moved to it (setFocus), at the next frame.
    requestAnimationFrame(() => {
      if (document.activeElement === container && current !== undefined)
        tooltip.show('focus', text, around(view.clientPoint(current)));
    });
    if (spoken) live.textContent = text.replaceAll('\n', '; ');
  }

  container.addEventListener('focus', () => {
    const result = host.state();
    if (result === undefined || result.nodes.length === 0) return;
    if (current === undefined || current >= result.nodes.length) {
      const preferred = [host.selected(), result.primaryBlockage]
        .map((id) => indexOf(result, id))
        .find((index) => index >= 0);
      current = preferred ?? 0;
    }
    show(true);
  });
  container.addEventListener('blur', () => {
    host.view()?.setFocus(undefined);
    tooltip.hide('focus');
  });

  container.addEventListener('keydown', (event) => {
    const view = host.view();
    const result = host.state();
    if (view === undefined || result === undefined || current === undefined) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      host.select(result.nodes[current]!.id);
      return;
    }
    if (event.key === 'Escape') {
      tooltip.dismiss();
      return;
    }
    if (event.shiftKey || !isNavKey(event.key)) return;
    event.preventDefault();
    const next = nextNode(
      event.key,
      current,
      result.nodes.length,
      (i) => view.position(i)[0],
      (i) => view.position(i)[1],
    );
    if (next === undefined) return;
    current = next;
    show(true);
  });

  // Hover, with a mouse or a pen (a tap selects, and the selection takes the keyboard's place).
  container.addEventListener('pointermove', (event) => {
    if (event.pointerType === 'touch' || event.buttons !== 0) return;
    const view = host.view();
    const result = host.state();
    const at = view?.nodeAt(event.clientX, event.clientY);
    if (result === undefined || at === undefined) tooltip.hide('hover');
    else tooltip.show('hover', host.hoverText(result, at), pointAnchor(event.clientX, event.clientY));
  });
  container.addEventListener('pointerleave', () => tooltip.hide('hover'));

  // A phone has no Escape: a tap (not a drag or a pinch) on the view's background puts the
  // numbers away.
  const taps = trackTaps(container);
  container.addEventListener('pointerup', (event) => {
    if (taps.isTap(event) && host.view()?.nodeAt(event.clientX, event.clientY) === undefined)
      tooltip.dismiss();
  });

  return {
    /** A new view (another structure): the keyboard starts again from its default node. */
    reset(): void {
      current = undefined;
      followed = undefined;
      live.textContent = '';
    },
    /** The view was redrawn: a new selection takes the keyboard's place; the ring and tooltip follow. */
    rendered(): void {
      const result = host.state();
      const selected = host.selected();
      if (result !== undefined && selected !== followed) {
        followed = selected;
        const index = indexOf(result, selected);
        if (index >= 0) current = index;
      }
      if (document.activeElement === container) show(false);
    },
  };
}
