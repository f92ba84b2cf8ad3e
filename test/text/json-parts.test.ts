/**
 * Counting a JSON text's objects, arrays and keys before parsing it (lib/text/json-parts.ts):
 * what `JSON.parse` spends its time on, so a body holding too many is refused unparsed.
 */
import { describe, expect, it } from 'vitest';
import { documentPartsCap, holdsMoreJsonParts } from '../../lib/text';

describe('holdsMoreJsonParts', () => {
  // `[{},{},{}]` holds four: the array and three objects. Past a cap of 3, within one of 4.
  // `{"a":1,"b":[2]}` holds four too: the object, its two keys and the array.
  it('counts objects, arrays and keys against the cap', () => {
    expect(holdsMoreJsonParts('[{},{},{}]', 3)).toBe(true);
    expect(holdsMoreJsonParts('[{},{},{}]', 4)).toBe(false);
    expect(holdsMoreJsonParts('[[[[]]]]', 3)).toBe(true);
    expect(holdsMoreJsonParts('{"a":1,"b":[2]}', 3)).toBe(true);
    expect(holdsMoreJsonParts('{"a":1,"b":[2]}', 4)).toBe(false);
  });

  // Braces, brackets and colons inside strings are text, escaped quotes and a backslash at a
  // string's end included: the object and its two keys outside are all there is.
  it('never counts what is inside a string', () => {
    const inside = `{"a":"${'{[:'.repeat(50)}\\"{[:\\\\","b":"]}{http://x"}`;
    expect(JSON.parse(inside)).toBeTypeOf('object');
    expect(holdsMoreJsonParts(inside, 3)).toBe(false);
    expect(holdsMoreJsonParts(`[${inside},${inside}]`, 6)).toBe(true);
    expect(holdsMoreJsonParts(`[${inside},${inside}]`, 7)).toBe(false);
  });

  // A text shorter than twice the cap cannot hold more (each needs two characters): not read.
  it('answers false at once for a text shorter than twice the cap', () => {
    expect(holdsMoreJsonParts('{{{{{{{{', 5)).toBe(false);
    expect(holdsMoreJsonParts('{{{{{{{{{{', 5)).toBe(true);
  });

  // A million levels deep: counted without recursion.
  it('counts nesting of any depth', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    expect(holdsMoreJsonParts(deep, 999_999)).toBe(true);
    expect(holdsMoreJsonParts(deep, 1_000_000)).toBe(false);
  });
});

describe('documentPartsCap', () => {
  // One for every 6 characters, and 100,000 more: 64 MiB of text may hold 11,284,810.
  it('allows one part for every 6 characters, and 100,000 more', () => {
    expect(documentPartsCap(0)).toBe(100_000);
    expect(documentPartsCap(5)).toBe(100_000);
    expect(documentPartsCap(64 * 1024 * 1024)).toBe(11_284_810);
  });
});
