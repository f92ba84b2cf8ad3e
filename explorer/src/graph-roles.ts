/**
 * Gives a graph view its interactive role and tab index. The page's HTML declares both views as
 * images (what they are before there is anything to pick); holding nodes to move among and select,
 * the SVG view is a listbox of its nodes (svg-node-keys.ts) and the WebGL view, which has no
 * element per node to be an option, an `application` that takes the keys itself and speaks the
 * node it is on through a live region (large-graph-keys.ts).
 */
export function setInteractive(element: Element, role: 'listbox' | 'application', tabIndex: number): void {
  element.setAttribute('role', role);
  element.setAttribute('tabindex', String(tabIndex));
  if (role === 'application') element.setAttribute('aria-roledescription', 'graph');
}
