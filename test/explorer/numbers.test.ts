/**
 * Numbers for reading (explorer/src/numbers.ts): rounding never changes what a number says.
 */
import { describe, expect, it } from 'vitest';
import { durationText, scaleText, shortNumber } from '../../explorer/src/numbers';

describe('shortNumber', () => {
  // Whole numbers grouped from 1,000 on, four digits below; past 1e15, four digits and an
  // exponent (a number near the engine's 1e300 was written with 301 digits).
  it('groups whole numbers, and writes the largest with an exponent', () => {
    expect(shortNumber(0.123456)).toBe('0.1235');
    expect(shortNumber(10_773)).toBe('10,773');
    expect(shortNumber(999_999_999_999_999)).toBe('999,999,999,999,999');
    expect(shortNumber(1.5e300)).toBe('1.5e+300');
    expect(shortNumber(-2e15)).toBe('-2e+15');
  });
});

describe('scaleText', () => {
  // ×1 would say "today's traffic holds": a factor below it stays below it.
  it('never rounds a factor below 1 up to ×1', () => {
    expect(scaleText(0.9999)).toBe('×0.999');
    expect(scaleText(0.99949)).toBe('×0.999');
    expect(scaleText(0.5)).toBe('×0.5');
    expect(scaleText(1)).toBe('×1');
    expect(scaleText(1.4195)).toBe('×1.42');
  });
});

describe('durationText', () => {
  // A time that rounds to a second is said in seconds: 0.9999 s is "1 s", not "1000 ms".
  it('says a time that rounds to 1 s in seconds', () => {
    expect(durationText(0.9999)).toBe('1 s');
    expect(durationText(0.99949)).toBe('999 ms');
    expect(durationText(0.0208)).toBe('20.8 ms');
    expect(durationText(1.4195)).toBe('1.42 s');
  });

  // A service of 4.29 µs read "0.00429 ms": each time in the unit it holds at least one of, a
  // time that rounds up to the next unit in that unit.
  it('says times under a millisecond in µs and ns', () => {
    expect(durationText(0.00000429)).toBe('4.29 µs');
    expect(durationText(0.00099949)).toBe('999 µs');
    expect(durationText(0.0009996)).toBe('1 ms');
    expect(durationText(4.2e-7)).toBe('420 ns');
    expect(durationText(9.9996e-7)).toBe('1 µs');
    expect(durationText(5e-11)).toBe('0.05 ns');
    expect(durationText(-0.0002)).toBe('-200 µs');
    expect(durationText(0)).toBe('0 ms');
  });
});
