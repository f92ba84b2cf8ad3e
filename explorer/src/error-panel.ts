import { $ } from './dom';
import type { RunAnswer } from './protocol';

/** An error answer in the API's own words: its code, message, and each detail's path. */
export function createErrorPanel() {
  const errorPanel = $('error');
  return {
    show(answer: RunAnswer): void {
      errorPanel.hidden = false;
      errorPanel.replaceChildren();
      let parsed: {
        error?: { code?: string; message?: string; details?: Array<{ path: string; message: string }> };
      };
      try {
        parsed = JSON.parse(answer.text);
      } catch {
        parsed = { error: { code: `HTTP ${answer.status}`, message: answer.text.slice(0, 500) } };
      }
      const heading = document.createElement('strong');
      heading.textContent = parsed.error?.code ?? `HTTP ${answer.status}`;
      const message = document.createElement('p');
      message.className = 'error-message';
      message.textContent = parsed.error?.message ?? '';
      errorPanel.append(heading, message);
      for (const detail of parsed.error?.details ?? []) {
        const item = document.createElement('p');
        const path = document.createElement('code');
        path.textContent = detail.path;
        item.append(path, `: ${detail.message}`);
        errorPanel.append(item);
      }
    },
    hide(): void {
      errorPanel.hidden = true;
    },
  };
}
