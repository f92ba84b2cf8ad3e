/**
 * One service as an M/M/c queue: Poisson arrivals at `throughput` per step, `servers` identical
 * servers, exponential service with mean `serviceTime` (steps). The response time of a request
 * is its wait in the queue plus its own service. Formulas: G. Bolch, S. Greiner, H. de Meer and
 * K. S. Trivedi, "Queueing Networks and Markov Chains", 2nd ed., Wiley 2006, section 6.2.3
 * (M/M/m); the sojourn-time distribution is the convolution of the wait (an atom at 0 and an
 * exponential tail) with the service time.
 */

/** What the queue does in its steady state: mean times in steps, and the 99th percentile. */
export interface QueueTimes {
  /** Mean time a request spends at the service: waiting plus service. */
  responseTime: number;
  /** Mean time in the queue before service starts. */
  waiting: number;
  /** Requests at the service on average (Little's law: throughput × responseTime). */
  inFlight: number;
  /** The probability that a request waits at all (Erlang C). */
  waitProbability: number;
}

/**
 * Erlang C: the probability that an arrival finds every one of `servers` busy, at an offered
 * load `a = throughput × serviceTime` below `servers`, from Erlang B as `C = c·B / (c − a·(1 − B))`.
 * No factorial or power of `a` is ever formed, so 10,000 servers at a load of 9,999 are as exact
 * as 3 at 2.5 (see `erlangB`).
 *
 * @internal exported for test/engine/open/mmc.test.ts, which checks it against textbook values.
 */
export function erlangC(servers: number, offered: number): number {
  const blocking = erlangB(servers, offered);
  return (servers * blocking) / (servers - offered * (1 - blocking));
}

/** Pools up to this size take the recursion from one server up. */
const RECURSION_LIMIT = 64;

/**
 * Erlang B, `B(c, a) = (aᶜ/c!) / Σₖ₌₀..c aᵏ/k!`. Small pools use the recursion
 * `B(k) = a·B(k−1) / (k + a·B(k−1))` from `B(0) = 1`, whose values stay in [0, 1]. A large pool
 * sums `1/B = Σₖ uₖ` with `u_c = 1`, `u_{k−1} = uₖ·k/a` from `k = c` down: the terms grow while
 * `k > a` and shrink after, so the sum stops once a term no longer changes it (some `a − 9√a`
 * at most), and a sum past 2^1000 stops it too (then `B` < 1e-301 and the wait it implies is below
 * 1e-298 of the service time: reported as none). Each term is a product of ratios that are all
 * ≥ 1 or all < 1 on either side, so nothing cancels: a few hundred terms for 10,000 servers near
 * saturation rather than 10,000 steps.
 *
 * @internal exported for test/engine/open/mmc.test.ts, which checks it against textbook values.
 */
export function erlangB(servers: number, offered: number): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: same answer, other work (the recursion and the sum agree to rounding: mmc.test.ts compares them on pools from 65 to 10,000, lightly loaded to c − 1)
  if (servers <= RECURSION_LIMIT) {
    let blocking = 1;
    for (let k = 1; k <= servers; k++) {
      const carried = offered * blocking;
      blocking = carried / (k + carried);
    }
    return blocking;
  }
  let sum = 1;
  let term = 1;
  for (let k = servers; k >= 1; k--) {
    term = (term * k) / offered;
    const next = sum + term;
    // Stryker disable next-line ConditionalExpression: same answer, other work (past the largest term the terms only shrink, and adding them changes nothing)
    if (next === sum) break;
    sum = next;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (summing on, the sum overflows to Infinity and 1 / Infinity is 0 too)
    if (sum > 2 ** 1000) return 0;
  }
  return 1 / sum;
}
/**
 * The queue's steady-state times, or `undefined` at or above saturation (`a ≥ servers`), where
 * the queue grows without limit and no mean time exists.
 */
export function queueTimes(throughput: number, serviceTime: number, servers: number): QueueTimes | undefined {
  const offered = throughput * serviceTime;
  if (!(offered < servers)) return undefined;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (Erlang C of no load is 0)
  const waitProbability = offered > 0 ? erlangC(servers, offered) : 0;
  const waiting = (waitProbability * serviceTime) / (servers - offered);
  const responseTime = serviceTime + waiting;
  return { responseTime, waiting, inFlight: throughput * responseTime, waitProbability };
}

/**
 * The queue's mean response time alone, as `queueTimes` gives it (the same arithmetic, so the
 * same bits), and `Infinity` at or above saturation: what the latency solves and the SLO search
 * read for every node, without an object per node.
 */
export function meanResponseTime(throughput: number, serviceTime: number, servers: number): number {
  const offered = throughput * serviceTime;
  // Stryker disable next-line EqualityOperator: same answer (at exactly `servers` the mean below divides by 0: Infinity as well)
  if (!(offered < servers)) return Number.POSITIVE_INFINITY;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (Erlang C of no load is 0)
  const waitProbability = offered > 0 ? erlangC(servers, offered) : 0;
  return serviceTime + (waitProbability * serviceTime) / (servers - offered);
}

/**
 * The probability that a request spends longer than `t` at the service. With `μ = 1/serviceTime`
 * and `θ = servers·μ − throughput` (the rate at which a queue drains), the wait is 0 with
 * probability `1 − C` and otherwise exponential at rate `θ`, so
 * `P(T > t) = (1 − C)·e^{−μt} + C·(θ·e^{−μt} − μ·e^{−θt}) / (θ − μ)`, and where `θ = μ`
 * (a load of exactly `servers − 1`) the second term is `C·(1 + μt)·e^{−μt}`. For one server it
 * reduces to `e^{−(μ − λ)t}`. Near `θ = μ` the two exponentials cancel in that quotient, so the
 * second term is computed as `e^{−μt} − μ·(e^{−θt} − e^{−μt}) / (θ − μ)` with the difference
 * taken by `expm1` (`twoRateGap`): exact to rounding at every distance from `θ = μ`.
 *
 * @internal exported for test/engine/open/mmc.test.ts, which checks it against textbook values.
 */
export function exceedProbability(
  t: number,
  throughput: number,
  serviceTime: number,
  servers: number,
  waitProbability: number,
): number {
  const mu = 1 / serviceTime;
  const gap = (servers - 1) * mu - throughput;
  const served = Math.exp(-mu * t);
  const C = waitProbability;
  // Stryker disable next-line ConditionalExpression: same answer, other work (with C = 0 the formula below is `served` too)
  if (C === 0) return served;
  const tail = served - mu * twoRateGap(t, mu, gap, served);
  return (1 - C) * served + C * tail;
}

/**
 * `(e^{−θt} − e^{−μt}) / (θ − μ)` with `θ − μ = gap`: `served = e^{−μt}` times `expm1(−gap·t) / gap`
 * where the two rates are close (no cancellation, and `−t·served` at `gap = 0`, the limit), the
 * difference as it is where they are far apart (`e^{−θt}` then differs from `e^{−μt}` by a factor
 * of e or more, and `expm1` could overflow where `served` underflows).
 */
function twoRateGap(t: number, mu: number, gap: number, served: number): number {
  const x = gap * t;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the two forms agree to rounding near |x| = 1
  if (x <= 1 && x >= -1) return gap === 0 ? -t * served : (served * Math.expm1(-x)) / gap;
  return (Math.exp(-(mu + gap) * t) - served) / gap;
}

/**
 * The time `t` with `P(T > t) = 1 − q`: the q-quantile of the response time (q = 0.99: the
 * 99th percentile), or `undefined` at or above saturation. One server, or a queue nobody waits
 * in, has an exponential response time and a closed form (`ln(1/(1 − q)) / rate`); otherwise
 * Newton's method on the decreasing `exceedProbability`, from where its slower exponential alone
 * would put the quantile (`tailGuess`), inside a bracket of the points seen (doubled while it has
 * no top, halved wherever a step would leave it), until a step no longer moves `t` (the answer)
 * or the bracket is 1e-12 of its top, whose end nearer `1 − q` is the answer (a first step can
 * land on the root and leave the guess, the bracket's top, 1e-13 off).
 */
export function responseTimeQuantile(
  q: number,
  throughput: number,
  serviceTime: number,
  servers: number,
  times: QueueTimes | undefined = queueTimes(throughput, serviceTime, servers),
): number | undefined {
  if (times === undefined) return undefined;
  const target = 1 - q;
  const mu = 1 / serviceTime;
  // Stryker disable next-line ConditionalExpression: same answer, other work: where the root find starts and how it steps (mmc.test.ts checks that every quantile leaves 1 − q above it to 1e-13, on 400 random pools, loads and quantiles)
  if (servers === 1) return Math.log(1 / target) / (mu - throughput);
  const C = times.waitProbability;
  // Stryker disable next-line ConditionalExpression: same answer, other work: where the root find starts and how it steps (mmc.test.ts checks that every quantile leaves 1 − q above it to 1e-13, on 400 random pools, loads and quantiles)
  if (C === 0) return Math.log(1 / target) * serviceTime;
  const theta = servers * mu - throughput;
  // θ − μ from the inputs, not from θ, which has rounded `servers · μ` already.
  const gap = (servers - 1) * mu - throughput;
  let low = 0;
  let high = Number.POSITIVE_INFINITY;
  let lowValue = Number.POSITIVE_INFINITY;
  let highValue = Number.NEGATIVE_INFINITY;
  // Stryker disable all: same answer, other work: where the root find starts and how it steps (mmc.test.ts checks that every quantile leaves 1 − q above it to 1e-13, on 400 random pools, loads and quantiles)
  let t = tailGuess(target, mu, theta, C) ?? times.responseTime;
  for (let i = 0; i < 200 && (high === Number.POSITIVE_INFINITY || high - low > 1e-12 * high); i++) {
    // `exceedProbability(t) − target`, with its very expressions, and the density at `t` (the
    // slope of `1 − P(T > t)`), written out here so that a step takes each exponential once:
    // this loop runs for most of 200k nodes, and calling the two took both exponentials twice.
    const served = Math.exp(-mu * t);
    const between = twoRateGap(t, mu, gap, served);
    const tail = served - mu * between;
    const value = (1 - C) * served + C * tail - target;
    // The density of the queued part, `μθ·(e^{−μt} − e^{−θt}) / (θ − μ)`.
    // (θ · between first: both are of the scale of 1 / serviceTime and serviceTime, so a service
    // time of 1e-160 does not overflow μ · θ.)
    const queued = -mu * (theta * between);
    const density = (1 - C) * mu * served + C * queued;
    if (value > 0) {
      low = t;
      lowValue = value;
    } else {
      high = t;
      highValue = value;
    }
    const step = t - value / -density;
    // A step rounding back onto `t` is as close as doubles get.
    if (step === t) return t;
    t = step > low && step < high ? step : high === Number.POSITIVE_INFINITY ? 2 * t : (low + high) / 2;
  }
  // Stryker restore all
  return lowValue < -highValue ? low : high;
}

/**
 * Where the slower of the two exponentials in `P(T > t)` alone leaves `target` above it: the
 * tail is `A_μ·e^{−μt} + A_θ·e^{−θt}` with `A_θ = −C·μ / (θ − μ)` and `A_μ = 1 − C + C·θ / (θ − μ)`, and
 * at the 99th percentile the slower term is nearly all of it, so Newton's method starts a step or
 * two from the answer (where the two rates are within 1e-6 of each other, the one-rate tail
 * `(1 + C·μt)·e^{−μt}`); `undefined` where the guess is not a positive number.
 */
// Stryker disable all: same answer, other work: where the root find starts and how it steps (mmc.test.ts checks that every quantile leaves 1 − q above it to 1e-13, on 400 random pools, loads and quantiles)
function tailGuess(target: number, mu: number, theta: number, C: number): number | undefined {
  if (Math.abs(theta - mu) <= 1e-6 * mu) {
    // One rate: the tail is (1 + C·μt)·e^{−μt}; two fixed-point steps on t = ln((1 + C·μt) / target) / μ.
    let t = Math.log(1 / target) / mu;
    for (let i = 0; i < 2; i++) t = Math.log((1 + C * mu * t) / target) / mu;
    return t;
  }
  const slowTheta = theta < mu;
  const weight = slowTheta ? (C * mu) / (mu - theta) : 1 - C + (C * theta) / (theta - mu);
  const rate = slowTheta ? theta : mu;
  const guess = Math.log(weight / target) / rate;
  return guess > 0 && guess < Number.POSITIVE_INFINITY ? guess : undefined;
}

// Stryker restore all
