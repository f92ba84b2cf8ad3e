/**
 * Runs to be compared with each other, timed in turns (a, b, c, a, b, c, …) after one warm-up
 * run of each, the garbage collector run before every run. A ratio between them is the target,
 * and on a shared machine the load drifts over the minute a comparison takes: timing each one's
 * runs back to back gives one the quiet seconds and another the busy ones (on 2026-11-28 the
 * same engine's open twin read 1.24× and 1.65× its closed one in two such runs).
 */
export function timesInTurns<Sample>(
  rounds: number,
  runs: ReadonlyArray<() => Sample>,
  collectGarbage: () => void,
): Sample[][] {
  for (const run of runs) {
    collectGarbage();
    run();
  }
  const samples = runs.map((): Sample[] => []);
  for (let round = 0; round < rounds; round++) {
    runs.forEach((run, i) => {
      collectGarbage();
      samples[i]!.push(run());
    });
  }
  return samples;
}
