import { type CapacityChange, capacityChangeText, capacityTag } from './scenario-marks';
import { svgElement } from './svg';

/** The id of the hatch pattern a down node is filled with over its colour. */
const HATCH_ID = 'hatch-down';

/** Diagonal stripes, dark and half see-through, so the node's colour still shows between them. */
export function hatchPattern(): SVGPatternElement {
  const pattern = svgElement('pattern', {
    id: HATCH_ID,
    width: 6,
    height: 6,
    patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)',
  });
  pattern.append(svgElement('rect', { width: 2.5, height: 6, class: 'hatch-stripe' }));
  return pattern;
}

/** A down node's hatch: a circle over its body (the camera resizes it with the body). */
export function downHatch(radius: number): SVGCircleElement {
  return svgElement('circle', { r: radius, class: 'hatch', fill: `url(#${HATCH_ID})` });
}

/** The tag's height and the width of one character of it, in the drawing's units. */
const TAG_HEIGHT = 13;
const TAG_CHAR = 7;

/**
 * A capacity the scenario changed: a dark tag at the node's lower right with an arrow and the new
 * capacity (`↑30`, `↓2`, `∅`), the change in words on hover. Not a circle, so the camera leaves
 * its size alone, as the steady state's badges.
 */
export function capacityBadge(change: CapacityChange, radius: number): SVGGElement {
  const at = radius * Math.SQRT1_2;
  const text = capacityTag(change);
  const width = TAG_CHAR * [...text].length + 6;
  const badge = svgElement('g', { class: 'capacity-badge', transform: `translate(${at} ${at})` });
  badge.append(
    svgElement('rect', { x: -3, y: -TAG_HEIGHT / 2, width, height: TAG_HEIGHT, rx: 3 }),
    (() => {
      const glyph = svgElement('text', { x: width / 2 - 3, y: 4 });
      glyph.textContent = text;
      return glyph;
    })(),
    (() => {
      // Said in the node's hover text and spoken label too; a <desc>, so no second tooltip.
      const desc = svgElement('desc', {});
      desc.textContent = capacityChangeText(change);
      return desc;
    })(),
  );
  return badge;
}
