import { requestFailureLine } from './run-failure';
import { SERVER_TIMEOUT_MS } from './runs';

/**
 * Runs `work` (a click's requests) with `button` (if any) disabled, so it is not sent twice;
 * whatever it throws (no connection, no answer in time, an error answer in words) is said once
 * in `status`, and the button is enabled again, to retry. The focus goes back to the button if
 * disabling it took it away, unless `refocus` says no (the user has since moved on to another
 * request, whose button should keep it). A button shared by what the user moved on to (the
 * editor's Save) is left to it when `owns` says no: neither enabled nor focused here.
 */
export async function whileBusy(
  button: HTMLButtonElement | undefined,
  status: HTMLElement,
  work: () => Promise<void>,
  { refocus = () => true, owns = () => true }: { refocus?: () => boolean; owns?: () => boolean } = {},
): Promise<void> {
  if (button === undefined) {
    await whileBusy(document.createElement('button'), status, work, { refocus, owns });
    return;
  }
  const focused = document.activeElement === button;
  button.disabled = true;
  status.classList.remove('request-failed');
  try {
    await work();
  } catch (thrown) {
    status.classList.add('request-failed');
    status.textContent = requestFailureLine(thrown, SERVER_TIMEOUT_MS);
  } finally {
    if (owns()) {
      button.disabled = false;
      // Disabling it took the focus away; it goes back for a keyboard user to retry.
      if (
        focused &&
        refocus() &&
        (document.activeElement === null || document.activeElement === document.body)
      )
        button.focus();
    }
  }
}
