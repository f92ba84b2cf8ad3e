import { isNavKey, nextNode } from './graph-nav';
import type { GraphTooltip } from './graph-tooltip';
import { pointAnchor } from './graph-tooltip';
import type { GraphDrawing } from './graph-view';
import { trackTaps } from './taps';

/** The node (an option of the listbox) an event happened on, if any. */
const nodeOf = (target: EventTarget | null): SVGGElement | null =>
  target instanceof Element ? target.closest<SVGGElement>('#graph .node') : null;

/**
 * The SVG view for the keyboard, screen readers, the pointer and touch. The graph is a listbox
 * whose options are its nodes, and one tab stop: only the current node has `tabindex="0"` (a
 * roving tabindex). Arrow keys move it to the nearest node that way, Home and End to the first and
 * last (graph-nav.ts); Enter and Space select it, and the focus stays on it through the redraw
 * that follows. Shift with an arrow pans (the figure's keys, graph-panel.ts). Hovering a node or a
 * dependency, focusing a node or tapping it shows its numbers in the shared tooltip.
 */
export function createSvgNodeKeys(svg: SVGSVGElement, tooltip: GraphTooltip, select: (id: string) => void) {
  let drawing: GraphDrawing | undefined;
  /** The node holding the tab stop, kept across redraws while it is drawn. */
  let current: string | undefined;
  /** What the pointer is over, while its tooltip shows. */
  let hovered: Element | undefined;
  /** A node's or a dependency's hover text, as of the state drawn last. */
  const textOf = (element: Element): string => drawing?.hoverText(element) ?? '';
  const nodes = () => [...svg.querySelectorAll<SVGGElement>('.node')];

  function makeCurrent(node: SVGGElement): void {
    for (const other of svg.querySelectorAll('.node[tabindex="0"]'))
      if (other !== node) other.setAttribute('tabindex', '-1');
    node.setAttribute('tabindex', '0');
    current = node.dataset.id;
  }

  svg.addEventListener('keydown', (event) => {
    const node = nodeOf(event.target);
    if (!node || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      select(node.dataset.id!);
      return;
    }
    if (event.key === 'Escape') {
      tooltip.dismiss();
      return;
    }
    if (event.shiftKey || !isNavKey(event.key) || drawing === undefined) return;
    event.preventDefault();
    const all = nodes();
    const { labels } = drawing;
    const to = nextNode(
      event.key,
      all.indexOf(node),
      all.length,
      (i) => labels[i]!.x,
      (i) => labels[i]!.y,
    );
    const next = to === undefined ? undefined : all[to];
    if (next === undefined) return;
    makeCurrent(next);
    next.focus();
  });

  svg.addEventListener('focusin', (event) => {
    const node = nodeOf(event.target);
    if (!node) return;
    makeCurrent(node);
    tooltip.show('focus', textOf(node), node.getBoundingClientRect());
  });
  svg.addEventListener('focusout', (event) => {
    if (!svg.contains(event.relatedTarget as Node | null)) tooltip.hide('focus');
  });

  // A phone has no Escape and no pointer to move away: a tap on the background, or on the node
  // whose numbers are on show, puts them away (they covered the graph's controls for good).
  let tappedFocused = false;
  const taps = trackTaps(svg);
  svg.addEventListener('pointerdown', (event) => {
    if (event.pointerType !== 'touch') return;
    const node = nodeOf(event.target);
    tappedFocused = node !== null && node === document.activeElement;
  });
  svg.addEventListener('pointerup', (event) => {
    // A tap, not a drag or a pinch: a finger that moved pans the graph and leaves the numbers.
    if (!taps.isTap(event) || !(event.target instanceof Element)) return;
    const on = event.target.closest('#graph .node, #graph .edge');
    if (on === null) tooltip.dismiss();
    else if (tappedFocused) {
      // Tap after tap on one node: its numbers off, then on again (no focus event brings them).
      const node = nodeOf(event.target);
      if (tooltip.showing('focus')) tooltip.dismiss();
      else if (node !== null) tooltip.show('focus', textOf(node), node.getBoundingClientRect());
    }
  });

  // Hover (a mouse or a pen; a tap focuses the node, above).
  svg.addEventListener('pointerover', (event) => {
    if (event.pointerType === 'touch' || !(event.target instanceof Element)) return;
    const over = event.target.closest('#graph .node, #graph .edge');
    if (!over) return;
    hovered = over;
    tooltip.show('hover', textOf(over), pointAnchor(event.clientX, event.clientY));
  });
  svg.addEventListener('pointerout', (event) => {
    if (!(event.target instanceof Element)) return;
    const left = event.target.closest('#graph .node, #graph .edge');
    const into = event.relatedTarget instanceof Element ? event.relatedTarget.closest('.node, .edge') : null;
    if (left && left !== into) {
      hovered = undefined;
      tooltip.hide('hover');
    }
  });

  return {
    /**
     * A new drawing: the node that held the tab stop keeps it if drawn, else the first of
     * `preferred` drawn (the selected node, the primary blockage), else the first node; and when
     * the graph had the focus before the redraw (`hadFocus`), that node has it again.
     */
    drawn(next: GraphDrawing, preferred: ReadonlyArray<string | null | undefined>, hadFocus: boolean): void {
      // Another state painted into the same drawing (a timeline's step) keeps what the pointer is
      // over: its tooltip shows that state's numbers. A new drawing replaced it: the tooltip goes
      // until the pointer moves.
      // (Unless Escape dismissed it: it stays hidden until the pointer shows it again.)
      const same =
        next === drawing && hovered !== undefined && hovered.isConnected && tooltip.showing('hover');
      drawing = next;
      if (same) tooltip.retext('hover', textOf(hovered!));
      else {
        hovered = undefined;
        tooltip.hide('hover');
      }
      const all = nodes();
      if (all.length === 0) {
        tooltip.hide('focus');
        return;
      }
      const byId = new Map(all.map((node) => [node.dataset.id!, node]));
      const id = [current, ...preferred].find((candidate) => candidate != null && byId.has(candidate));
      const node = id == null ? all[0]! : byId.get(id)!;
      makeCurrent(node);
      if (hadFocus) node.focus({ preventScroll: true });
      else tooltip.hide('focus');
    },
  };
}
