/**
 * One service as an M/M/c queue, checked against published values and closed forms.
 *
 * Values: the M/M/2 and M/M/4 examples of ETH Zurich's "Advanced Systems Lab" 2017 slides on
 * M/M/x queues, as the tests of `qsmmm.m` in M. Marzolla's queueing package for GNU Octave
 * (github.com/mmarzolla/queueing, GPL-3.0-or-later) carry them: λ = 9, μ = 5, m = 2 gives a mean
 * response time of 1.053 and 7.674 waiting requests; m = 4 gives 0.212 and 0.105 (three
 * decimals). Formulas: G. Bolch, S. Greiner, H. de Meer and K. S. Trivedi, "Queueing Networks
 * and Markov Chains", Wiley, section 6.2.3 (M/M/m) and the M/M/1 response time distribution.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  erlangB,
  erlangC,
  exceedProbability,
  meanResponseTime,
  queueTimes,
  responseTimeQuantile,
} from '../../../lib/engine/open/mmc';

/** Erlang C by its textbook form with factorials: independent of the engine's recursion. */
function erlangCByFactorials(c: number, a: number): number {
  let sum = 0;
  let term = 1;
  for (let k = 0; k < c; k++) {
    sum += term;
    term = (term * a) / (k + 1);
  }
  const last = (term * c) / (c - a);
  return last / (sum + last);
}

describe('erlangC', () => {
  // Three servers at an offered load of 2.5: 70.22% of requests wait. By hand, with the formula
  // as Wikipedia's "Erlang (unit)" article states it (CC BY-SA 4.0): Σ_{k<3} 2.5^k / k! = 1 + 2.5
  // + 3.125 = 6.625; 2.5³ / 3! · 3 / (3 − 2.5) = 15.625; C = 15.625 / (6.625 + 15.625) = 125/178.
  it('gives the probability of waiting', () => {
    expect(erlangC(3, 2.5)).toBeCloseTo(0.7022, 4);
    expect(erlangC(3, 2.5)).toBeCloseTo(125 / 178, 14);
    expect(erlangC(3, 2.5)).toBeCloseTo(erlangCByFactorials(3, 2.5), 14);
  });

  // One server: a request waits exactly when the server is busy, with probability ρ.
  it('is the utilization for one server', () => {
    for (const a of [0.1, 0.5, 0.9, 0.999]) expect(erlangC(1, a)).toBeCloseTo(a, 14);
  });

  // 10,000 servers at a load of 9,900: the factorial form overflows (a^c), the recursion does not.
  it('stays exact where factorials overflow', () => {
    const c = erlangC(10_000, 9_900);
    expect(c).toBeGreaterThan(0);
    expect(c).toBeLessThan(1);
    // Against the recursion at half the size with the same utilization: more servers pool better.
    expect(c).toBeLessThan(erlangC(5_000, 4_950));
    expect(Number.isFinite(erlangCByFactorials(10_000, 9_900))).toBe(false);
  });
});

describe('erlangB', () => {
  /** The recursion from one server up, however large the pool: the reference for the sum. */
  function erlangBByRecursion(c: number, a: number): number {
    let blocking = 1;
    for (let k = 1; k <= c; k++) blocking = (a * blocking) / (k + a * blocking);
    return blocking;
  }

  // Pools over 64 servers sum the series around its largest term instead of recursing from one
  // server: both agree to rounding, from lightly loaded to a load of c − 1.
  it.each([
    [65, 30],
    [65, 64],
    [100, 99],
    [1_000, 900],
    [1_000, 999.5],
    [10_000, 9_999],
    [10_000, 9_000],
    [10_000, 9_800],
    // Lightly loaded: the terms grow all the way down to k = 0, the last one the largest.
    [65, 0.5],
    [100, 3],
  ])('sums a pool of %d at a load of %d as the recursion does', (c, a) => {
    expect(erlangB(c, a)).toBeCloseTo(erlangBByRecursion(c, a), 13);
    expect(Math.abs(erlangB(c, a) / erlangBByRecursion(c, a) - 1)).toBeLessThan(1e-12);
  });

  // 10,000 servers at half load: B is some 1e-1500, far below the smallest double; its sum
  // stops at 2^1000 and reports no blocking, as the recursion's underflow does.
  it('is 0 where blocking is past the smallest double', () => {
    expect(erlangB(10_000, 5_000)).toBe(0);
    expect(erlangBByRecursion(10_000, 5_000)).toBe(0);
    expect(erlangC(10_000, 5_000)).toBe(0);
  });
});

describe('queueTimes', () => {
  // λ = 9 a second, μ = 5 (a service time of 0.2 s): two servers are 90% busy.
  it('matches the M/M/2 example', () => {
    const times = queueTimes(9, 0.2, 2)!;
    expect(times.responseTime).toBeCloseTo(1.053, 3);
    expect(9 * times.waiting).toBeCloseTo(7.674, 3);
    expect(times.inFlight).toBeCloseTo(9 * times.responseTime, 12);
  });

  // The same traffic on four servers (45% busy): hardly any wait.
  it('matches the M/M/4 example', () => {
    const times = queueTimes(9, 0.2, 4)!;
    expect(times.responseTime).toBeCloseTo(0.212, 3);
    expect(9 * times.waiting).toBeCloseTo(0.105, 3);
  });

  // M/M/1: R = S / (1 − ρ). S = 0.1, λ = 8: ρ = 0.8, R = 0.5.
  it('gives S / (1 − ρ) for one server', () => {
    const times = queueTimes(8, 0.1, 1)!;
    expect(times.responseTime).toBeCloseTo(0.5, 14);
    expect(times.waiting).toBeCloseTo(0.4, 14);
    expect(times.waitProbability).toBeCloseTo(0.8, 14);
  });

  // No traffic: no wait; a request takes its service time.
  it('is the service time with no traffic', () => {
    expect(queueTimes(0, 0.25, 3)).toEqual({
      responseTime: 0.25,
      waiting: 0,
      inFlight: 0,
      waitProbability: 0,
    });
  });

  // At or above saturation there is no steady state: no mean time.
  it('has no mean time at or above saturation', () => {
    expect(queueTimes(10, 0.1, 1)).toBeUndefined();
    expect(queueTimes(30, 0.1, 3)).toBeUndefined();
    expect(queueTimes(40, 0.1, 3)).toBeUndefined();
  });
});

describe('the response time distribution', () => {
  // M/M/1: the response time is exponential at rate μ − λ, so its 99th percentile is
  // ln(100) / (μ − λ): S = 0.1, λ = 8 gives ln(100) / 2.
  it('has the exponential tail of M/M/1', () => {
    const times = queueTimes(8, 0.1, 1)!;
    for (const t of [0, 0.1, 1, 3]) {
      expect(exceedProbability(t, 8, 0.1, 1, times.waitProbability)).toBeCloseTo(Math.exp(-2 * t), 12);
    }
    expect(responseTimeQuantile(0.99, 8, 0.1, 1)).toBeCloseTo(Math.log(100) / 2, 10);
  });

  // Its mean is the mean response time: ∫ P(T > t) dt = R (trapezoids on a fine grid).
  it.each([
    [9, 0.2, 2],
    [9, 0.2, 4],
    [2.5, 1, 3],
    // θ = μ: a load of exactly servers − 1, where the tail takes its limiting form.
    [2, 1, 3],
  ])('integrates to the mean response time (λ %d, S %d, c %d)', (throughput, serviceTime, servers) => {
    const times = queueTimes(throughput, serviceTime, servers)!;
    const end = 60 * times.responseTime;
    const steps = 200_000;
    const dt = end / steps;
    let integral = 0;
    let previous = 1;
    for (let i = 1; i <= steps; i++) {
      const next = exceedProbability(i * dt, throughput, serviceTime, servers, times.waitProbability);
      integral += ((previous + next) / 2) * dt;
      previous = next;
    }
    expect(integral).toBeCloseTo(times.responseTime, 6);
  });

  // The 99th percentile leaves exactly 1% above it, and lies above the mean.
  it('finds the percentile where 1% is left above', () => {
    for (const [throughput, serviceTime, servers] of [
      [9, 0.2, 2],
      [2, 1, 3],
      [99, 1, 100],
    ] as const) {
      const times = queueTimes(throughput, serviceTime, servers)!;
      const p99 = responseTimeQuantile(0.99, throughput, serviceTime, servers)!;
      expect(exceedProbability(p99, throughput, serviceTime, servers, times.waitProbability)).toBeCloseTo(
        0.01,
        10,
      );
      expect(p99).toBeGreaterThan(times.responseTime);
    }
    expect(responseTimeQuantile(0.99, 10, 0.1, 1)).toBeUndefined();
  });

  // Newton's steps inside the bracket end where a step no longer moves: the quantile leaves
  // 1 − q above it to rounding, from a light load to a pool of 10,000 at 99.99% and at θ = μ.
  it.each([
    [0.5, 1, 2],
    [2, 1, 3],
    [9, 0.2, 2],
    [1_999, 0.001, 2],
    [9_999, 1, 10_000],
    [980, 1, 1_000],
  ])(
    'finds the 99th and 99.9th percentiles to rounding (λ %d, S %d, c %d)',
    (throughput, serviceTime, servers) => {
      const times = queueTimes(throughput, serviceTime, servers)!;
      for (const q of [0.99, 0.999]) {
        const t = responseTimeQuantile(q, throughput, serviceTime, servers)!;
        const left = exceedProbability(t, throughput, serviceTime, servers, times.waitProbability);
        expect(Math.abs(left - (1 - q))).toBeLessThan(1e-13);
      }
    },
  );

  // Three servers of 1 s at loads within 1e-12 of 2 (θ within 1e-12 of μ), where the two
  // exponentials of the tail cancel: the 99th percentile to 1e-14 of the value mpmath gives at 50
  // digits for the same doubles (Erlang B by its recursion, the root of P(T > t) = 0.01 by
  // mp.findroot on the tail's textbook form; this project's scratch computation, not a
  // published table). Taken as θ·e^{−μt} − μ·e^{−θt} over θ − μ it was 5.891132 at 2 − 1e-12.
  it.each([
    [2, 5.891174416603239],
    [1.999999999999, 5.891174416599938],
    [1.99999999999, 5.891174416570231],
    [1.999999, 5.891171115829975],
    [2.000000001, 5.891174419904017],
  ])('finds the 99th percentile where θ nears μ (λ %s on 3 servers of 1)', (throughput, exact) => {
    const p99 = responseTimeQuantile(0.99, throughput, 1, 3)!;
    expect(Math.abs(p99 - exact) / exact).toBeLessThan(1e-14);
  });

  // The same queue in another unit of time: 2 servers at 75%, the service time from 1 down to
  // 1e-160 (1 / S then near the largest double): the quantile scales with the unit, to rounding.
  it('finds the same quantile in any unit of time', () => {
    const inSeconds = responseTimeQuantile(0.99, 1.5, 1, 2)!;
    for (const unit of [1e-3, 1e-150, 1e-160]) {
      const scaled = responseTimeQuantile(0.99, 1.5 / unit, unit, 2)! / unit;
      expect(Math.abs(scaled / inSeconds - 1)).toBeLessThan(1e-13);
    }
  });

  // Where nobody waits (no traffic, or 10,000 servers at half load, whose probability of waiting
  // is below the smallest double), the response time is the service time, exponential: its
  // q-quantile is ln(1 / (1 − q)) × S.
  it('is the exponential service time where nobody waits', () => {
    expect(responseTimeQuantile(0.99, 0, 0.2, 4)).toBeCloseTo(Math.log(100) * 0.2, 15);
    expect(responseTimeQuantile(0.999, 2_500, 2, 10_000)).toBeCloseTo(Math.log(1000) * 2, 14);
  });

  // Any pool, load and quantile: the answer leaves 1 − q above it to rounding, wherever the
  // search starts and however it steps. Pools of 2 to 2,000, loads from 1% to 99.99% of the
  // servers (and exactly servers − 1), quantiles from the median to 99.99%.
  it('finds every quantile to rounding, on any pool and load', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 2_000 }),
        fc.oneof(fc.double({ min: 0.01, max: 0.9999, noNaN: true }), fc.constant(-1)),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        fc.constantFrom(0.5, 0.9, 0.99, 0.999, 0.9999),
        (servers, share, serviceTime, q) => {
          // −1: the load of exactly servers − 1, where the tail takes its limiting form.
          const offered = share < 0 ? servers - 1 : share * servers;
          const throughput = offered / serviceTime;
          const times = queueTimes(throughput, serviceTime, servers)!;
          const t = responseTimeQuantile(q, throughput, serviceTime, servers)!;
          expect(t).toBeGreaterThan(0);
          const left = exceedProbability(t, throughput, serviceTime, servers, times.waitProbability);
          expect(Math.abs(left - (1 - q))).toBeLessThan(1e-13);
        },
      ),
      { seed: 33_033, numRuns: 400 },
    );
  });

  // Found by the test above with other seeds: at 99.99% load the first guess is within 7e-13 of
  // the answer and the first Newton step lands on it (below it by 3e-17 of 1 − q); the bracket is
  // then narrower than 1e-12 and the search ended on the guess, off by 1.6e-13. Whichever end of
  // the bracket is nearer 1 − q is the answer.
  it.each([
    [152, 0.9998996980831913, 0.39429310640650467, 0.9],
    [399, 0.9998577290130299, 0.09674396505244222, 0.9],
    [133, 0.9998931325243755, 0.011732148057761927, 0.5],
    [4, 0.9998871595292598, 0.6576952921930954, 0.5],
  ])(
    'finds the quantile of %i servers at a load of %d to rounding, its first step on the answer',
    (servers, share, serviceTime, q) => {
      const throughput = (share * servers) / serviceTime;
      const times = queueTimes(throughput, serviceTime, servers)!;
      const t = responseTimeQuantile(q, throughput, serviceTime, servers)!;
      const left = exceedProbability(t, throughput, serviceTime, servers, times.waitProbability);
      expect(Math.abs(left - (1 - q))).toBeLessThan(1e-13);
    },
  );
});

/**
 * The quantile's Newton steps as they were written before each step took its two exponentials
 * once: `exceedProbability` for the value and a separate density, each computing both. The
 * start (the slower exponential alone, or the one-rate tail) is the engine's `tailGuess`.
 */
function quantileTwoExponentialsTwice(q: number, throughput: number, serviceTime: number, servers: number) {
  const times = queueTimes(throughput, serviceTime, servers)!;
  const target = 1 - q;
  const mu = 1 / serviceTime;
  if (servers === 1) return Math.log(1 / target) / (mu - throughput);
  const C = times.waitProbability;
  if (C === 0) return Math.log(1 / target) * serviceTime;
  const theta = servers * mu - throughput;
  const gap = (servers - 1) * mu - throughput;
  const density = (t: number) => {
    const served = Math.exp(-mu * t);
    // (e^{−θt} − e^{−μt}) / (θ − μ), by expm1 where the rates are close (as exceedProbability).
    const x = gap * t;
    const between =
      x <= 1 && x >= -1
        ? gap === 0
          ? -t * served
          : (served * Math.expm1(-x)) / gap
        : (Math.exp(-(mu + gap) * t) - served) / gap;
    return (1 - C) * mu * served + C * (-mu * (theta * between));
  };
  let guess: number | undefined;
  if (Math.abs(theta - mu) <= 1e-6 * mu) {
    guess = Math.log(1 / target) / mu;
    for (let i = 0; i < 2; i++) guess = Math.log((1 + C * mu * guess) / target) / mu;
  } else {
    const slowTheta = theta < mu;
    const weight = slowTheta ? (C * mu) / (mu - theta) : 1 - C + (C * theta) / (theta - mu);
    const value = Math.log(weight / target) / (slowTheta ? theta : mu);
    guess = value > 0 && value < Number.POSITIVE_INFINITY ? value : undefined;
  }
  let t = guess ?? times.responseTime;
  let low = 0;
  let high = Number.POSITIVE_INFINITY;
  let lowValue = Number.POSITIVE_INFINITY;
  let highValue = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < 200 && (high === Number.POSITIVE_INFINITY || high - low > 1e-12 * high); i++) {
    const value = exceedProbability(t, throughput, serviceTime, servers, C) - target;
    if (value > 0) {
      low = t;
      lowValue = value;
    } else {
      high = t;
      highValue = value;
    }
    const step = t - value / -density(t);
    if (step === t) return t;
    t = step > low && step < high ? step : high === Number.POSITIVE_INFINITY ? 2 * t : (low + high) / 2;
  }
  return lowValue < -highValue ? low : high;
}

describe('the work per node', () => {
  // Any pool, load and quantile, as above: each Newton step now takes e^{−μt} and e^{−θt} once
  // for the value and the slope, with the same expressions, so the quantile is the same double.
  it('finds the very quantile the steps found when they took each exponential twice', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000 }),
        fc.oneof(fc.double({ min: 0.01, max: 0.9999, noNaN: true }), fc.constant(-1)),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        fc.constantFrom(0.5, 0.9, 0.99, 0.999, 0.9999),
        (servers, share, serviceTime, q) => {
          const offered = share < 0 ? Math.max(servers - 1, 0) : share * servers;
          const throughput = offered / serviceTime;
          expect(responseTimeQuantile(q, throughput, serviceTime, servers)).toBe(
            quantileTwoExponentialsTwice(q, throughput, serviceTime, servers),
          );
        },
      ),
      { seed: 33_034, numRuns: 400 },
    );
  });

  // Two servers at 0.1 each with 10 requests a step: a load of 1 on 2 servers, Erlang C 1/3,
  // a wait of (1/3 · 0.1) / (2 − 1) and a response time of 0.1 + 0.0333… = 0.1333…; at 20 a
  // step the pool is saturated, and the mean is Infinity rather than no object at all.
  it('gives the mean response time alone, as queueTimes does, and Infinity at saturation', () => {
    expect(meanResponseTime(10, 0.1, 2)).toBe(queueTimes(10, 0.1, 2)!.responseTime);
    expect(meanResponseTime(10, 0.1, 2)).toBeCloseTo(0.1 + 0.1 / 3, 15);
    expect(meanResponseTime(20, 0.1, 2)).toBe(Number.POSITIVE_INFINITY);
    expect(meanResponseTime(0, 0.1, 2)).toBe(0.1);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1.5, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        (servers, share, serviceTime) => {
          const throughput = (share * servers) / serviceTime;
          const times = queueTimes(throughput, serviceTime, servers);
          expect(meanResponseTime(throughput, serviceTime, servers)).toBe(
            times?.responseTime ?? Number.POSITIVE_INFINITY,
          );
        },
      ),
      { seed: 33_035, numRuns: 400 },
    );
  });
});
