import { $ } from './dom';
import type { NodeSizing } from './node-size';
import { marksAnything, type ScenarioMarks } from './scenario-marks';

/** Which view draws the graph: each draws its own marks, and the key lists only those. */
export type GraphViewKind = 'svg' | 'webgl';

const span = (className: string, text: string): HTMLSpanElement => {
  const element = document.createElement('span');
  element.className = className;
  element.textContent = text;
  return element;
};

/**
 * The key under the graph, for the marks the view on show draws: the SVG view's rings, dashes,
 * outlines and badges, or the WebGL view's coloured points, lines (arrowheads once zoomed in) and glyphs (no rings, no
 * dashes, no outlines: it draws none), and, for a comparison, the scenario's marks it has
 * (hatched down nodes, dashed red cut dependencies, capacity tags), each only when one is drawn.
 * With the force layout (`force`) no dependency is dashed as pointing back: there are no layers.
 */
export function renderGraphKey(
  kind: GraphViewKind,
  marks: ScenarioMarks | undefined,
  force = false,
  sizedBy: NodeSizing['measure'] = 'load',
): void {
  const viewKey = $('view-key');
  const badgeKey = $('badge-key');
  const scenarioKey = $('scenario-key');
  if (kind === 'svg') {
    viewKey.replaceChildren(
      `Size: ${sizedBy}. Rings: `,
      span('key blockage', 'primary blockage'),
      ', ',
      span('key origin', 'origin'),
      `. Thick orange: the trace.${force ? '' : ' Dashed: dependencies pointing back (cycles).'} Grey outline (wider as you zoom in): a capacity.`,
    );
    badgeKey.replaceChildren(
      'Red outline and badge, in the steady state of an open structure: ',
      span('key-badge', '!'),
      ' saturated (over capacity), ',
      span('key-badge', '✕'),
      ' losing traffic (down, or its way out cut), ',
      span('key-badge', '∞'),
      ' unbounded.',
    );
  } else {
    viewKey.replaceChildren(
      `Size: ${sizedBy}. `,
      span('key blockage', 'Orange point: the primary blockage'),
      ', ',
      span('key origin', 'green point: the origin'),
      ' (both large and named; so are the node traffic saturates first and the entry that misses its SLO first). Orange lines: the trace. Zoomed in, an arrowhead at the end each dependency calls.',
    );
    badgeKey.replaceChildren(
      'Red glyph beside a node, in the steady state of an open structure: ',
      span('key-glyph', '!'),
      ' saturated (over capacity), ',
      span('key-glyph', '✕'),
      ' losing traffic (down, or its way out cut), ',
      span('key-glyph', '∞'),
      ' unbounded.',
    );
  }
  scenarioKey.replaceChildren();
  scenarioKey.hidden = !marksAnything(marks);
  if (!marksAnything(marks)) return;
  const parts: Array<string | HTMLElement> = ['In the scenario: '];
  const said: Array<Array<string | HTMLElement>> = [];
  if (marks.down.size > 0) said.push([span('key-hatch', ' '), ' hatched: down']);
  if (marks.cut.length > 0)
    said.push([span('key-cut', ' '), ' dashed red: a dependency cut (drawn where it was)']);
  if (marks.capacity.size > 0)
    said.push([
      span('key-tag', '↑30'),
      ' a capacity changed (↑ raised, ↓ lowered or set, ∅ removed; the new capacity)',
    ]);
  for (const [i, item] of said.entries()) parts.push(...(i === 0 ? [] : ['; ']), ...item);
  parts.push('.');
  scenarioKey.append(...parts);
}
