import { $ } from './dom';

/**
 * "Skip the graph", before it: shown on focus, it moves the focus past the graph, its key and the
 * node table to the What-if panel (its summary). Done here rather than by following the link's
 * `#scenario-panel`, which would replace a shared link's `#body=…` in the address bar.
 */
export function wireSkipLink(): void {
  $('skip-graph').addEventListener('click', (event) => {
    event.preventDefault();
    const target = $('scenario-panel').querySelector('summary')!;
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'start' });
  });
}
