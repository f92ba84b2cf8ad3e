import { type CompiledStructure, withNodeValues } from '../compile';
import { GAIN_MARGIN, solveSteadyState } from '../steady-state';
import { checkpoint } from '../stop-check';

/** The nodes one request arriving at an entry calls, and how often each (expected calls). */
export interface EntryCalls {
  called: Int32Array;
  calls: Float64Array;
}

/** Columns solved in one pass: memory grows with them (8 bytes × nodes reached × columns; 128 MB for 16 columns over a million nodes), the passes with their batches (ten SLO entries: one pass, not two). */
const COLUMNS = 16;

/** Shares below this take the steady state's exact path (`CarriedValue`), so the block pass leaves them to it. */
const MIN_NORMAL = 2.2250738585072014e-308;

/**
 * Each entry's expected calls: the visits one request arriving there makes on every node, the
 * steady state of a single unit arriving at the entry. They do not depend on the traffic, so the
 * SLO search solves them once.
 *
 * Where everything the entries reach is acyclic (every node reached is its own component, as in
 * most service graphs), all entries are solved together in one pass over the reached nodes,
 * sources first, sixteen columns at a time: each node's column adds what its callers send it, in
 * the order and with the arithmetic of the steady state's own closed form for a single node
 * (`solveSingle`: the inflow, then divided by 1 − its self share), so the values are the same
 * bits as a separate solve per entry, for a fraction of the work. Otherwise (a loop on the way, a
 * self share within the gain margin of 1, a share that underflows) each entry gets its own steady
 * solve.
 */
export function expectedCalls(structure: CompiledStructure, entries: readonly number[]): EntryCalls[] {
  return expectedCallsAlong(structure, entries, onePassOrder(structure, entries));
}

/**
 * `expectedCalls` with the one-pass order already found (`onePassOrder`; `undefined`: a steady
 * solve per entry), for a caller that has asked for it first: finding it walks every node the
 * entries reach.
 */
export function expectedCallsAlong(
  structure: CompiledStructure,
  entries: readonly number[],
  reached: OnePassOrder | undefined,
): EntryCalls[] {
  // Stryker disable next-line ConditionalExpression: same answer, other work (a solve per entry gives the same bits; the `false` twin is killed)
  if (reached === undefined) return entries.map((e) => compact(solveUnit(structure, e)));
  const result: EntryCalls[] = [];
  // Stryker disable next-line EqualityOperator: one past the end (an empty batch adds nothing)
  for (let from = 0; from < entries.length; from += COLUMNS) {
    checkpoint();
    result.push(...solveColumns(structure, entries.slice(from, from + COLUMNS), reached));
  }
  return result;
}

/** The nodes the entries reach, sources first, with each one's place in that order. */
export interface OnePassOrder {
  order: Int32Array;
  place: Int32Array;
}

/**
 * The order `expectedCalls` solves these entries in, in one pass; `undefined` when the one-pass
 * solve does not apply (see `expectedCalls`): then each entry takes a steady solve.
 */
export function onePassOrder(
  structure: CompiledStructure,
  entries: readonly number[],
):
  | OnePassOrder
  | undefined /* Stryker disable next-line BlockStatement: same answer, other work (refusing the pass costs a solve per entry, which gives the same bits) */ {
  const { nodeCount, outStart, outTarget, inStart, inShare, selfShare } = structure;
  const { count, start, members, componentOf } = structure.components();
  const seen = new Uint8Array(nodeCount);
  // Stryker disable next-line ArrayDeclaration: same answer, other work (a stray element is no node: the pass is refused)
  const stack: number[] = [];
  for (const e of entries) {
    // Stryker disable next-line ConditionalExpression: same answer, other work (an entry pushed twice is visited twice)
    if (seen[e] === 0) {
      seen[e] = 1;
      stack.push(e);
    }
  }
  // Stryker disable next-line EqualityOperator: same answer, other work (popping an empty stack gives no node: the pass is refused)
  while (stack.length > 0) {
    const u = stack.pop()!;
    const c = componentOf[u]!;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: same answer, other work (refusing the pass; the `false` twin, a loop taken into it, is killed)
    if (start[c + 1]! - start[c]! !== 1) return undefined;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other work (refusing the pass more often; the twin that never refuses is killed)
    if (!(1 - selfShare[u]! >= GAIN_MARGIN)) return undefined;
    // Stryker disable next-line EqualityOperator: one past the end (one node more in the pass, whose column stays 0)
    for (let k = outStart[u]!; k < outStart[u + 1]!; k++) {
      const t = outTarget[k]!;
      if (seen[t] === 0) {
        seen[t] = 1;
        stack.push(t);
      }
    }
  }
  const place = new Int32Array(nodeCount).fill(-1);
  const order: number[] = [];
  // Components are numbered sinks first: counting down visits every caller before its callees.
  for (let c = count - 1; c >= 0; c--) {
    const v = members[start[c]!]!;
    // Stryker disable next-line ConditionalExpression: same answer, other work (a node no entry reaches has a column of 0s, listed nowhere)
    if (seen[v] === 0) continue;
    // Stryker disable next-line EqualityOperator,UpdateOperator: one past the end, or `j--` reading down to index −1 (undefined: the pass is refused); the `>=` twin, no check, is killed
    for (let j = inStart[v]!; j < inStart[v + 1]!; j++) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral: same answer, other work (refusing the pass more often; the twin that never refuses is killed)
      if (!(inShare[j]! >= MIN_NORMAL)) return undefined;
    }
    place[v] = order.length;
    order.push(v);
  }
  return { order: Int32Array.from(order), place };
}

/** Up to `COLUMNS` entries' expected calls in one pass over the reached nodes. */
function solveColumns(
  structure: CompiledStructure,
  entries: readonly number[],
  reached: OnePassOrder,
): EntryCalls[] {
  const { inStart, inSource, inShare, selfShare } = structure;
  const { order, place } = reached;
  const k = entries.length;
  const x = new Float64Array(order.length * k);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let i = 0; i < order.length; i++) {
    const v = order[i]!;
    const row = i * k;
    // Stryker disable next-line EqualityOperator: one past the end (the next row's first value, set again when its turn comes)
    for (let column = 0; column < k; column++) x[row + column] = entries[column] === v ? 1 : 0;
    for (let j = inStart[v]!; j < inStart[v + 1]!; j++) {
      const u = inSource[j]!;
      const from = u === v ? -1 : place[u]!;
      // Stryker disable next-line ConditionalExpression: same answer, other work (x at a negative index is undefined, and undefined > 0 is false)
      if (from < 0) continue;
      const share = inShare[j]!;
      const source = from * k;
      // Stryker disable next-line EqualityOperator: one past the end (the next row's first value, set again when its turn comes)
      for (let column = 0; column < k; column++) {
        const sent = x[source + column]!;
        // As solveSingle adds only what a caller that processes anything sends.
        // Stryker disable next-line ConditionalExpression,EqualityOperator: adding 0 × a finite share changes no bit
        if (sent > 0) x[row + column] = x[row + column]! + sent * share;
      }
    }
    const stay = selfShare[v]!;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: dividing by 1 − 0 changes no bit, and one past the end
    if (stay > 0) {
      // As solveSingle divides: by what the node does not keep, summed for a routing node.
      const notKept = structure.shareNotKept(v);
      for (let column = 0; column < k; column++) x[row + column] = x[row + column]! / notKept;
    }
  }
  // Each column's positive values, counted first so that they go straight into typed arrays.
  const counts = new Int32Array(k);
  // Stryker disable next-line EqualityOperator: one past the end (x reads undefined there, which is not above 0)
  for (let i = 0; i < x.length; i++) if (x[i]! > 0) counts[i % k]!++;
  const result = entries.map((_, column) => ({
    called: new Int32Array(counts[column]!),
    calls: new Float64Array(counts[column]!),
  }));
  const filled = new Int32Array(k);
  // Stryker disable next-line EqualityOperator: one past the end
  for (let i = 0; i < order.length; i++) {
    const row = i * k;
    for (let column = 0; column < k; column++) {
      const value = x[row + column]!;
      if (value > 0) {
        const at = filled[column]!++;
        result[column]!.called[at] = order[i]!;
        result[column]!.calls[at] = value;
      }
    }
  }
  return result;
}

/** A node array's positive entries, as the nodes and their values. */
function compact(values: Float64Array): EntryCalls {
  const called: number[] = [];
  const calls: number[] = [];
  // Stryker disable next-line EqualityOperator: one past the end
  for (let v = 0; v < values.length; v++) {
    if (values[v]! > 0) {
      called.push(v);
      calls.push(values[v]!);
    }
  }
  return { called: Int32Array.from(called), calls: Float64Array.from(calls) };
}

/** The steady state of a single unit arriving at `e`, on its own. */
function solveUnit(structure: CompiledStructure, e: number): Float64Array {
  const unit = new Float64Array(structure.nodeCount);
  unit[e] = 1;
  // Other arrivals, so other flows: the copy shares no steady state with the structure.
  const single = withNodeValues(structure, {
    initialLoads: structure.initialLoads,
    capacity: structure.capacity,
    open: {
      arrival: unit,
      exit: structure.exit,
      fields: structure.openFields,
      hasFanout: structure.hasFanout,
      latency: structure.latency,
    },
  });
  return new Float64Array(solveSteadyState(single).throughput);
}
