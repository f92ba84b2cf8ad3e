import { createBehaviour } from './behaviour';
import { createInputPanel, type ExtraFields } from './input-panel';
import type { ExplorerPage } from './page';
import { runInWorker, runOnServer } from './runner';
import { createScenarioPanel } from './scenario-panel';
import { createSystemsPanel } from './systems-panel';

/**
 * The explorer page: the input panel (structure, examples, how to run it), the Behaviour section
 * (summary, graph, timeline, events and details) and the systems panel, wired together. A panel
 * of its own gets an `ExplorerPage` (see page.ts) and one line here.
 */
const behaviour = createBehaviour();
const input = createInputPanel(() => void run());

async function run(extra: ExtraFields = {}): Promise<void> {
  const body = input.bodyToRun(extra);
  const onServer = input.onServer;
  document.body.dataset.state = 'running';
  input.setStatus(onServer ? 'Running on the server…' : 'Running in the browser…');
  const answer = onServer ? await runOnServer(body, input.apiKey) : await runInWorker(body);
  const where = input.onServer ? 'on the server' : 'in the browser, same bytes as the API';
  input.setStatus(behaviour.show(answer, where, { body, onServer }));
  document.body.dataset.state = answer.status === 200 ? 'done' : 'error';
}

createSystemsPanel({ setBody: input.setBody, run: () => run() });

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

input.start();
