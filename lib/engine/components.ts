import { type ArrayMemory, FRESH_ARRAYS, scratch } from './scratch';

/**
 * Strongly connected components (Tarjan), iterative so that a million-node chain cannot
 * overflow the call stack. Components come out in reverse topological order: every
 * component is emitted after all the components it can reach, which is the order in which
 * reach probabilities can be solved.
 */
export interface Components {
  count: number;
  /** Component number of each node. */
  componentOf: Int32Array;
  /** Members of component `c` are `members[start[c] .. start[c + 1])`. */
  start: Int32Array;
  members: Int32Array;
}

export function stronglyConnectedComponents(
  nodeCount: number,
  outStart: Int32Array,
  outTarget: Int32Array,
  memory: ArrayMemory = FRESH_ARRAYS,
): Components {
  const componentOf = memory.int32(nodeCount);
  const members = memory.int32(nodeCount);
  const start = memory.int32(nodeCount + 1);
  return scratch.run(() => {
    // The search's working arrays come after the components' own, so they can be given back.
    const mark = scratch.mark();
    try {
      return tarjan(nodeCount, outStart, outTarget, { componentOf, members, start });
    } finally /* Stryker disable next-line BlockStatement: releasing only lets the rest of the call reuse the memory */ {
      scratch.release(mark);
    }
  });
}

function tarjan(
  nodeCount: number,
  outStart: Int32Array,
  outTarget: Int32Array,
  into: { componentOf: Int32Array; members: Int32Array; start: Int32Array },
): Components {
  const { componentOf, members, start } = into;
  const index = scratch.int32(nodeCount, -1);
  const low = scratch.int32(nodeCount);
  const onStack = scratch.uint8(nodeCount);
  const stack = scratch.int32(nodeCount);
  const callNode = scratch.int32(nodeCount);
  const callEdge = scratch.int32(nodeCount);

  let stackSize = 0;
  let callDepth = 0;
  let counter = 0;
  let count = 0;
  let memberCount = 0;

  // Stryker disable next-line EqualityOperator: a root past the last has index undefined, not -1, and is skipped
  for (let root = 0; root < nodeCount; root++) {
    if (index[root] !== -1) continue;
    index[root] = low[root] = counter++;
    stack[stackSize++] = root;
    onStack[root] = 1;
    callNode[0] = root;
    callEdge[0] = outStart[root]!;
    callDepth = 1;

    while (callDepth > 0) {
      const v = callNode[callDepth - 1]!;
      const k = callEdge[callDepth - 1]!;
      if (k < outStart[v + 1]!) {
        callEdge[callDepth - 1] = k + 1;
        const w = outTarget[k]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack[stackSize++] = w;
          onStack[w] = 1;
          callNode[callDepth] = w;
          callEdge[callDepth] = outStart[w]!;
          callDepth++;
        } else if (
          onStack[w] === 1 &&
          // Stryker disable next-line EqualityOperator: replacing a low-link by an equal one changes nothing
          index[w]! < low[v]!
        ) {
          low[v] = index[w]!;
        }
        continue;
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack[--stackSize]!;
          onStack[w] = 0;
          componentOf[w] = count;
          members[memberCount++] = w;
        } while (w !== v);
        count++;
        start[count] = memberCount;
      }
      callDepth--;
      // (At the root, callNode[-1] is undefined and comparing with low[undefined] is false.)
      // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
      if (callDepth > 0) {
        const parent = callNode[callDepth - 1]!;
        // Stryker disable next-line EqualityOperator: replacing a low-link by an equal one changes nothing
        if (low[v]! < low[parent]!) low[parent] = low[v]!;
      }
    }
  }
  return { count, componentOf, start: start.subarray(0, count + 1), members };
}
