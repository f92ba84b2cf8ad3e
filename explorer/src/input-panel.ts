import { $ } from './dom';
import { EXAMPLES } from './examples';
import { checkedNumberField, type NumberRule } from './number-field';

/** Request fields added on top of the body as written, for one run (`scenario`, `compare`, …). */
export type ExtraFields = Readonly<Record<string, unknown>>;

/** The structure editor and how to run it: examples, dropped files, mode, server, shared links. */
export interface InputPanel {
  /**
   * The body to send: as written, or with `mode` (and `ticks`) set at the top level, plus any
   * `extra` fields. A body that is not a JSON object is sent as written (the engine names the
   * problem, as the API does).
   */
  bodyToRun(extra?: ExtraFields): string;
  /**
   * Whether the fields a run reads hold what they take (the tick count, when run as `ticks`);
   * when not, the status line says so and the first bad field takes the focus: nothing is run.
   */
  checkFields(): boolean;
  /** Replaces the editor's text, and the caption with `about`. */
  setBody(text: string, about: string): void;
  readonly onServer: boolean;
  readonly apiKey: string;
  setStatus(text: string): void;
  /** Loads the structure a shared link carries (and runs it), else the first example. */
  start(): void;
}

const KEY_STORAGE = 'sbe-explorer-api-key';
const SHARE_LIMIT_BYTES = 16 * 1024;

/**
 * The tick count, as the API takes it (lib/api/schemas.ts, `Ticks`): a whole number from 1 to
 * 1000 (a deployment may set a lower maximum: its error answer says so). Empty: the API's default.
 */
const TICKS: NumberRule = {
  accepts: (value) => Number.isInteger(value) && value >= 1 && value <= 1000,
  takes: 'Ticks is a whole number from 1 to 1000.',
};

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(encoded: string): string {
  const binary = atob(encoded.replaceAll('-', '+').replaceAll('_', '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

export function createInputPanel(run: () => void): InputPanel {
  const bodyInput = $<HTMLTextAreaElement>('body');
  const exampleSelect = $<HTMLSelectElement>('example');
  const exampleAbout = $('example-about');
  const runAs = $<HTMLSelectElement>('run-as');
  const tickCount = $<HTMLInputElement>('tick-count');
  const ticks = checkedNumberField(tickCount, TICKS, $('tick-count-problem'));
  const onServer = $<HTMLInputElement>('on-server');
  const apiKeyInput = $<HTMLInputElement>('api-key');
  const statusLine = $('status');

  const panel: InputPanel = {
    bodyToRun(extra = {}) {
      const text = bodyInput.value;
      if (runAs.value === 'written' && Object.keys(extra).length === 0) return text;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return text;
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return text;
      const body: Record<string, unknown> = { ...(parsed as Record<string, unknown>), ...extra };
      if (runAs.value !== 'written') {
        body.mode = runAs.value;
        const count = ticks.read();
        // A bad count never gets here (checkFields); empty leaves the body's own, or the default.
        if (runAs.value === 'ticks' && count.valid && typeof count.value === 'number')
          body.ticks = count.value;
        else if (runAs.value !== 'ticks') delete body.ticks;
      }
      return JSON.stringify(body);
    },
    checkFields() {
      if (runAs.value !== 'ticks' || ticks.check().valid) return true;
      panel.setStatus('Not run: ticks is not a whole number from 1 to 1000. Fix it or empty it first.');
      tickCount.focus();
      return false;
    },
    setBody(text, about) {
      showBody(text, about);
      forgetLink();
    },
    get onServer() {
      return onServer.checked;
    },
    get apiKey() {
      return apiKeyInput.value.trim();
    },
    setStatus(text) {
      statusLine.textContent = text;
    },
    start() {
      const shared = /^#body=([A-Za-z0-9_-]+)$/.exec(location.hash);
      if (!shared) {
        const unreadable = location.hash.startsWith('#body=');
        loadExample(0);
        // A link that names a body the page cannot read says so (it showed the first example
        // with no word, as if the link held nothing).
        if (unreadable) panel.setStatus('The link does not carry a readable structure.');
        return;
      }
      try {
        showBody(fromBase64Url(shared[1]!), 'From the link.');
      } catch {
        panel.setStatus('The link does not carry a readable structure.');
        return;
      }
      run();
    },
  };

  function loadExample(index: number): void {
    const example = EXAMPLES[index];
    if (!example) return;
    panel.setBody(JSON.stringify(example.body(), null, index === EXAMPLES.length - 1 ? 0 : 2), example.about);
    exampleSelect.value = String(index);
  }

  function showBody(text: string, about: string): void {
    bodyInput.value = text;
    exampleAbout.textContent = about;
    exampleSelect.value = '';
  }

  /**
   * The address bar's `#body=…` carries the structure the link was made of: once the editor holds
   * another (an example, an edit, a file, a stored system), it goes, so that a reload or a copied
   * address does not bring back the old one in place of what is shown.
   */
  function forgetLink(): void {
    if (location.hash.startsWith('#body='))
      history.replaceState(null, '', location.pathname + location.search);
  }

  // Shown when the text is no example (edited, dropped, a stored system); picking an example
  // again then loads it afresh.
  const ownText = document.createElement('option');
  ownText.value = '';
  ownText.textContent = '(your own)';
  ownText.hidden = true;
  exampleSelect.append(ownText);
  for (const [index, example] of EXAMPLES.entries()) {
    const option = document.createElement('option');
    option.value = String(index);
    option.textContent = example.name;
    exampleSelect.append(option);
  }
  exampleSelect.addEventListener('change', () => loadExample(Number(exampleSelect.value)));
  // A JSON file dropped on the editor replaces its text (read here; nothing is uploaded).
  bodyInput.addEventListener('dragover', (event) => event.preventDefault());
  // Typed or pasted text is no longer the example the caption describes.
  bodyInput.addEventListener('input', () => {
    exampleAbout.textContent = '';
    exampleSelect.value = '';
    forgetLink();
  });
  bodyInput.addEventListener('drop', async (event) => {
    const file = event.dataTransfer?.files[0];
    if (!file) return;
    event.preventDefault();
    panel.setBody(await file.text(), `From ${file.name}.`);
  });
  $('run').addEventListener('click', run);
  $('load-worked').addEventListener('click', () => {
    exampleSelect.value = '0';
    loadExample(0);
    run();
  });
  apiKeyInput.value = sessionStorage.getItem(KEY_STORAGE) ?? '';
  apiKeyInput.addEventListener('change', () => sessionStorage.setItem(KEY_STORAGE, apiKeyInput.value.trim()));
  onServer.addEventListener('change', () => {
    $('key-row').hidden = !onServer.checked;
  });
  $('share').addEventListener('click', () => {
    const body = bodyInput.value;
    const size = new TextEncoder().encode(body).length;
    if (size > SHARE_LIMIT_BYTES) {
      panel.setStatus(
        `A link carries structures up to ${SHARE_LIMIT_BYTES / 1024} KB; this one is ${Math.ceil(size / 1024)} KB.`,
      );
      return;
    }
    // The fragment never leaves the browser: the structure is not sent to any server.
    history.replaceState(null, '', `#body=${toBase64Url(body)}`);
    panel.setStatus('The link in the address bar now carries this structure.');
  });

  return panel;
}
