import { $ } from './dom';
import type { RunAnswer } from './protocol';

/** An error as the page shows it: a title (the API's code), its message, and each detail's path. */
export interface ShownError {
  title: string;
  message: string;
  details?: Array<{ path: string; message: string }>;
}

/** An error answer in the API's own words; a body that is not the API's (a proxy's page) as text. */
export function errorOfAnswer(answer: Pick<RunAnswer, 'status' | 'text'>): ShownError {
  let parsed: { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    parsed = undefined;
  }
  const error = parsed?.error;
  if (error === undefined || typeof error !== 'object' || error === null) {
    // API Gateway's own answers (`{"message":"Request Entity Too Large"}`) by their message; a
    // proxy's HTML page by its text, without its tags.
    const gateway = (parsed as { message?: unknown } | undefined)?.message;
    const message =
      typeof gateway === 'string'
        ? gateway
        : HTML_START.test(answer.text)
          ? pageText(answer.text)
          : answer.text;
    return { title: `HTTP ${answer.status}`, message: message.slice(0, 500) };
  }
  return {
    title: typeof error.code === 'string' ? error.code : `HTTP ${answer.status}`,
    message: typeof error.message === 'string' ? error.message : '',
    ...(Array.isArray(error.details) ? { details: error.details } : {}),
  };
}

/** An HTML page's start, as proxies write their error pages; other text is shown as it is. */
const HTML_START = /^\s*<(?:!doctype|html|head|body|title|h[1-6]|p|div|center|pre)\b/i;
/** How much of an HTML error page is read for its words. */
const HTML_READ_CHARS = 16_384;

/**
 * The words of an HTML page (a proxy's error page): parsed inert (DOMParser runs no script and
 * loads nothing), its scripts and styles dropped, its entities decoded, spaces folded. Plain
 * text is shown as it is: a tag-stripping pattern ate `<10.0.0.4:443>` and `a < b … c > d`.
 */
function pageText(html: string): string {
  // Only the page's start: 500 characters are shown, and the parser is quadratic on some
  // shapes (1 MB of `<div>` held the tab 51 s).
  const page = new DOMParser().parseFromString(html.slice(0, HTML_READ_CHARS), 'text/html');
  for (const element of page.querySelectorAll('script, style, noscript, template')) element.remove();
  // Each text node apart: a heading and the paragraph after it would otherwise run together. The
  // head too: a page whose only words are its <title>.
  const words: string[] = [];
  const walker = page.createTreeWalker(page.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode())
    words.push(node.textContent ?? '');
  return words.join(' ').replace(/\s+/g, ' ').trim();
}

/**
 * The one place a run's error is shown: the API's error answer, or why there was none (no
 * connection, no answer in time, the worker failed).
 */
export function createErrorPanel() {
  const errorPanel = $('error');
  return {
    show(error: ShownError): void {
      errorPanel.hidden = false;
      errorPanel.replaceChildren();
      const heading = document.createElement('strong');
      heading.textContent = error.title;
      const message = document.createElement('p');
      message.className = 'error-message';
      message.textContent = error.message;
      errorPanel.append(heading, message);
      for (const detail of error.details ?? []) {
        // The engine's message is often its one detail written out (`path: problem`): once is enough.
        if (error.message.includes(detail.path) && error.message.includes(detail.message)) continue;
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
