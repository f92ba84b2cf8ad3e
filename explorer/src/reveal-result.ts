import { $ } from './dom';
import type { RunOutcome } from './page';

/**
 * After a run from the input panel (Run, Run the worked example, a shared link) is answered, the
 * result comes into view when it is not: on a phone the Behaviour section is under the structure,
 * below the fold. The focus stays where it was (the button pressed).
 */
export function revealResult(outcome: RunOutcome): void {
  if (outcome !== 'answered') return;
  const heading = $('result-heading');
  const { top } = heading.getBoundingClientRect();
  if (top < 0 || top > window.innerHeight - heading.offsetHeight * 3)
    heading.scrollIntoView({ block: 'start', behavior: 'auto' });
}
