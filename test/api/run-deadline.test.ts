import { describe, expect, it } from 'vitest';
import {
  BASE_RESERVE_MS,
  RESERVE_MS_PER_BYTE,
  runDeadline,
  stoppedMessage,
  WRITE_MS_PER_BYTE,
} from '../../lib/api/run-deadline';

describe('runDeadline: when a run must stop to answer in time', () => {
  it('never stops a run without a clock (the CLI) or with no end in sight', () => {
    expect(runDeadline(undefined)).toBeUndefined();
    expect(runDeadline(() => Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('keeps back a fixed reserve, plus compression time for every byte written so far', () => {
    let remaining = 15_000;
    const deadline = runDeadline(() => remaining)!;
    expect(deadline.limitMs).toBe(15_000);
    // 15 s left: nothing stops a run that has written little.
    expect(deadline.shouldStop(0)).toBe(false);
    // With 10 MB written, two codings' compression (0.8 s) joins the 1.5 s reserve.
    remaining = BASE_RESERVE_MS + 10_000_000 * RESERVE_MS_PER_BYTE + 1;
    expect(deadline.shouldStop(10_000_000)).toBe(false);
    remaining -= 2;
    expect(deadline.shouldStop(10_000_000)).toBe(true);
    // The limit is what the request had when the run began, not what is left now.
    expect(deadline.limitMs).toBe(15_000);
  });

  // Bytes about to be written in one go (a caller's extra of 70 MB) are counted before it starts:
  // writing them, and compressing them with the rest.
  it('keeps back writing and compressing what is about to be written in one go', () => {
    let remaining = 15_000;
    const deadline = runDeadline(() => remaining)!;
    const toWrite = 50_000_000;
    const needed =
      BASE_RESERVE_MS + (1_000_000 + toWrite) * RESERVE_MS_PER_BYTE + toWrite * WRITE_MS_PER_BYTE;
    remaining = needed + 1;
    expect(deadline.shouldStop(1_000_000, toWrite)).toBe(false);
    remaining = needed - 1;
    expect(deadline.shouldStop(1_000_000, toWrite)).toBe(true);
    expect(deadline.shouldStop(1_000_000)).toBe(false);
  });

  it('stops at once a run that has less than the reserve left', () => {
    let remaining = 15_000;
    const deadline = runDeadline(() => remaining)!;
    remaining = BASE_RESERVE_MS - 1;
    expect(deadline.shouldStop(0)).toBe(true);
    expect(runDeadline(() => 0)!.shouldStop(0)).toBe(true);
  });

  // FUNCTION_TIMEOUT_MS may be as low as 1 s: 1.5 s kept back would stop every run at once.
  it('keeps back a quarter of a time limit shorter than four reserves', () => {
    let remaining = 1_000;
    const deadline = runDeadline(() => remaining)!;
    expect(deadline.shouldStop(0)).toBe(false);
    remaining = 251;
    expect(deadline.shouldStop(0)).toBe(false);
    remaining = 249;
    expect(deadline.shouldStop(0)).toBe(true);
    expect(runDeadline(() => 4 * BASE_RESERVE_MS)!.shouldStop(0)).toBe(false);
    expect(runDeadline(() => 6_000)).toMatchObject({ limitMs: 6_000 });
  });
});

describe('runDeadline with the time the request had as it began', () => {
  // 15 s as the invocation began, 3 s left when the run begins (a slow parse): the limit named is
  // 15 s and the reserve the full 1.5 s, not a quarter of 3 s (750 ms).
  it('takes the limit and the reserve from the time the request began with', () => {
    let remaining = 3_000;
    const deadline = runDeadline(() => remaining, 15_000)!;
    expect(deadline.limitMs).toBe(15_000);
    remaining = BASE_RESERVE_MS + 1;
    expect(deadline.shouldStop(0)).toBe(false);
    remaining = BASE_RESERVE_MS;
    expect(deadline.shouldStop(0)).toBe(true);
  });

  // A stop the answer's size caused (compressing what was written would take over half of the
  // 15 s on its own: 100 MB, 8 s) says so; one where the time ran out with less written (10 MB,
  // 0.8 s of compressing) or none does not.
  it('tells a stop for the answer size from one for time', () => {
    let remaining = 5_000;
    const deadline = runDeadline(() => remaining, 15_000)!;
    expect(deadline.shouldStop(100_000_000)).toBe(true);
    expect(deadline.stoppedBySize()).toBe(true);
    remaining = 2_000;
    expect(deadline.shouldStop(10_000_000)).toBe(true);
    expect(deadline.stoppedBySize()).toBe(false);
    remaining = 1_000;
    expect(deadline.shouldStop(0)).toBe(true);
    expect(deadline.stoppedBySize()).toBe(false);
    expect(stoppedMessage(15_000, { mode: 'analyze', compare: true }, true)).toBe(
      'The run was stopped: its answer grew larger than can be compressed and sent within this request\'s time limit (15 s); send a smaller structure or leave out "compare" (the answer returns extra fields on nodes and dependencies as they were sent: leave out any it need not).',
    );
  });
});

describe('stoppedMessage: the 413 names the time limit and what to reduce', () => {
  it.each([
    [
      'analyze',
      { mode: 'analyze' },
      "The run could not finish within this request's time limit (15 s) and was stopped; send a smaller structure.",
    ],
    [
      'ticks',
      { mode: 'ticks' },
      "The run could not finish within this request's time limit (15 s) and was stopped; ask for fewer ticks or send a smaller structure.",
    ],
    [
      'ticks with compare',
      { mode: 'ticks', compare: true },
      'The run could not finish within this request\'s time limit (15 s) and was stopped; ask for fewer ticks, send a smaller structure or leave out "compare".',
    ],
    [
      'analyze with compare',
      { mode: 'analyze', compare: true },
      'The run could not finish within this request\'s time limit (15 s) and was stopped; send a smaller structure or leave out "compare".',
    ],
    [
      'ticks of a stored system',
      { mode: 'ticks', stored: true },
      "The run could not finish within this request's time limit (15 s) and was stopped; ask for fewer ticks or run a smaller system.",
    ],
  ])('%s', (_name, request, message) => {
    expect(stoppedMessage(14_930, request)).toBe(message);
  });

  // Up to the next tenth: a function of 1.5 s read 1 s or 2 s by a millisecond (1,499 or 1,500
  // left as the invocation began); Lambda's 15 s begins with 14,9xx left and reads 15.
  it('names the limit in seconds up to the next tenth, at least a tenth', () => {
    expect(stoppedMessage(40, { mode: 'analyze' })).toContain('(0.1 s)');
    expect(stoppedMessage(1_499, { mode: 'analyze' })).toContain('(1.5 s)');
    expect(stoppedMessage(1_500, { mode: 'analyze' })).toContain('(1.5 s)');
    expect(stoppedMessage(2_500, { mode: 'analyze' })).toContain('(2.5 s)');
    expect(stoppedMessage(14_996, { mode: 'analyze' })).toContain('(15 s)');
    expect(stoppedMessage(14_930, { mode: 'analyze' })).toContain('(15 s)');
    expect(stoppedMessage(29_600, { mode: 'analyze' })).toContain('(29.6 s)');
  });
});
