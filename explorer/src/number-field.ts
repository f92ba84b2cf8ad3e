/**
 * Numbers checked where they are typed. A field accepts what `Number()` reads as a finite number
 * in its range (` 2.5 `, `1e3`), empty (not set), and the words its rule names (`none`); it
 * refuses anything else (`abc`, `1,5`, `NaN`, `Infinity`, a number out of range): the field is
 * marked `aria-invalid`, a message under it says what it takes, and its value is never sent.
 */
export interface NumberRule {
  /** Whether a finite number is in the field's range. */
  accepts(value: number): boolean;
  /** What the field takes, said when it holds anything else: `A capacity is a number above 0.` */
  takes: string;
  /** Words the field takes besides numbers, and the value each stands for (`none`: null). */
  words?: Readonly<Record<string, null>>;
}

/** What a field holds: `undefined` when empty, the number (or a word's value), or nothing valid. */
export type Reading = { valid: true; value: number | null | undefined } | { valid: false };

/** A capacity (per step; the engine's and the settings' rule): finite and above 0. */
export const CAPACITY = (takes: string): NumberRule => ({ accepts: (value) => value > 0, takes });

/** What `typed` holds under `rule` (its words in any case: `None` is `none`). */
function readNumber(typed: string, rule: NumberRule): Reading {
  const text = typed.trim();
  if (text === '') return { valid: true, value: undefined };
  const word = text.toLowerCase();
  if (rule.words !== undefined && Object.hasOwn(rule.words, word))
    return { valid: true, value: rule.words[word]! };
  const value = Number(text);
  return Number.isFinite(value) && rule.accepts(value) ? { valid: true, value } : { valid: false };
}

/** The message for what `typed` holds, or `''` when it is valid. */
function problemWith(typed: string, rule: NumberRule): string {
  if (readNumber(typed, rule).valid) return '';
  // A decimal comma is the likeliest slip: say how it is written here (when the field takes it).
  const pointed = typed.trim().replace(',', '.');
  const comma =
    /^\s*-?\d+,\d+\s*$/.test(typed) && readNumber(pointed, rule).valid
      ? ` Decimals take a point: ${pointed}.`
      : '';
  return `${rule.takes}${comma}`;
}

let nextMessageId = 0;

/**
 * Checks `input` against `rule` as it is typed, saying what is wrong in `message` (an element
 * under the field, hidden while it holds nothing wrong), which describes the field
 * (`aria-describedby`). `check()` checks again after the value was set by the page; `read()`
 * reads it.
 */
export function checkedNumberField(input: HTMLInputElement, rule: NumberRule, message: HTMLElement) {
  if (message.id === '') message.id = `number-problem-${++nextMessageId}`;
  message.classList.add('field-problem');
  message.hidden = true;
  const described = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id !== '');
  if (!described.includes(message.id))
    input.setAttribute('aria-describedby', [message.id, ...described].join(' '));

  function check(): Reading {
    const problem = problemWith(input.value, rule);
    message.textContent = problem;
    message.hidden = problem === '';
    if (problem === '') input.removeAttribute('aria-invalid');
    else input.setAttribute('aria-invalid', 'true');
    return readNumber(input.value, rule);
  }

  input.addEventListener('input', check);
  return { check, read: () => readNumber(input.value, rule), input };
}

export type CheckedNumberField = ReturnType<typeof checkedNumberField>;
