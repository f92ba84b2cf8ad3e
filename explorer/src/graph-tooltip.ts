import { $ } from './dom';

/** Where a tooltip points at, in the page's client coordinates. */
export interface Anchor {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * The one tooltip of the graph, for both views: a node's or a dependency's numbers (hover-text.ts)
 * shown on hover, on keyboard focus and on a tap, beside what it describes and inside the figure.
 * What shows is what is hovered, else what has the keyboard's focus; Escape hides it.
 */
export interface GraphTooltip {
  /** Shows `text` for `anchor`, from `source` (`hover` or `focus`). */
  show(source: 'hover' | 'focus', text: string, anchor: Anchor): void;
  /** `source` no longer shows anything: the other one's text comes back, if any. */
  hide(source: 'hover' | 'focus'): void;
  /** Hides it until the next show (Escape). */
  dismiss(): void;
  /** Whether `source` has something on show (a dismissed tooltip has not). */
  showing(source: 'hover' | 'focus'): boolean;
  /**
   * New text for what `source` shows, in the same place (a timeline's step redrew it): written at
   * once, placed again at the next frame, so a step forces no layout from script.
   */
  retext(source: 'hover' | 'focus', text: string): void;
}

/** Room between the tooltip and what it describes, in pixels. */
const GAP = 10;

export function createGraphTooltip(): GraphTooltip {
  const tip = $('graph-tooltip');
  const figure = $('graph-figure');
  const shown: Partial<Record<'hover' | 'focus', { text: string; anchor: Anchor }>> = {};
  let placing: number | undefined;

  function place(): void {
    const what = shown.hover ?? shown.focus;
    if (what === undefined) {
      tip.hidden = true;
      return;
    }
    tip.textContent = what.text;
    tip.hidden = false;
    const box = figure.getBoundingClientRect();
    const width = tip.offsetWidth;
    const height = tip.offsetHeight;
    const { anchor } = what;
    // Right of and below what it describes, kept inside the figure; above it when there is no room below.
    let left = Math.min(anchor.right + GAP - box.left, box.width - width - 4);
    left = Math.max(4, left);
    let top = anchor.bottom + GAP - box.top;
    if (top + height > box.height && anchor.top - box.top - GAP - height >= 0)
      top = anchor.top - box.top - GAP - height;
    // Never past the figure's bottom, over what follows it.
    top = Math.max(0, Math.min(top, box.height - height));
    tip.style.left = `${left}px`;
    tip.style.top = `${top}px`;
  }

  return {
    show(source, text, anchor) {
      shown[source] = { text, anchor };
      place();
    },
    hide(source) {
      delete shown[source];
      place();
    },
    dismiss() {
      delete shown.hover;
      delete shown.focus;
      place();
    },
    showing(source) {
      return shown[source] !== undefined;
    },
    retext(source, text) {
      const what = shown[source];
      if (what === undefined) return;
      what.text = text;
      if ((shown.hover ?? shown.focus) === what) tip.textContent = text;
      if (placing !== undefined) return;
      placing = requestAnimationFrame(() => {
        placing = undefined;
        place();
      });
    },
  };
}

/** A point (the pointer) as an anchor. */
export const pointAnchor = (x: number, y: number): Anchor => ({ left: x, top: y, right: x, bottom: y });
