import {
  ARRIVAL_GIVEN,
  type CompiledStructure,
  EXIT_GIVEN,
  FANOUT_GIVEN,
  FANOUT_ON,
  SERVERS_GIVEN,
  SERVICE_TIME_GIVEN,
  SLO_GIVEN,
} from './compile';
import {
  dependencyWithExtras,
  flowOf,
  nodeWithExtras,
  openNode,
  roleOf,
  type StateSummary,
  type StateToDescribe,
  summarizeState,
  throwFirstNonFiniteFlow,
} from './describe';
import { PayloadError, ResultTooLargeError } from './errors';
import { constantBytes, type JsonWriter, MAX_NUMBER_BYTES, type QuotedIds } from './json-writer';
import type { LatencyReading } from './open/latency-reading';
import { nodeLatency } from './open/node-latency';
import type { PressureBuffers } from './pressure';
import type { SteadyReading } from './steady-reading';
import { CarriedValue, keepsWhatReaches } from './steady-state';
import type { StateWithStep } from './step';
import { checkpoint } from './stop-check';
import type { EngineEvent, Headroom, Role } from './types';

/** Nodes or dependencies written between two checkpoints. */
const CHECK_EVERY = 4096;

const RESULT_OPEN = constantBytes('{"nodes":[');
const SNAPSHOT_OPEN = constantBytes('{"tick":');
const SNAPSHOT_NODES = constantBytes(',"nodes":[');
const NODE_ID = constantBytes('{"id":');
const NODE_LOAD = constantBytes(',"load":');
const NODE_CAPACITY = constantBytes(',"capacity":');
const NODE_INFLOW = constantBytes(',"inflow":');
const NODE_OUTFLOW = constantBytes(',"outflow":');
const NODE_PRESSURE = constantBytes(',"pressure":');
const NODE_BLOCKED = constantBytes(',"blocked":true,"role":');
const NODE_FREE = constantBytes(',"blocked":false,"role":');
/** Each role as a quoted string, followed by `after`. */
function roleBytes(after: string): Record<Role, Uint8Array> {
  const roles: Role[] = ['source', 'sink', 'relay', 'isolated'];
  return Object.fromEntries(roles.map((role) => [role, constantBytes(`"${role}"${after}`)])) as Record<
    Role,
    Uint8Array
  >;
}
const ROLE_CLOSE = roleBytes('}');
const DEPENDENCIES_OPEN = constantBytes('],"dependencies":[');
const DEPENDENCY_FROM = constantBytes('{"from":');
const DEPENDENCY_TO = constantBytes(',"to":');
const DEPENDENCY_WEIGHT = constantBytes(',"weight":');
const DEPENDENCY_FLOW = constantBytes(',"flow":');
const COMMA = 44;
const CLOSE_BRACE = 125;

/** Room for one node entry beyond its id: keys, punctuation, five numbers, the longest role. */
const NODE_BYTES = 100 + 5 * MAX_NUMBER_BYTES;
/** Room for one dependency entry beyond its two ids (a steady throughput included). */
const DEPENDENCY_BYTES = 56 + 3 * MAX_NUMBER_BYTES;

/**
 * About how many bytes one described state takes (a little more, usually): the buffer is
 * sized once instead of doubling its way up, since each new large buffer is external memory
 * that can start a full garbage collection.
 */
// Stryker disable all: an estimate only; reserve() grows the buffer and writes nothing, and every element reserves its own room (NODE_BYTES, DEPENDENCY_BYTES), so no estimate changes the text
export function estimateStateBytes(structure: CompiledStructure, ids: QuotedIds): number {
  const { nodeCount, dependencyCount, outStart, inStart } = structure;
  const { start } = ids;
  let idBytes = 0;
  for (let v = 0; v < nodeCount; v++) {
    const degree = outStart[v + 1]! - outStart[v]! + inStart[v + 1]! - inStart[v]!;
    idBytes += (start[v + 1]! - start[v]!) * (1 + degree);
  }
  return idBytes + nodeCount * (95 + 5 * 12) + dependencyCount * (34 + 2 * 12) + 1024;
}
// Stryker restore all

/**
 * Writes one described state as JSON text, byte for byte what `JSON.stringify` makes of
 * `describeState`'s object (with `tick` first for a snapshot). Node and dependency entries are
 * written straight from the state's arrays, events, origin and trace from the summary's small
 * objects; only entries with extra fields go through `JSON.stringify` (`elementText`).
 * Returns the summary it wrote (a comparison reads it).
 */
export function writeState(
  writer: JsonWriter,
  ids: QuotedIds,
  withTick: boolean,
  described: StateToDescribe,
): StateSummary {
  const { structure, state, measured, options } = described;
  const summary = summarizeState(described);
  writer.reserve(SNAPSHOT_OPEN.length + MAX_NUMBER_BYTES + SNAPSHOT_NODES.length);
  if (withTick) {
    writer.bytes(SNAPSHOT_OPEN);
    writer.number(options.tick);
    writer.bytes(SNAPSHOT_NODES);
  } else {
    writer.bytes(RESULT_OPEN);
  }
  if (structure.open)
    writeOpenNodes(
      writer,
      ids,
      structure,
      state,
      measured,
      options.steady,
      options.carryExtras,
      options.latency,
    );
  else writeNodes(writer, ids, structure, state, measured, options.carryExtras);
  writer.reserve(DEPENDENCIES_OPEN.length);
  writer.bytes(DEPENDENCIES_OPEN);
  writeDependencies(writer, ids, structure, state, options.carryExtras, options.steady);
  writeSummary(writer, summary);
  return summary;
}

/** `],"primaryBlockage":…,"events":[…],"origin":…,"trace":[…]}`: the rest of the object. */
function writeSummary(writer: JsonWriter, summary: StateSummary): void {
  writer.text('],"primaryBlockage":');
  if (summary.primaryBlockage === null) writer.text('null');
  else writer.string(summary.primaryBlockage);
  writer.text(',"events":[');
  const { events } = summary;
  for (let i = 0; i < events.length; i++) {
    if (i > 0) writer.text(',');
    writeEvent(writer, events[i]!);
  }
  writer.text('],"origin":');
  const { origin } = summary;
  if (origin === null) {
    writer.text('null');
  } else {
    writer.text('{"id":');
    writer.string(origin.id);
    writeNumberField(writer, ',"load":', origin.load);
    if (origin.arrival !== undefined) writeNumberField(writer, ',"arrival":', origin.arrival);
    writeNumberField(writer, ',"contribution":', origin.contribution);
    writeNumberField(writer, ',"share":', origin.share);
    writer.text('}');
  }
  writer.text(',"trace":');
  writeStrings(writer, summary.trace);
  writeHeadroom(writer, 'headroom', summary.headroom);
  writeHeadroom(writer, 'latencyHeadroom', summary.latencyHeadroom);
  const { bottlenecks, lost } = summary;
  if (bottlenecks !== undefined) {
    writer.text(',"bottlenecks":[');
    for (let i = 0; i < bottlenecks.length; i++) {
      const bottleneck = bottlenecks[i]!;
      writer.text(i > 0 ? ',{"node":' : '{"node":');
      writer.string(bottleneck.node);
      writeNumberField(writer, ',"scale":', bottleneck.scale);
      writeNumberField(writer, ',"utilization":', bottleneck.utilization);
      if (bottleneck.responseTime !== undefined)
        writeNumberField(writer, ',"responseTime":', bottleneck.responseTime);
      writer.text('}');
    }
    writer.text(']');
  }
  if (lost !== undefined) writeNumberField(writer, ',"lost":', lost);
  writer.text('}');
}

/** `,"<key>":{ "scale", "node" }` or `null`; nothing when the summary has no such field. */
function writeHeadroom(writer: JsonWriter, key: string, headroom: Headroom | null | undefined): void {
  if (headroom === undefined) return;
  writer.text(`,"${key}":`);
  if (headroom === null) {
    writer.text('null');
    return;
  }
  writeNumberField(writer, '{"scale":', headroom.scale);
  writer.text(',"node":');
  writer.string(headroom.node);
  writer.text('}');
}

/** An event in its type's key order (see types.ts), as `JSON.stringify` prints it. */
function writeEvent(writer: JsonWriter, event: EngineEvent): void {
  writeNumberField(writer, '{"tick":', event.tick);
  writer.text(',"type":');
  writer.string(event.type);
  switch (event.type) {
    case 'cycle':
      writer.text(',"nodes":');
      writeStrings(writer, event.nodes);
      writer.text(event.closed ? ',"closed":true}' : ',"closed":false}');
      return;
    case 'unbounded':
      writer.text(',"nodes":');
      writeStrings(writer, event.nodes);
      writer.text('}');
      return;
    case 'saturated':
      writer.text(',"node":');
      writer.string(event.node);
      if ('lost' in event) writeNumberField(writer, ',"lost":', event.lost);
      else writeNumberField(writer, ',"utilization":', event.utilization);
      writer.text('}');
      return;
    case 'blocked':
      writer.text(',"node":');
      writer.string(event.node);
      writeNumberField(writer, ',"pressure":', event.pressure);
      writer.text('}');
      return;
    case 'cleared':
    case 'drained':
      writer.text(',"node":');
      writer.string(event.node);
      writer.text('}');
      return;
    case 'settled':
      writer.text('}');
      return;
  }
}

function writeNumberField(writer: JsonWriter, key: string, value: number): void {
  writer.text(key);
  writer.reserve(MAX_NUMBER_BYTES);
  writer.number(value);
}

function writeStrings(writer: JsonWriter, values: readonly string[]): void {
  writer.text('[');
  for (let i = 0; i < values.length; i++) {
    if (i > 0) writer.text(',');
    writer.string(values[i]!);
  }
  writer.text(']');
}

function writeNodes(
  writer: JsonWriter,
  ids: QuotedIds,
  structure: CompiledStructure,
  state: StateWithStep,
  measured: PressureBuffers,
  carryExtras: boolean,
): void {
  const { nodeCount, capacity, nodeHasExtra } = structure;
  const { loads } = state;
  const { inflow, outflow } = state.step;
  const { pressure, blocked } = measured;
  const idBytes = ids.bytes;
  const idStart = ids.start;
  const room = NODE_BYTES + ids.longest;
  for (let v = 0; v < nodeCount; v++) {
    // Describing a large state takes seconds (an open one's response times most): the caller's
    // check is asked as it goes, so a run short of time stops here rather than past its timeout.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: how often the check is asked changes no answer
    if (v % CHECK_EVERY === 0) checkpoint();
    // Stryker disable next-line ConditionalExpression: a node without extras printed by JSON.stringify is the same text
    if (carryExtras && nodeHasExtra[v] === 1) {
      if (v > 0) writer.text(',');
      writeElement(
        writer,
        elementText(() => nodeWithExtras(structure, v, state, measured), `nodes[${v}]`),
      );
      continue;
    }
    writer.reserve(room);
    if (v > 0) writer.buffer[writer.length++] = COMMA;
    writer.bytes(NODE_ID);
    writer.range(idBytes, idStart[v]!, idStart[v + 1]!);
    writer.bytes(NODE_LOAD);
    writer.number(loads[v]!);
    const cap = capacity[v]!;
    if (cap !== Number.POSITIVE_INFINITY) {
      writer.bytes(NODE_CAPACITY);
      writer.number(cap);
    }
    writer.bytes(NODE_INFLOW);
    writer.number(inflow[v]!);
    writer.bytes(NODE_OUTFLOW);
    writer.number(outflow[v]!);
    writer.bytes(NODE_PRESSURE);
    writer.number(pressure[v]!);
    writer.bytes(blocked[v] === 1 ? NODE_BLOCKED : NODE_FREE);
    writer.bytes(ROLE_CLOSE[roleOf(structure, v)]);
  }
}

const NODE_ARRIVAL = constantBytes(',"arrival":');
const NODE_EXIT = constantBytes(',"exit":');
const NODE_FANOUT_ON = constantBytes(',"fanout":true');
const NODE_FANOUT_OFF = constantBytes(',"fanout":false');
const NODE_EXITED = constantBytes(',"exited":');
// An open node goes on after its role (throughput, utilization), so it closes itself.
const ROLE_OPEN = roleBytes('');
const NODE_THROUGHPUT = constantBytes(',"throughput":');
const NODE_UTILIZATION = constantBytes(',"utilization":');
const NODE_LOST = constantBytes(',"lost":');
const NODE_SERVICE_TIME = constantBytes(',"serviceTime":');
const NODE_SERVERS = constantBytes(',"servers":');
const NODE_SLO = constantBytes(',"slo":');
const NODE_RESPONSE_TIME = constantBytes(',"responseTime":');
const NODE_WAITING = constantBytes(',"waiting":');
const NODE_IN_FLIGHT = constantBytes(',"inFlight":');
const NODE_P99 = constantBytes(',"p99":');
const DEPENDENCY_THROUGHPUT = constantBytes(',"throughput":');
/** Room for an open node entry beyond its id: the closed entry's and five more fields. */
const OPEN_NODE_BYTES = NODE_BYTES + 200 + 13 * MAX_NUMBER_BYTES;

/** The nodes of an open structure, in `openNode`'s key order. */
function writeOpenNodes(
  writer: JsonWriter,
  ids: QuotedIds,
  structure: CompiledStructure,
  state: StateWithStep,
  measured: PressureBuffers,
  steady: SteadyReading | undefined,
  carryExtras: boolean,
  latencies: LatencyReading | undefined,
): void {
  const { nodeCount, capacity, nodeHasExtra, arrival, exit, openFields } = structure;
  const { loads } = state;
  const { inflow, outflow, exited } = state.step;
  const { pressure, blocked } = measured;
  const idBytes = ids.bytes;
  const idStart = ids.start;
  const room = OPEN_NODE_BYTES + ids.longest;
  for (let v = 0; v < nodeCount; v++) {
    // Describing a large state takes seconds (an open one's response times most): the caller's
    // check is asked as it goes, so a run short of time stops here rather than past its timeout.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: how often the check is asked changes no answer
    if (v % CHECK_EVERY === 0) checkpoint();
    if (carryExtras && nodeHasExtra[v] === 1) {
      if (v > 0) writer.text(',');
      writeElement(
        writer,
        elementText(
          () => openNode(structure, v, state, measured, steady, carryExtras, latencies),
          `nodes[${v}]`,
        ),
      );
      continue;
    }
    writer.reserve(room);
    if (v > 0) writer.buffer[writer.length++] = COMMA;
    writer.bytes(NODE_ID);
    writer.range(idBytes, idStart[v]!, idStart[v + 1]!);
    writer.bytes(NODE_LOAD);
    writer.number(loads[v]!);
    const cap = capacity[v]!;
    if (cap !== Number.POSITIVE_INFINITY) {
      writer.bytes(NODE_CAPACITY);
      writer.number(cap);
    }
    const bits = openFields[v]!;
    if ((bits & ARRIVAL_GIVEN) !== 0) {
      writer.bytes(NODE_ARRIVAL);
      writer.number(arrival[v]!);
    }
    if ((bits & EXIT_GIVEN) !== 0) {
      writer.bytes(NODE_EXIT);
      writer.number(exit[v]!);
    }
    if ((bits & FANOUT_GIVEN) !== 0)
      writer.bytes((bits & FANOUT_ON) !== 0 ? NODE_FANOUT_ON : NODE_FANOUT_OFF);
    if ((bits & SERVICE_TIME_GIVEN) !== 0) {
      writer.bytes(NODE_SERVICE_TIME);
      writer.number(structure.latency.serviceTime[v]!);
    }
    if ((bits & SERVERS_GIVEN) !== 0) {
      writer.bytes(NODE_SERVERS);
      writer.number(structure.latency.servers[v]!);
    }
    if ((bits & SLO_GIVEN) !== 0) {
      writer.bytes(NODE_SLO);
      writer.number(structure.latency.slo[v]!);
    }
    writer.bytes(NODE_INFLOW);
    writer.number(inflow[v]!);
    writer.bytes(NODE_OUTFLOW);
    writer.number(outflow[v]!);
    writer.bytes(NODE_EXITED);
    writer.number(exited[v]!);
    writer.bytes(NODE_PRESSURE);
    writer.number(pressure[v]!);
    writer.bytes(blocked[v] === 1 ? NODE_BLOCKED : NODE_FREE);
    writer.bytes(ROLE_OPEN[roleOf(structure, v)]);
    if (steady !== undefined) {
      const x = steady.steady.throughput[v]!;
      if (x !== Number.POSITIVE_INFINITY) {
        writer.bytes(NODE_THROUGHPUT);
        writer.number(x);
        const utilization = steady.utilization[v]!;
        if (!Number.isNaN(utilization)) {
          writer.bytes(NODE_UTILIZATION);
          writer.number(utilization);
        }
        const latency = nodeLatency(structure, v, x, utilization);
        if (latency !== undefined) {
          writer.bytes(NODE_RESPONSE_TIME);
          writer.number(latency.responseTime);
          writer.bytes(NODE_WAITING);
          writer.number(latency.waiting);
          writer.bytes(NODE_IN_FLIGHT);
          writer.number(latency.inFlight);
          writer.bytes(NODE_P99);
          writer.number(latency.p99);
        }
        if (latencies !== undefined && arrival[v]! > 0) writeEntryLatency(writer, structure, latencies, v);
        if (keepsWhatReaches(structure, v)) {
          writer.bytes(NODE_LOST);
          writer.number(steady.steady.lost[v]!);
        }
      } else if (latencies !== undefined && arrival[v]! > 0) {
        // An entry in a loop that grows without limit: its requests never finish, and it says so.
        writeEntryLatency(writer, structure, latencies, v);
      }
    }
    writer.buffer[writer.length++] = CLOSE_BRACE;
  }
}

/** An entry's `latency`, or its `latencyLimit` where its requests get stuck. */
function writeEntryLatency(
  writer: JsonWriter,
  structure: CompiledStructure,
  latencies: LatencyReading,
  v: number,
): void {
  const limit = latencies.limitedBy[v]!;
  if (limit < 0) {
    writeNumberField(writer, ',"latency":', latencies.latency[v]!);
    return;
  }
  writer.text(',"latencyLimit":{"node":');
  writer.string(structure.ids[limit]!);
  writer.text(',"reason":');
  writer.string(latencies.reasonOf(limit));
  writer.text('}');
}

function writeDependencies(
  writer: JsonWriter,
  ids: QuotedIds,
  structure: CompiledStructure,
  state: StateWithStep,
  carryExtras: boolean,
  steady: SteadyReading | undefined,
): void {
  const { dependencyCount, dependencyHasExtra, givenWeight, dependencyFrom, dependencyTo } = structure;
  const carried = steady === undefined ? undefined : new CarriedValue(structure);
  const idBytes = ids.bytes;
  const idStart = ids.start;
  const room = DEPENDENCY_BYTES + 2 * ids.longest;
  let poison = 0;
  for (let e = 0; e < dependencyCount; e++) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: how often the check is asked changes no answer
    if (e % CHECK_EVERY === 0) checkpoint();
    const source = dependencyFrom[e]!;
    const flow = flowOf(structure, state.step, e);
    // Any non-finite flow makes `poison` NaN; a finite one leaves it 0 or makes it NaN, which only
    // sends the state to the check below, which finds every flow finite.
    // Stryker disable next-line AssignmentOperator,ArithmeticOperator: see above
    poison += flow * 0;
    const throughput = carried?.ofDependency(e, steady!.steady.throughput);
    // Stryker disable next-line ConditionalExpression: a dependency without extras printed by JSON.stringify is the same text
    if (carryExtras && dependencyHasExtra[e] === 1) {
      if (e > 0) writer.text(',');
      writeElement(
        writer,
        elementText(
          () => dependencyWithExtras(structure, e, flow, throughput, steady !== undefined),
          `dependencies[${e}]`,
        ),
      );
      continue;
    }
    writer.reserve(room);
    if (e > 0) writer.buffer[writer.length++] = COMMA;
    writer.bytes(DEPENDENCY_FROM);
    writer.range(idBytes, idStart[source]!, idStart[source + 1]!);
    writer.bytes(DEPENDENCY_TO);
    const target = dependencyTo[e]!;
    writer.range(idBytes, idStart[target]!, idStart[target + 1]!);
    const weight = givenWeight[e]!;
    if (!Number.isNaN(weight)) {
      writer.bytes(DEPENDENCY_WEIGHT);
      writer.number(weight);
    }
    writer.bytes(DEPENDENCY_FLOW);
    writer.number(flow);
    if (throughput !== undefined) {
      writer.bytes(DEPENDENCY_THROUGHPUT);
      writer.number(throughput);
    }
    writer.buffer[writer.length++] = CLOSE_BRACE;
  }
  // Stryker disable next-line ConditionalExpression: `true` (check every state) only costs time; `false`, its twin, is killed in numeric-range.test.ts
  if (poison !== 0) throwFirstNonFiniteFlow(structure, state.step);
}

/** An element this many characters long (its extras: a caller may send megabytes) is followed by a checkpoint. */
const LARGE_ELEMENT_CHARS = 64 * 1024;

/**
 * Writes one element's JSON text. The checkpoints come every `CHECK_EVERY` elements, before
 * them: one element whose extras are tens of megabytes (one node with a 5-million-key object) was
 * copied, written and then compressed with no check after it, well past the function's time. A
 * large one is followed by a check of its own, which then counts its bytes.
 */
function writeElement(writer: JsonWriter, text: string): void {
  writer.text(text);
  // Stryker disable next-line EqualityOperator: an element of exactly 65,536 characters checked or not changes no answer
  if (text.length >= LARGE_ELEMENT_CHARS) checkpoint();
}

/**
 * An entry carrying the caller's extra fields, built as the object path builds it and
 * serialized by `JSON.stringify`: extras are arbitrary JSON, and V8 has the one exact
 * definition of how they print (integer-like keys first, escapes, nesting).
 */
function elementText(build: () => object, path: string): string {
  try {
    return JSON.stringify(build());
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // JSON.stringify recurses, so extras nested tens of thousands deep (which JSON.parse
    // accepts) overflow the stack: that is the caller's payload, not an engine fault.
    if (/call stack/i.test(error.message)) {
      throw new PayloadError(
        path,
        'an extra field is nested too deeply to return; flatten it or leave it out',
      );
    }
    throw new ResultTooLargeError(`${path} is too large to return`);
  }
}
