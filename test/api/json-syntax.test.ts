import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locateJsonSyntaxError } from '../../lib/api/json-syntax';

describe('locateJsonSyntaxError', () => {
  it.each([
    ['{"mode":"analyze",', 'unexpected end of input', 1, 19],
    ['', 'unexpected end of input', 1, 1],
    ['{mode: 1}', 'expected a property name in double quotes', 1, 2],
    ['[1, 2,]', 'expected a value', 1, 7],
    ['{"a" 1}', "expected ':' after a property name", 1, 6],
    ['{"a": 1} x', 'unexpected content after the JSON value', 1, 10],
    ['"abc', 'unterminated string', 1, 1],
    ['"a\\x"', 'invalid escape in a string', 1, 3],
    ['"a\\u12G4"', 'invalid \\u escape in a string', 1, 3],
    ['"a\tb"', 'unescaped control character in a string', 1, 3],
    ['[01]', "expected ',' or ']'", 1, 3],
    ['[1.]', "expected ',' or ']'", 1, 3],
    ['[\n\n  tru ]', 'expected a value', 3, 3],
  ])('finds the error in %j', (text, problem, line, column) => {
    expect(locateJsonSyntaxError(text)).toMatchObject({ problem, line, column });
  });

  // The locator and JSON.parse must agree on what is JSON, or messages would point at valid text.
  it('agrees with JSON.parse on valid JSON and on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(locateJsonSyntaxError(text)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .json()
            .chain((text) =>
              fc
                .tuple(fc.nat(text.length), fc.nat(text.length))
                .map(([a, b]) => text.slice(0, a) + text.slice(b)),
            ),
        ),
        (text) => {
          let valid = true;
          try {
            JSON.parse(text);
          } catch {
            valid = false;
          }
          expect(locateJsonSyntaxError(text) === undefined).toBe(valid);
        },
      ),
      { numRuns: 1000 },
    );
  });

  // Nesting deeper than any call stack is still located, not a crash.
  it('handles very deep nesting iteratively', () => {
    expect(locateJsonSyntaxError(`${'['.repeat(200_000)}1${']'.repeat(199_999)}`)).toMatchObject({
      problem: 'unexpected end of input',
      column: 400_001,
    });
    expect(locateJsonSyntaxError(`${'['.repeat(200_000)}1${']'.repeat(200_000)}`)).toBeUndefined();
  });
});
