import { describe, expect, it } from 'vitest';
import {
  analyze,
  type DependencyInput,
  JsonWriter,
  type NodeInput,
  RunStoppedError,
  type Structure,
  ticks,
  withStopCheck,
  writeAnalyze,
  writeTicks,
} from '../../lib/engine';
import { checkpoint } from '../../lib/engine/stop-check';
import { ring } from '../helpers/engine-examples';
import { written } from './written';

/** A check that counts how often it is asked and says stop from its `stopAt`-th question on. */
function countingCheck(stopAt = Number.POSITIVE_INFINITY) {
  const check = () => {
    check.asked++;
    return check.asked >= stopAt;
  };
  check.asked = 0;
  return check;
}

/** A chain a → b → c with load at a: no loop, nothing to sweep. */
const CHAIN: Structure = {
  nodes: [{ id: 'a', load: 5 }, { id: 'b' }, { id: 'c' }],
  dependencies: [
    { from: 'a', to: 'b' },
    { from: 'b', to: 'c' },
  ],
};

/**
 * 400 services in a ring, each calling the next 0.5 times a request and two others (picked by a
 * fixed sequence) 0.2 times each: a tangle too large for elimination, so its steady state is
 * found by sweeps (a dozen or more), each a checkpoint.
 */
const SWEPT_RING: Structure = (() => {
  const base = ring(400, () => 0.5);
  let state = 7;
  const pick = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state % 400;
  };
  const extra = base.nodes.flatMap((node) =>
    [pick(), pick()].map((to) => ({ from: node.id, to: base.nodes[to]!.id, weight: 0.2 })),
  );
  return { nodes: base.nodes, dependencies: [...base.dependencies, ...extra] };
})();

describe('stop checks: the caller decides when a run stops', () => {
  it('asks nothing and changes nothing when no check is installed', () => {
    expect(() => checkpoint()).not.toThrow();
    expect(withStopCheck(undefined, () => analyze(SWEPT_RING))).toEqual(analyze(SWEPT_RING));
  });

  it('stops analyze at once when the check says stop from the start, even with nothing to sweep', () => {
    // The first checkpoint comes right after compiling: a caller already out of time stops there.
    expect(() =>
      withStopCheck(
        () => true,
        () => analyze(CHAIN),
      ),
    ).toThrow(RunStoppedError);
    expect(() =>
      withStopCheck(
        () => true,
        () => written((w) => writeAnalyze(w, CHAIN)),
      ),
    ).toThrow(RunStoppedError);
  });

  it('is asked between the sweeps of a large loop, and its answer is unchanged when it never stops', () => {
    const check = countingCheck();
    const text = withStopCheck(check, () => written((w) => writeAnalyze(w, SWEPT_RING)));
    expect(text).toBe(written((w) => writeAnalyze(w, SWEPT_RING)));
    // Once after compiling, then at least once a sweep: the ring takes more than ten.
    expect(check.asked).toBeGreaterThan(10);
  });

  it('stops in the middle of a solve, at the question it says stop', () => {
    const whole = countingCheck();
    withStopCheck(whole, () => analyze(SWEPT_RING));
    const halfway = countingCheck(Math.ceil(whole.asked / 2));
    expect(() => withStopCheck(halfway, () => analyze(SWEPT_RING))).toThrow(RunStoppedError);
    // It was not asked again after it said stop.
    expect(halfway.asked).toBe(Math.ceil(whole.asked / 2));
  });

  // 40 loops of 100 services each (arrivals at the first, an exit at the last), each small enough
  // to be solved directly, without a sweep: the check is still asked between them, in the
  // steady state's solve and in the entry latencies' (each service takes 0.01 a request).
  it('is asked between the direct solves of many small loops', () => {
    const nodes: NodeInput[] = [];
    const dependencies: DependencyInput[] = [];
    for (let loop = 0; loop < 40; loop++) {
      for (let i = 0; i < 100; i++) {
        const id = `l${loop}s${i}`;
        nodes.push({
          id,
          serviceTime: 0.01,
          ...(i === 0 ? { arrival: 1 } : {}),
          ...(i === 99 ? { exit: 1 } : {}),
        });
        dependencies.push({ from: id, to: `l${loop}s${(i + 1) % 100}` });
      }
    }
    const check = countingCheck();
    withStopCheck(check, () => analyze({ nodes, dependencies }));
    expect(check.asked).toBeGreaterThanOrEqual(80);
    const atTwenty = countingCheck(20);
    expect(() => withStopCheck(atTwenty, () => analyze({ nodes, dependencies }))).toThrow(RunStoppedError);
  });

  it('is asked once a tick on a timeline without loops, and stops at the tick it says so', () => {
    const check = countingCheck();
    expect(withStopCheck(check, () => ticks(CHAIN, 50))).toEqual(ticks(CHAIN, 50));
    expect(check.asked).toBe(50);

    const atTen = countingCheck(10);
    expect(() => withStopCheck(atTen, () => written((w) => writeTicks(w, CHAIN, 50)))).toThrow(
      RunStoppedError,
    );
    expect(atTen.asked).toBe(10);
  });

  // 10,000 services in a DAG, each an entry calling the next three (some 4 ms a request today,
  // against an SLO of 5 ms) and leaving a quarter of its requests: no loop to sweep,
  // but writing the answer and the SLO search (more entries than are solved at once: a pass over
  // the structure each step) take seconds at this size times ten. The check is asked as the
  // nodes and dependencies are written (every 4,096) and at every step of the search.
  it('is asked as a large state is written and at every step of the SLO search', () => {
    const count = 10_000;
    const dag = (slo: boolean): Structure => ({
      nodes: Array.from({ length: count }, (_, i) => ({
        id: `s${i}`,
        arrival: 0.001,
        serviceTime: 0.001,
        servers: 4,
        exit: 1,
        ...(slo ? { slo: 0.005 } : {}),
      })),
      dependencies: Array.from({ length: count }, (_, i) =>
        [1, 2, 3].filter((j) => i + j < count).map((j) => ({ from: `s${i}`, to: `s${i + j}` })),
      ).flat(),
    });
    const askedIn = (run: () => unknown) => {
      const check = countingCheck();
      withStopCheck(check, run);
      return check.asked;
    };
    const described = askedIn(() => analyze(dag(false)));
    const writtenOut = askedIn(() => written((w) => writeAnalyze(w, dag(false))));
    // 10,000 nodes: at 0, 4,096 and 8,192; 29,994 dependencies: 8 times.
    expect(writtenOut - described).toBe(3 + 8);
    const searched = askedIn(() => analyze(dag(true)));
    expect(searched - described).toBeGreaterThanOrEqual(10);
    // Stopped in the search: no answer, whichever question says stop.
    const inSearch = countingCheck(described + 5);
    expect(() => withStopCheck(inSearch, () => analyze(dag(true)))).toThrow(RunStoppedError);
  });

  // One node whose extra field is megabytes (a caller's 5-million-key object ran a function 2.6 s
  // past its 15 s): the check is asked after it too, once its bytes are written, so a caller that
  // counts what compressing the answer will take can stop there. Small elements add no question.
  it('is asked after an element whose extras are large, with its bytes written', () => {
    const big = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const structure: Structure = {
      nodes: [{ id: 'a', load: 1, big } as NodeInput, { id: 'b', note: 'small' } as NodeInput],
      dependencies: [{ from: 'a', to: 'b' }],
    };
    const sizes: number[] = [];
    const writer = new JsonWriter();
    withStopCheck(
      () => {
        sizes.push(writer.length);
        return false;
      },
      () => writeAnalyze(writer, structure),
    );
    const text = writer.finish();
    // Once compiled, before the first node, after it (its 270 KB written), before the first
    // dependency.
    expect(sizes).toHaveLength(4);
    expect(sizes[2]! - sizes[1]!).toBeGreaterThan(200_000);
    // Asked right after the large node, before the comma and the small one (and not after that one).
    expect(sizes[2]).toBe(text.indexOf('{"id":"b"') - 1);
    const stopped = new JsonWriter();
    expect(() =>
      withStopCheck(
        () => stopped.length > 100_000,
        () => writeAnalyze(stopped, structure),
      ),
    ).toThrow(RunStoppedError);
    stopped.release();
  });

  // Before an extra is written, its numbers are walked (one too large for a double is refused):
  // 5 million keys took seconds, asked nothing. The walk asks every 65,536 values, so a run out
  // of time stops in it, before the first byte of that node is written.
  it('is asked as a large extra is walked, and stops there', () => {
    const big = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i]));
    const structure: Structure = {
      nodes: [{ id: 'a', load: 1, big } as NodeInput, { id: 'b' }],
      dependencies: [{ from: 'a', to: 'b' }],
    };
    const sizes: number[] = [];
    const toWrite: number[] = [];
    const writer = new JsonWriter();
    withStopCheck(
      (bytes = 0) => {
        sizes.push(writer.length);
        toWrite.push(bytes);
        return false;
      },
      () => writeAnalyze(writer, structure),
    );
    writer.release();
    // Three asks in the walk (at 65,536, 131,072 and 196,608 values), all before node a is written.
    const beforeA = sizes.filter((size) => size === sizes[1]);
    expect(beforeA.length).toBeGreaterThanOrEqual(4);
    // And one when it is walked, with about the bytes it is about to write in one go (which
    // nothing can stop), so the caller can count writing and compressing them.
    const json = JSON.stringify(big).length;
    const told = Math.max(...toWrite);
    expect(told).toBeGreaterThan(json / 2);
    expect(told).toBeLessThan(json * 2);
    const stopped = new JsonWriter();
    const check = countingCheck(3);
    expect(() => withStopCheck(check, () => writeAnalyze(stopped, structure))).toThrow(RunStoppedError);
    expect(stopped.length).toBeLessThan(100);
    stopped.release();
  });

  it('puts back the check that was installed before, however the run ends', () => {
    const outer = countingCheck();
    withStopCheck(outer, () => {
      expect(() =>
        withStopCheck(
          () => true,
          () => analyze(CHAIN),
        ),
      ).toThrow(RunStoppedError);
      // The outer check is asked again once the inner run has ended.
      analyze(CHAIN);
    });
    expect(outer.asked).toBe(1);
    // And after the outer run, none at all.
    expect(() => checkpoint()).not.toThrow();
  });

  it('names itself, so a caller can tell a stop from a failure', () => {
    const error = new RunStoppedError();
    expect(error.name).toBe('RunStoppedError');
    expect(error.message).toBe('the run was stopped before it finished');
  });
});
