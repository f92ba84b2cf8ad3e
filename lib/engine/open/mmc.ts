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
 * load `a = throughput × serviceTime` below `servers`. Computed from the Erlang B recursion
 * `B(k) = a·B(k−1) / (k + a·B(k−1))`, whose values stay in [0, 1], and `C = c·B / (c − a·(1 − B))`:
 * no factorial or power of `a` is ever formed, so 10,000 servers at a load of 9,999 are as exact
 * as 3 at 2.5.
 */
export function erlangC(servers: number, offered: number): number {
  let blocking = 1;
  for (let k = 1; k <= servers; k++) {
    const carried = offered * blocking;
    blocking = carried / (k + carried);
  }
  return (servers * blocking) / (servers - offered * (1 - blocking));
}

/**
 * The queue's steady-state times, or `undefined` at or above saturation (`a ≥ servers`), where
 * the queue grows without limit and no mean time exists.
 */
export function queueTimes(throughput: number, serviceTime: number, servers: number): QueueTimes | undefined {
  const offered = throughput * serviceTime;
  if (!(offered < servers)) return undefined;
  const waitProbability = offered > 0 ? erlangC(servers, offered) : 0;
  const waiting = (waitProbability * serviceTime) / (servers - offered);
  const responseTime = serviceTime + waiting;
  return { responseTime, waiting, inFlight: throughput * responseTime, waitProbability };
}

/**
 * The probability that a request spends longer than `t` at the service. With `μ = 1/serviceTime`
 * and `θ = servers·μ − throughput` (the rate at which a queue drains), the wait is 0 with
 * probability `1 − C` and otherwise exponential at rate `θ`, so
 * `P(T > t) = (1 − C)·e^{−μt} + C·(θ·e^{−μt} − μ·e^{−θt}) / (θ − μ)`, and where `θ = μ`
 * (a load of exactly `servers − 1`) the second term is `C·(1 + μt)·e^{−μt}`. For one server it
 * reduces to `e^{−(μ − λ)t}`.
 */
export function exceedProbability(
  t: number,
  throughput: number,
  serviceTime: number,
  servers: number,
  waitProbability: number,
): number {
  const mu = 1 / serviceTime;
  const theta = servers * mu - throughput;
  const served = Math.exp(-mu * t);
  const C = waitProbability;
  if (C === 0) return served;
  // Where θ and μ are within rounding of each other the two forms meet; the limit avoids 0 / 0.
  const tail =
    Math.abs(theta - mu) <= 1e-12 * mu
      ? (1 + mu * t) * served
      : (theta * served - mu * Math.exp(-theta * t)) / (theta - mu);
  return (1 - C) * served + C * tail;
}

/**
 * The time `t` with `P(T > t) = 1 − q`: the q-quantile of the response time (q = 0.99: the
 * 99th percentile), or `undefined` at or above saturation. Found by bisection on the decreasing
 * `exceedProbability`, from a bracket doubled until it holds, to 1e-12 relative: 60 halvings.
 */
export function responseTimeQuantile(
  q: number,
  throughput: number,
  serviceTime: number,
  servers: number,
): number | undefined {
  const times = queueTimes(throughput, serviceTime, servers);
  if (times === undefined) return undefined;
  const target = 1 - q;
  const exceeds = (t: number) =>
    exceedProbability(t, throughput, serviceTime, servers, times.waitProbability) > target;
  let low = 0;
  let high = times.responseTime;
  while (exceeds(high)) {
    low = high;
    high *= 2;
  }
  for (let i = 0; i < 200 && high - low > 1e-12 * high; i++) {
    const middle = (low + high) / 2;
    if (exceeds(middle)) low = middle;
    else high = middle;
  }
  return high;
}
