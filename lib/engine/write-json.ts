import { describeInputState } from './analyze';
import { type CompiledStructure, compileForCall } from './compile';
import type { StateSummary, StateToDescribe } from './describe';
import { type JsonWriter, QuotedIds } from './json-writer';
import { scratch } from './scratch';
import { assertTickCount, describeTimeline } from './timeline';
import type { Structure } from './types';
import { estimateStateBytes, writeState } from './write-state';

/**
 * Shown each state as it is written, while its buffers still hold it (a comparison takes what
 * it needs from the state before the next one overwrites them).
 */
export type StateObserver = (described: StateToDescribe, summary: StateSummary) => void;

/**
 * Writes what `JSON.stringify(analyze(structure))` would return, byte for byte, without
 * building the result objects.
 */
export function writeAnalyze(
  writer: JsonWriter,
  structure: Structure | CompiledStructure,
  observe?: StateObserver,
): void {
  withCompiled(writer, structure, (compiled, ids) =>
    describeInputState(compiled, (described) => {
      const summary = writeState(writer, ids, false, described);
      observe?.(described, summary);
    }),
  );
}

/** Writes what `JSON.stringify(tick(structure))` would return. */
export function writeTick(
  writer: JsonWriter,
  structure: Structure | CompiledStructure,
  observe?: StateObserver,
): void {
  withCompiled(writer, structure, (compiled, ids) =>
    describeTimeline(compiled, 1, (described) => {
      const summary = writeState(writer, ids, true, described);
      observe?.(described, summary);
    }),
  );
}

/** Writes what `JSON.stringify(ticks(structure, count))` would return. */
export function writeTicks(
  writer: JsonWriter,
  structure: Structure | CompiledStructure,
  count: number,
  observe?: StateObserver,
): void {
  assertTickCount(count);
  withCompiled(writer, structure, (compiled, ids) => {
    writer.text('[');
    describeTimeline(compiled, count, (described) => {
      const tick = described.options.tick;
      if (tick > 1) writer.text(',');
      const start = writer.length;
      const summary = writeState(writer, ids, true, described);
      observe?.(described, summary);
      // Snapshots of one structure differ only in their numbers and events: reserve room for
      // the rest at once rather than growing (and copying) the buffer a dozen times.
      // Stryker disable next-line all: sizing only; reserve() grows the buffer and writes nothing, and each state reserves its own room
      if (tick === 1) writer.reserve(Math.ceil((writer.length - start + 1) * (count - 1) * 1.1));
    });
    writer.text(']');
  });
}

/**
 * Runs `write` in one scratch phase with the structure compiled, its ids quoted once and the
 * buffer sized for one state.
 */
function withCompiled(
  writer: JsonWriter,
  structure: Structure | CompiledStructure,
  write: (compiled: CompiledStructure, ids: QuotedIds) => void,
): void {
  scratch.run(() => {
    const compiled = compileForCall(structure);
    const ids = new QuotedIds(compiled.ids);
    writer.reserve(estimateStateBytes(compiled, ids));
    write(compiled, ids);
  });
}
