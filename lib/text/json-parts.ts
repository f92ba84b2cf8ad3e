/**
 * Whether a JSON text holds more than `cap` objects, arrays and object keys. They are what
 * `JSON.parse` spends its time on, more than bytes: 64 KB of gzip that inflate to 22 million
 * `{}` (66 MB of text) took 22 s to parse, and 3.7 million distinct keys in one object (47 MB)
 * 8.6 s, where a structure of 100,000 nodes and 500,000 dependencies holds some 2 million and
 * parses in well under a second. So a body is counted before it is parsed, and one past the cap
 * is refused; a valid text shorter than `2 × cap` cannot hold more (each takes at least two
 * characters: `{}`, `[]`, `"":`) and is not counted at all.
 *
 * The brackets and colons are counted first wherever they are, strings included, at the speed
 * of `indexOf`; only a text past the cap that way is counted again, outside its strings, so a
 * string full of them (a URL, a time of day) never refuses a body. Iterative: nesting cannot
 * overflow it. A text that is not JSON gives some answer, and `JSON.parse` then says what is
 * wrong with it (or the cap refuses it first).
 */
export function holdsMoreJsonParts(text: string, cap: number): boolean {
  if (text.length < 2 * cap) return false;
  let anywhere = 0;
  // Stryker disable all: same answer, other work: this count only decides whether the exact one below runs (a part missed or counted twice here, or a text counted exactly at once, gives the same answer; json-parts.test.ts pins the answers)
  for (const part of ['{', '[', ':']) {
    for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) {
      anywhere += 1;
      if (anywhere > cap) return partsOutsideStrings(text, cap) > cap;
    }
  }
  // Stryker restore all
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const COLON = 0x3a;

/** The objects, arrays and keys outside strings, counted up to `cap` + 1. */
function partsOutsideStrings(text: string, cap: number): number {
  let count = 0;
  let inString = false;
  // Stryker disable next-line EqualityOperator: one past the end (charCodeAt reads NaN there, which is no part)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET || code === COLON) {
      count += 1;
      // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: same answer, other work (counting on to the end gives a count past the cap all the same)
      if (count > cap) return count;
    }
  }
  return count;
}

/**
 * The most objects, arrays and keys a graph or span document of `textLength` characters may
 * hold: one for every 6 characters, and 100,000 more. The densest documents connect reads hold
 * one in some 9 (a D3 node-link graph; an engine structure one in 10, Jaeger's traces one in 16,
 * OTLP's one in 23), and a text of nothing but `{}` one in 3: 66 MB of them is refused, and
 * the most a 64 MiB document may hold, 11.3 million, parse in some 11 s (as do the 5 million
 * distinct keys its bytes can hold at most), within connect's 20 s.
 */
export function documentPartsCap(textLength: number): number {
  return Math.floor(textLength / 6) + 100_000;
}
