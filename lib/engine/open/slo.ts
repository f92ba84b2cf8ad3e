import type { CompiledStructure } from '../compile';
import type { SteadyReading } from '../steady-reading';
import { keepsWhatReaches } from '../steady-state';
import { checkpoint } from '../stop-check';
import type { Headroom } from '../types';
import { solveEntryLatency } from './entry-latency';
import { type EntryCalls, expectedCalls, expectedCallsAlong, onePassOrder } from './expected-calls';
import type { LatencyReading } from './latency-reading';
import { meanResponseTime } from './mmc';
import { saturationScale } from './node-latency';

/** Search steps at most (each one pass over the nodes the entries call). */
const SEARCH_STEPS = 200;
/** The scale is found to this fraction of itself. */
const RELATIVE_PRECISION = 1e-9;
/**
 * Most SLO entries whose expected calls are all solved up front, where one pass solves them
 * (sixteen at a time): each costs a pass over what it reaches, so a structure whose every node is
 * an entry with an `slo` would cost entries × nodes. Past this, the search starts with the entry
 * likeliest to break, as where the entries reach a loop.
 */
const ALL_AT_ONCE = 64;

/** One entry with an `slo` whose requests finish today. */
export interface SloEntry {
  node: number;
  slo: number;
  /** The nodes its requests call, and how often each (expected calls per request). */
  called: Int32Array;
  calls: Float64Array;
  /** The scale at which the first node it calls saturates (`Infinity` for none). */
  saturation: number;
}

/**
 * The largest factor of today's traffic at which every entry with an `slo` still answers within
 * it, and the entry that breaks first; `null` when no entry has an `slo`.
 *
 * Each SLO entry's expected calls on every node — the visits one request there makes, the steady
 * state of a single unit arriving at the entry — do not depend on the traffic, so they are
 * solved once (`expected-calls.ts`: all entries in one pass where what they reach is acyclic and
 * they are at most `ALL_AT_ONCE`; otherwise the entry likeliest to break first, then any other
 * that misses, `searchBindingFirst`). At a scale `s` every throughput is `s` times today's, so an entry's
 * latency is `L(s) = Σ calls(v) · R_v(s · x_v)`: one pass over the nodes it calls, each node's
 * response time computed once per step for all entries. Latency grows with `s` and has no finite
 * value once a node on the entry's paths saturates, so `f(s) = min over entries of slo / L(s) − 1`
 * falls from `f(0) ≥ 0` to `−1` at the first saturation, and is close to a straight line there
 * (`1 / L` vanishes like the distance to saturation): the search is regula falsi on `f` (the
 * Illinois variant, a bisection step whenever two steps have not halved the bracket), to 1e-9
 * of the scale, in some ten steps where bisection takes thirty.
 *
 * An entry that misses its SLO with no traffic at all (its service times alone add up to more),
 * or whose requests get stuck at any traffic (a node down or unbounded on their paths), gives a
 * scale of 0; one stuck today only at a node over capacity is searched below that node's
 * saturation, like any other (a scale below 1, or 1 itself when the SLO holds up to a saturation
 * at exactly ×1). Entries whose scales agree to 1e-9 are a tie, and ties go to the smallest id:
 * the entry named is the smallest id among those that miss 1e-9 above the scale found.
 */
export function latencyHeadroom(
  structure: CompiledStructure,
  steady: SteadyReading,
  latencies: LatencyReading,
): Headroom | null {
  const { nodeCount, ids, arrival } = structure;
  const { slo } = structure.latency;
  const { throughput } = steady.steady;
  let stuck = -1;
  let any = false;
  const candidates: number[] = [];
  // Entries stuck today only because a node on their paths is over capacity: less traffic frees
  // them, unless they also reach a node that is down or unbounded whatever the traffic.
  let everStuck: Int32Array | undefined;
  // Stryker disable next-line EqualityOperator: one past the end
  for (let e = 0; e < nodeCount; e++) {
    if (!(slo[e]! > 0 && arrival[e]! > 0)) continue;
    any = true;
    const limit = latencies.limitedBy[e]!;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: same answer, other work (finding where requests get stuck at any traffic for every entry, not only those over capacity today)
    if (limit >= 0 && latencies.reasonOf(limit) === 'saturated') {
      everStuck ??= stuckWhateverTheTraffic(structure, throughput);
    }
    if (limit >= 0 && (latencies.reasonOf(limit) !== 'saturated' || everStuck![e]! >= 0)) {
      if (
        stuck < 0 ||
        // Stryker disable next-line EqualityOperator: ids are unique (the `>=` twin is killed)
        ids[e]! < ids[stuck]!
      )
        stuck = e;
    } else candidates.push(e);
  }
  if (!any) return null;
  if (stuck >= 0) return { scale: 0, node: ids[firstAtNoTraffic(structure, throughput, candidates, stuck)]! };
  const saturation = firstSaturations(structure, throughput);
  // The one-pass order is found once, for the question and the solve.
  const reached = onePassOrder(structure, candidates);
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,BlockStatement: same answer, other work (both searches give the answer of a search over every entry; slo.test.ts checks it)
  if (candidates.length === 1 || (reached !== undefined && candidates.length <= ALL_AT_ONCE)) {
    const calls = expectedCallsAlong(structure, candidates, reached);
    const entries = candidates.map((e, i) => sloEntry(structure, e, calls[i]!, saturation));
    const at = new LatencyAt(structure, throughput, entries);
    // Stryker disable next-line ConditionalExpression,MethodExpression,ArrowFunction,BlockStatement: same answer, other work (the search by the solve at each step answers as the search by calls where they agree)
    if (entries.every((entry) => callsHoldToday(at, entry, latencies.latency))) {
      return search(at, entries, ids).headroom;
    }
    return searchByPasses(structure, throughput, candidates, saturation);
  }
  // Stryker disable next-line ConditionalExpression: same answer, other work (a pass per step where the entries reach a loop is a solve of it per step; slo.test.ts checks both searches against every entry searched alone)
  if (reached !== undefined) {
    // Many entries on acyclic paths: every entry's latency at a scale is one pass over the
    // structure (the entry latencies' solve, a closed form per node), so each step of the search
    // asks it of all of them at once, for no expected calls at all.
    return searchByPasses(structure, throughput, candidates, saturation);
  }
  return searchBindingFirst(structure, throughput, candidates, latencies.latency, saturation);
}

/**
 * The search with each step's latencies from the entry latencies' solve at that scale, all
 * entries at once and no expected calls: one pass a step on acyclic paths, a solve of each loop
 * where they reach loops.
 */
function searchByPasses(
  structure: CompiledStructure,
  throughput: Float64Array,
  candidates: readonly number[],
  saturation: Float64Array,
): Headroom {
  const { slo } = structure.latency;
  const entries = candidates.map(
    (e): SloEntry => ({
      node: e,
      slo: slo[e]!,
      called: NO_NODES,
      calls: NO_CALLS,
      saturation: saturation[e]!,
    }),
  );
  return search(new LatenciesByPass(structure, throughput), entries, structure.ids).headroom;
}

/**
 * Where an entry is stuck (a scale of 0), the entry named: the smallest id among the entries stuck
 * and those that miss their SLO with no traffic at all, a tie at 0 as the search would name it
 * (its latency with no traffic above its SLO, or at it with a queue on its way). Only entries
 * whose id comes before the stuck one's are asked, with one solve of the latencies with no
 * traffic.
 */
function firstAtNoTraffic(
  structure: CompiledStructure,
  throughput: Float64Array,
  candidates: readonly number[],
  stuck: number,
): number {
  const { ids } = structure;
  const { slo } = structure.latency;
  // Stryker disable next-line MethodExpression,ConditionalExpression,EqualityOperator: same answer, other work (every entry asked: only one before the stuck one can be named; ids are unique)
  const before = candidates.filter((e) => ids[e]! < ids[stuck]!);
  // Stryker disable next-line ConditionalExpression: same answer, other work (a solve of the latencies with no traffic that names no entry)
  if (before.length === 0) return stuck;
  const idle = entryLatenciesAt(structure, throughput, 0);
  let queues: Float64Array | undefined;
  const growsWithTraffic = (e: number) => {
    queues ??= queuesOnTheWay(structure);
    return queues[e]! > 0;
  };
  let first = stuck;
  for (const e of before) {
    const misses = idle[e]! > slo[e]! || (!(slo[e]! / idle[e]! > 1) && growsWithTraffic(e));
    // Stryker disable next-line EqualityOperator: ids are unique
    if (misses && ids[e]! < ids[first]!) first = e;
  }
  return first;
}

/** How far an entry's latency from its expected calls may be from the solve's, today. */
const CALLS_AGREE = 1e-6;

/**
 * Whether an entry's latency today from its expected calls agrees with the entry latencies'
 * solve. Expected calls multiply along the calls' weights and can fall below the doubles (a
 * request that calls one node 1e-165 times, which calls another 1e-165 times: 1e-330 calls of
 * the second, read as 0), where the solve, which multiplies by each node's own time first, still
 * counts them: such an entry's search would leave out the node it reaches so rarely, and with it
 * the growth of its response time. An entry stuck today has nothing finite to compare.
 */
// Stryker disable next-line BlockStatement: same answer, other work (undefined does not hold: the search by the solve answers the same)
function callsHoldToday(at: LatencyAt, entry: SloEntry, today: Float64Array): boolean {
  const solved = today[entry.node]!;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral: same answer, other work (an entry stuck today compares Infinity with Infinity, which holds, or goes to the search by the solve, which answers the same)
  if (!(solved < Number.POSITIVE_INFINITY)) return true;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: same answer, other work (calls found not to hold send the search to the solve at each step, which answers the same)
  return Math.abs(at.of(entry, 1) - solved) <= CALLS_AGREE * solved;
}

/**
 * Per node, where its requests get stuck at any traffic at all (a node down, or unbounded: a
 * loop that keeps what enters it), −1 where less traffic would let them through. By
 * reachability, as the entry latencies find it: a node reached only through calls too rare for a
 * double still counts.
 */
export function stuckWhateverTheTraffic(structure: CompiledStructure, throughput: Float64Array): Int32Array {
  const { nodeCount } = structure;
  const own = new Float64Array(nodeCount);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < nodeCount; v++) {
    if (
      // Stryker disable next-line ConditionalExpression: same answer, other work (an entry that reaches an unbounded node misses its SLO with no traffic in the search too, and latencyCurve finds its latency with no traffic infinite: its calls there are past counting)
      throughput[v] === Number.POSITIVE_INFINITY ||
      keepsWhatReaches(structure, v)
    )
      own[v] = Number.POSITIVE_INFINITY;
  }
  return solveEntryLatency(structure, own).limitedBy;
}

const NO_NODES = new Int32Array(0);
const NO_CALLS = new Float64Array(0);

/**
 * Per node, the scale of today's traffic at which the first node its requests can reach
 * saturates (`Infinity` for none): its own (capacity ÷ throughput), or the least of what it
 * calls. By reachability, as the entry latencies find where requests get stuck: a node reached
 * only through calls too rare for a double (shares of 1e-200 twice) still counts. One pass over
 * the components, callees first (they are numbered sinks first); a loop's members share one.
 */
export function firstSaturations(structure: CompiledStructure, throughput: Float64Array): Float64Array {
  const { capacity, outStart, outTarget, nodeCount } = structure;
  const { count, start, members } = structure.components();
  const saturation = new Float64Array(nodeCount).fill(Number.POSITIVE_INFINITY);
  // Stryker disable next-line EqualityOperator: one past the end (an empty component)
  for (let c = 0; c < count; c++) {
    let first = Number.POSITIVE_INFINITY;
    for (let i = start[c]!; i < start[c + 1]!; i++) {
      const v = members[i]!;
      const x = throughput[v]!;
      // A capacity counts where the steady state counts it: on a node with a way out (a queue
      // that keeps what it takes never fills, as `headroom` and `utilization` say).
      // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: same answer (capacity / 0 and Infinity / x are Infinity, which the minimum ignores)
      if (x > 0 && capacity[v]! < Number.POSITIVE_INFINITY && structure.hasWayOut(v))
        first = Math.min(first, saturationScale(structure, v, x));
      // A member's calls inside the loop read Infinity, not yet set: the minimum ignores it.
      for (let k = outStart[v]!; k < outStart[v + 1]!; k++)
        first = Math.min(first, saturation[outTarget[k]!]!);
    }
    // Stryker disable next-line EqualityOperator: one past the end (the next component's first member, set again when its turn comes)
    for (let i = start[c]!; i < start[c + 1]!; i++) saturation[members[i]!] = first;
  }
  return saturation;
}

/** The entries' latencies at a scale of today's traffic, as the search asks them. */
abstract class EntryLatenciesAt {
  #queues: Float64Array | undefined;

  constructor(
    protected readonly structure: CompiledStructure,
    /** Today's steady throughputs. */
    protected readonly throughput: Float64Array,
  ) {}

  /** Entry `entry`'s latency at scale `s` (`Infinity` once a node on its way saturates). */
  abstract of(entry: SloEntry, s: number): number;

  /** Whether entry `entry`'s latency grows with any traffic at all: a queue on its way. */
  growsWithTraffic(entry: SloEntry): boolean {
    this.#queues ??= queuesOnTheWay(this.structure);
    return this.#queues[entry.node]! > 0;
  }
}

/** Every entry's latency at a scale, from one solve of the entry latencies there (`entryLatenciesAt`). */
class LatenciesByPass extends EntryLatenciesAt {
  #scale = Number.NaN;
  #latency: Float64Array = new Float64Array(0);

  of(entry: SloEntry, s: number): number {
    if (s !== this.#scale) {
      this.#latency = entryLatenciesAt(this.structure, this.throughput, s);
      this.#scale = s;
    }
    return this.#latency[entry.node]!;
  }
}

/**
 * Per node, more than 0 where its requests reach a queue (a node with servers), whose response
 * time grows with any traffic at all: M/M/c waits for any load above 0, though with many servers
 * by less than a double can add to the service time (ten servers of 0.1 s at a billionth of their
 * capacity wait some 1e-97 s). (Where every queue on the way takes no traffic today, nothing on
 * the way saturates and the search answers before it asks.) By the entry latencies' solve, with 1
 * for each such node and 0 elsewhere.
 */
function queuesOnTheWay(structure: CompiledStructure): Float64Array {
  const { nodeCount } = structure;
  const { servers } = structure.latency;
  const queued = new Float64Array(nodeCount);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < nodeCount; v++) if (servers[v]! > 0) queued[v] = 1;
  return solveEntryLatency(structure, queued).latency;
}

/** `min over entries of slo / L(s) − 1`: 0 where the first entry just meets its SLO. */
function marginAt(latency: EntryLatenciesAt, entries: readonly SloEntry[], s: number): number {
  let smallest = Number.POSITIVE_INFINITY;
  for (const entry of entries) smallest = Math.min(smallest, entry.slo / latency.of(entry, s));
  return smallest - 1;
}

/**
 * The search where the entries reach a loop, so that each one's expected calls cost a steady
 * solve of it (a 195k-node tangle: some half a second each), or where they are too many to solve
 * all at once (each a pass over what it reaches). Only the entries that break first
 * decide the answer, so the search starts with the one most likely to (the smallest ratio of its
 * SLO to its latency today; ties: the smallest id), finds its scale, and checks every other entry
 * there with one solve of the entry latencies at that scale (`entryLatenciesAt`, the adjoint
 * solve, all entries at once). The entry that misses there by most (the largest latency ÷ SLO;
 * ties: smallest id) joins, and the search runs again, until no other entry misses. The check is
 * made where the search decides which entries miss (1e-9 above the scale found, 0, the first
 * saturation, or past every scale when nothing saturates), so an entry that breaks earlier
 * always misses there and the answer is the one a search over every entry gives. Ten SLO
 * entries whose first guess is right cost one entry's calls and one latency solve, not ten
 * steady solves; each wrong guess, one more of each.
 */
function searchBindingFirst(
  structure: CompiledStructure,
  throughput: Float64Array,
  candidates: readonly number[],
  today: Float64Array,
  saturation: Float64Array,
): Headroom {
  const { ids, nodeCount } = structure;
  const { slo } = structure.latency;
  // Stryker disable all: same answer, other work: which entry the search starts with or adds next (any order ends with the answer of a search over every entry; slo.test.ts checks it on eight orders of twelve entries)
  let likeliest = candidates[0]!;
  for (const e of candidates) {
    const margin = slo[e]! / today[e]!;
    const best = slo[likeliest]! / today[likeliest]!;
    if (margin < best || (margin === best && ids[e]! < ids[likeliest]!)) likeliest = e;
  }
  // Stryker restore all
  const active: SloEntry[] = [];
  const isActive = new Uint8Array(nodeCount);
  // The scale checked last, and the entries that missed there: every other entry met its SLO
  // there, so it meets it at any scale below too (latency grows with the scale).
  let checkedScale = Number.POSITIVE_INFINITY;
  let missedThere: readonly number[] = candidates;
  let joining = [likeliest];
  for (;;) {
    checkpoint();
    const calls = expectedCalls(structure, joining);
    joining.forEach((e, i) => {
      active.push(sloEntry(structure, e, calls[i]!, saturation));
      isActive[e] = 1;
    });
    const at = new LatencyAt(structure, throughput, active);
    // Stryker disable next-line ConditionalExpression,MethodExpression,ArrowFunction: same answer, other work (the search by the solve at each step answers as the search by calls where they agree)
    if (!active.every((entry) => callsHoldToday(at, entry, today))) {
      return searchByPasses(structure, throughput, candidates, saturation);
    }
    const found = search(at, active, ids);
    // No check needed where only active entries could miss: at or below the scale checked last,
    // the entries that missed there all searched. (A check there again finds no other entry missing.)
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArrowFunction: same answer, other work (a check more; a round can end above the scale checked last only within 1e-9 of it, a tie, so skipping that check too changes at most the entry named in a tie)
    if (found.checkedAt <= checkedScale && missedThere.every((e) => isActive[e] === 1)) return found.headroom;
    const checkedAt = found.checkedAt;
    const latency = entryLatenciesAt(structure, throughput, checkedAt);
    checkedScale = checkedAt;
    // An entry misses there when its latency is over its SLO, or when the scale is its first
    // saturation (the search's answer where the SLOs hold right up to it): the node saturating
    // may have no service time, so nothing in the latencies shows it, and `s · x` may round just
    // below its capacity there.
    const atSaturation = (e: number) => saturation[e]! <= checkedAt;
    // At no traffic, an entry exactly at its SLO whose latency grows at all misses too (`search`).
    let queues: Float64Array | undefined;
    const atEdge = (e: number) => {
      queues ??= queuesOnTheWay(structure);
      // Stryker disable next-line ConditionalExpression,LogicalOperator,ArithmeticOperator,EqualityOperator: same answer, other work (more entries kept as missing there: more rounds, each joining one, until every entry has searched; the twins that keep fewer are killed)
      return checkedAt === 0 && !(slo[e]! / latency[e]! > 1) && queues[e]! > 0;
    };
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (more entries kept as missing there, entries at their SLO or that meet it included: more rounds, each joining one, until every entry has searched)
    const overSlo = (e: number) => !(latency[e]! <= slo[e]!) || atEdge(e);
    const misses = (e: number) => atSaturation(e) || overSlo(e);
    // Stryker disable next-line MethodExpression,ConditionalExpression,EqualityOperator: same answer, other work (more entries kept as missing there, entries at their SLO included: more checks; the twin that keeps the entries that meet is killed)
    missedThere = candidates.filter(misses);
    // Of the entries that miss there, the one that misses by most is likeliest to break first:
    // it joins alone (each entry's calls cost a steady solve; the check, one latency solve).
    let worst = -1;
    for (const e of candidates) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (an entry that does not miss joining too; the twin that lets an active entry join again is killed)
      if (isActive[e] === 1 || !misses(e)) continue;
      // Stryker disable all: same answer, other work: which entry the search starts with or adds next (any order ends with the answer of a search over every entry; slo.test.ts checks it on eight orders of twelve entries)
      const overOf = (v: number) =>
        saturation[v]! <= checkedAt ? Number.POSITIVE_INFINITY : latency[v]! / slo[v]!;
      const over = overOf(e);
      const worstOver = worst < 0 ? -1 : overOf(worst);
      if (over > worstOver || (over === worstOver && ids[e]! < ids[worst]!)) worst = e;
      // Stryker restore all
    }
    if (worst < 0) return found.headroom;
    joining = [worst];
  }
}

/**
 * Every node's end-to-end latency at scale `s` of today's traffic: one solve of the entry
 * latencies with each node's response time at `s` (`Infinity` at or past its capacity).
 */
function entryLatenciesAt(structure: CompiledStructure, throughput: Float64Array, s: number): Float64Array {
  const { nodeCount, capacity } = structure;
  const { serviceTime, servers } = structure.latency;
  const own = new Float64Array(nodeCount);
  // Larger latencies here only make more entries join (more work, the same answer); a latency
  // too small could leave out an entry that breaks first, so those are what the tests pin.
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < nodeCount; v++) {
    const x = s * throughput[v]!;
    if (
      // Stryker disable next-line ConditionalExpression: same answer, other work (an entry that reaches a down or stranded node is stuck today and never searched)
      keepsWhatReaches(structure, v) ||
      // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer (a throughput of 0 is below every capacity, all above 0)
      (x > 0 && !(x < capacity[v]!) && structure.hasWayOut(v))
    )
      own[v] = Number.POSITIVE_INFINITY;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (a node without a service time has none, and no servers: 0 either way)
    else if (serviceTime[v]! > 0) {
      own[v] =
        // Stryker disable next-line ConditionalExpression: same answer, other work (a larger latency)
        servers[v] === 0 ? serviceTime[v]! : meanResponseTime(x, serviceTime[v]!, servers[v]!);
    }
  }
  return solveEntryLatency(structure, own).latency;
}

/**
 * The scale and the entry that breaks first, among entries that finish today, and the scale at
 * which the search decided which entries miss (`searchBindingFirst` checks the others there).
 */
function search(
  latency: EntryLatenciesAt,
  entries: readonly SloEntry[],
  ids: readonly string[],
): { headroom: Headroom; checkedAt: number } {
  const first = (among: readonly SloEntry[]): string => {
    let best = among[0]!;
    // Stryker disable next-line EqualityOperator: ids are unique (the `true` twin is killed)
    for (const entry of among) if (ids[entry.node]! < ids[best.node]!) best = entry;
    return ids[best.node]!;
  };
  // Stryker disable next-line EqualityOperator: an entry exactly at its SLO is at the edge: its scale is 0 either way
  const missing = (s: number) => entries.filter((entry) => latency.of(entry, s) > entry.slo);

  // An entry exactly at its SLO with no traffic whose latency grows at all (a queue on its
  // paths) misses it at any traffic: its scale is 0 too, and it ties with those that miss there.
  const atEdgeWithNoTraffic = (entry: SloEntry) =>
    !(entry.slo / latency.of(entry, 0) > 1) && latency.growsWithTraffic(entry);
  // The margin with no traffic first, then the entries that miss there (if any) at the same
  // scale: each scale's response times are computed once (`LatencyAt` keeps the last).
  const fZero = marginAt(latency, entries, 0);
  const missedAtZero =
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer: with f(0) ≥ 0 no entry misses with no traffic, and those at their SLO there are named by the branch for f(0) = 0 below
    fZero < 0
      ? entries.filter((entry) => latency.of(entry, 0) > entry.slo || atEdgeWithNoTraffic(entry))
      : [];
  // Stryker disable next-line ConditionalExpression: same answer, other work (the search from f(0) < 0 ends at 0 too, naming the same entries)
  if (missedAtZero.length > 0) return { headroom: { scale: 0, node: first(missedAtZero) }, checkedAt: 0 };

  let saturation = Number.POSITIVE_INFINITY;
  for (const entry of entries) saturation = Math.min(saturation, entry.saturation);
  // No saturation below the largest double: nothing on the way saturates (no servers, or no
  // traffic), or its traffic is so small that its saturation scale is past a double (1e-310
  // requests a step into one server). Latency may still grow over the scales there are, so the
  // search runs up to the largest.
  const below = saturation === Number.POSITIVE_INFINITY ? Number.MAX_VALUE : saturation * (1 - 1e-12);
  // Stryker disable next-line ConditionalExpression: same answer, other work (with f(0) > 0 no entry is at its SLO with no traffic, so none is taken)
  if (fZero === 0) {
    // An entry exactly at its SLO with no traffic: a latency that grows at all (a queue on its
    // paths) misses it at any traffic, so the scale is 0 exactly. Asked of the structure, not of
    // the numbers: the search would creep down towards 0 for all its steps and end on the scale
    // rounding leaves unchanged, which with many servers is far from tiny (ten servers of 0.1 s
    // and an SLO of 0.1 s read ×1.4: their wait rounds away below that).
    const missed = entries.filter(atEdgeWithNoTraffic);
    if (missed.length > 0) return { headroom: { scale: 0, node: first(missed) }, checkedAt: 0 };
  }
  const fBelow = marginAt(latency, entries, below);
  // Stryker disable next-line EqualityOperator: a margin of exactly 0 just below saturation is the same answer either way, to 1e-12
  if (fBelow >= 0) {
    // The SLOs hold right up to the first saturation (a node without a service time, say):
    // the entries that reach the node saturating first break there.
    return {
      headroom: {
        scale: Math.min(saturation, Number.MAX_VALUE),
        node: first(entries.filter((entry) => entry.saturation === saturation)),
      },
      checkedAt: saturation,
    };
  }
  let low = 0;
  let fLow = fZero;
  let high = below;
  let fHigh = fBelow;

  // Illinois regula falsi on f, decreasing: f(low) ≥ 0 > f(high).
  // Stryker disable all: same answer, other work: how the bracket shrinks (slo.test.ts checks the scale against the closed form of M/M/1 to 2e-9, never above it, on 300 random entries)
  let side = 0;
  let widthTwoAgo = Number.POSITIVE_INFINITY;
  let widthOneAgo = Number.POSITIVE_INFINITY;
  for (let step = 0; step < SEARCH_STEPS && high - low > RELATIVE_PRECISION * high; step++) {
    checkpoint();
    const width = high - low;
    // Written as steps from `low`: the bracket may reach the largest double, where `low + high`
    // and `high · f(low)` overflow.
    const midpoint = low + width / 2;
    const guess = width > widthTwoAgo / 2 ? midpoint : low + (width * fLow) / (fLow - fHigh);
    const s = guess > low && guess < high ? guess : midpoint;
    const f = marginAt(latency, entries, s);
    if (f >= 0) {
      low = s;
      fLow = f;
      if (side === 1) fHigh /= 2;
      side = 1;
    } else {
      high = s;
      fHigh = f;
      if (side === -1) fLow /= 2;
      side = -1;
    }
    widthTwoAgo = widthOneAgo;
    widthOneAgo = width;
  }
  // Stryker restore all
  // Entries whose scales agree to 1e-9 are a tie, named by the smallest id: every entry that
  // misses 1e-9 above the scale found is one. The top of the bracket alone would name whichever
  // of two scales 3e-14 apart it happened to fall above.
  const tie = Math.min(Math.max(high, low * (1 + RELATIVE_PRECISION)), below);
  return { headroom: { scale: low, node: first(missing(tie)) }, checkedAt: tie };
}

/** The response times of the nodes the entries call at a scale, and the entries' latencies. */
export class LatencyAt extends EntryLatenciesAt {
  readonly #response: Float64Array;
  readonly #nodes: Int32Array;
  #scale = Number.NaN;

  constructor(structure: CompiledStructure, throughput: Float64Array, entries: readonly SloEntry[]) {
    super(structure, throughput);
    this.#response = new Float64Array(structure.nodeCount);
    const seen = new Uint8Array(structure.nodeCount);
    // Stryker disable next-line ArrayDeclaration: same answer, other work (a stray element is no node)
    const nodes: number[] = [];
    for (const entry of entries) {
      for (const v of entry.called) {
        // Stryker disable next-line ConditionalExpression: same answer, other work (a node listed twice is computed twice)
        if (seen[v] === 0) {
          seen[v] = 1;
          nodes.push(v);
        }
      }
    }
    this.#nodes = Int32Array.from(nodes);
  }

  /** Computes every called node's response time at scale `s` (`Infinity` at or past saturation). */
  at(s: number): void {
    // Stryker disable next-line ConditionalExpression: same answer, other work (the same scale computed again)
    if (s === this.#scale) return;
    this.#scale = s;
    const { serviceTime, servers } = this.structure.latency;
    const { throughput } = this;
    for (const v of this.#nodes) {
      const service = serviceTime[v]!;
      // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: same answer, other work (a node without a service time has no servers either: its time is its service time, 0)
      if (!(service > 0)) {
        this.#response[v] = 0;
        continue;
      }
      const count = servers[v]!;
      this.#response[v] = count === 0 ? service : meanResponseTime(s * throughput[v]!, service, count);
    }
  }

  /** Entry `entry`'s latency at scale `s`. */
  of(entry: SloEntry, s: number): number {
    this.at(s);
    const { called, calls } = entry;
    let sum = 0;
    for (let i = 0; i < called.length; i++) {
      const response = this.#response[called[i]!]!;
      // A node without a service time adds nothing, however often it is called (calls that
      // overflow a double included: Infinity × 0 would make the latency NaN).
      // Stryker disable next-line ConditionalExpression: same answer, other work (a NaN latency today disagrees with the solve's, `callsHoldToday`, and the search by the solve at each step answers the same)
      if (response !== 0) sum += calls[i]! * response;
    }
    return sum;
  }
}

/** Entry `e` with its expected calls, and the scale at which the first node it reaches saturates (`firstSaturations`). */
export function sloEntry(
  structure: CompiledStructure,
  e: number,
  { called, calls }: EntryCalls,
  saturation: Float64Array,
): SloEntry {
  return { node: e, slo: structure.latency.slo[e]!, called, calls, saturation: saturation[e]! };
}
