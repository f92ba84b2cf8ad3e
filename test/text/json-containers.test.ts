/**
 * Counting a JSON text's objects and arrays before parsing it (lib/text/json-containers.ts):
 * what `JSON.parse` spends its time on, so a body holding too many is refused unparsed.
 */
import { describe, expect, it } from 'vitest';
import { documentContainerCap, holdsMoreContainers } from '../../lib/text';

describe('holdsMoreContainers', () => {
  // `[{},{},{}]` holds four: the array and three objects. Past a cap of 3, within one of 4.
  it('counts objects and arrays against the cap', () => {
    expect(holdsMoreContainers('[{},{},{}]', 3)).toBe(true);
    expect(holdsMoreContainers('[{},{},{}]', 4)).toBe(false);
    expect(holdsMoreContainers('[[[[]]]]', 3)).toBe(true);
  });

  // Braces and brackets inside strings are text, escaped quotes included: `"\"{["` opens no string
  // early, and the one object outside is all there is.
  it('never counts what is inside a string', () => {
    const inside = `{"a":"${'{['.repeat(50)}\\"{[\\\\","b":"]}{"}`;
    expect(JSON.parse(inside)).toBeTypeOf('object');
    expect(holdsMoreContainers(inside, 1)).toBe(false);
    expect(holdsMoreContainers(`[${inside},${inside}]`, 2)).toBe(true);
  });

  // A text shorter than twice the cap cannot hold more (each needs two characters): not read.
  it('answers false at once for a text shorter than twice the cap', () => {
    expect(holdsMoreContainers('{{{{{{{{', 5)).toBe(false);
    expect(holdsMoreContainers('{{{{{{{{{{', 5)).toBe(true);
  });

  // A million levels deep: counted without recursion.
  it('counts nesting of any depth', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    expect(holdsMoreContainers(deep, 999_999)).toBe(true);
    expect(holdsMoreContainers(deep, 1_000_000)).toBe(false);
  });
});

describe('documentContainerCap', () => {
  // One for every 12 characters, and 100,000 more: 64 MiB of text may hold 5,692,405.
  it('allows one container for every 12 characters, and 100,000 more', () => {
    expect(documentContainerCap(0)).toBe(100_000);
    expect(documentContainerCap(64 * 1024 * 1024)).toBe(5_692_405);
  });
});
