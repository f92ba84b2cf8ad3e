import { createBehaviour } from './behaviour';
import { createInputPanel } from './input-panel';
import type { ExplorerPage } from './page';
import { revealResult } from './reveal-result';
import { createRuns, SERVER_TIMEOUT_MS } from './runs';
import { createScenarioPanel } from './scenario-panel';
import { wireSkipLink } from './skip-link';
import { createSystemsPanel } from './systems-panel';

/**
 * The explorer page: the input panel (structure, examples, how to run it), the Behaviour section
 * (summary, graph, timeline, events and details) and the systems panel, wired together. A panel
 * of its own gets an `ExplorerPage` (see page.ts) and one line here.
 */
const behaviour = createBehaviour();
const input = createInputPanel(() => void run().then(revealResult));
const run = createRuns(input, behaviour, SERVER_TIMEOUT_MS);

const systems = createSystemsPanel({
  setBody: input.setBody,
  run: () => run(),
  runsSoFar: run.startedSoFar,
});
behaviour.setCapacitiesOnShow(systems.capacitiesOnShow);

const page: ExplorerPage = {
  rerun: run,
  onAnswer: behaviour.onAnswer,
  setColouring(colouring) {
    behaviour.graph.setColouring(colouring);
    behaviour.render();
  },
  select: behaviour.select,
};
// The browser tests drive the seam through this, as a panel module would.
(globalThis as { explorerPage?: ExplorerPage }).explorerPage = page;
createScenarioPanel(page);
wireSkipLink();

input.start();
