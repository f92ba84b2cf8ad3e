import type { NodeState } from '../../lib/engine/types';

/** A glyph beside a node: where value leaves the system (an exit) or multiplies (fan-out). */
export type Mark = 'exit' | 'fanout';

/**
 * Which marks a state's nodes get. A mark every node carries tells one node from another by
 * nothing and buries the graph under glyphs (every service of a Kiali, Jaeger or X-Ray graph is
 * fan-out): it is left off, and `unmarked` names it for the key under the graph.
 */
export interface Marks {
  of(node: NodeState): Mark | undefined;
  /** The kinds every node carries, so none is drawn (empty when the graph has no node). */
  unmarked: Mark[];
}

const hasMark = (node: NodeState, mark: Mark) =>
  mark === 'fanout' ? node.fanout === true : (node.exit ?? 0) > 0;

/** The marks of `nodes`: fan-out before an exit on a node with both, as before. */
export function marksOf(nodes: readonly NodeState[]): Marks {
  const unmarked = (['fanout', 'exit'] as const).filter(
    (mark) => nodes.length > 0 && nodes.every((node) => hasMark(node, mark)),
  );
  const drawn = (['fanout', 'exit'] as const).filter((mark) => !unmarked.includes(mark));
  return { of: (node) => drawn.find((mark) => hasMark(node, mark)), unmarked };
}

/** The key's words for the marks left off: `Every node fans out: not marked.`, or empty. */
export function unmarkedText(unmarked: readonly Mark[]): string {
  if (unmarked.length === 0) return '';
  const what = unmarked.map((mark) => (mark === 'fanout' ? 'fans out' : 'has an exit')).join(' and ');
  return `Every node ${what}: not marked.`;
}
