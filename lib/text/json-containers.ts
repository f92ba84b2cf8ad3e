/**
 * Whether a JSON text holds more than `cap` objects and arrays. They are what `JSON.parse`
 * spends its time on: 64 KB of gzip that inflate to 22 million `{}` (66 MB of text) took 22 s
 * to parse, where a structure of 100,000 nodes and 500,000 dependencies holds some 600,000 and
 * parses in well under a second. So a body is counted before it is parsed, and one past the cap
 * is refused; a valid text shorter than `2 × cap` cannot hold more (each needs an opening and a
 * closing character) and is not counted at all.
 *
 * The brackets are counted first wherever they are, strings included, at the speed of
 * `indexOf`; only a text past the cap that way is counted again, outside its strings, so a
 * string full of braces never refuses a body. Iterative: nesting cannot overflow it. A text that
 * is not JSON gives some answer, and `JSON.parse` then says what is wrong with it.
 */
export function holdsMoreContainers(text: string, cap: number): boolean {
  if (text.length < 2 * cap) return false;
  let anywhere = 0;
  // Stryker disable all: same answer, other work: this count only decides whether the exact one below runs (a bracket missed or counted twice here, or a text counted exactly at once, gives the same answer; json-containers.test.ts pins the answers)
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      anywhere += 1;
      if (anywhere > cap) return containersOutsideStrings(text, cap) > cap;
    }
  }
  // Stryker restore all
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/** The objects and arrays outside strings, counted up to `cap` + 1. */
function containersOutsideStrings(text: string, cap: number): number {
  let count = 0;
  let inString = false;
  // Stryker disable next-line EqualityOperator: one past the end (charCodeAt reads NaN there, which is no bracket)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      count += 1;
      // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: same answer, other work (counting on to the end gives a count past the cap all the same)
      if (count > cap) return count;
    }
  }
  return count;
}

/**
 * The most objects and arrays a graph or span document of `textLength` characters may hold: one
 * for every 12 characters, and 100,000 more. The documents connect reads hold far fewer (an OTLP
 * attribute, the densest, is two in some 40 characters; a Zipkin span four in 300; an engine
 * structure one in 25), and a body of nothing but brackets three in every 3: 64 MiB of it is
 * refused past 5.7 million, which parse in a few seconds, where its 22 million took 22.
 */
export function documentContainerCap(textLength: number): number {
  return Math.floor(textLength / 12) + 100_000;
}
