/**
 * The caller's answer to "should this run stop now?", asked at the engine's checkpoints: between
 * the sweeps of an iterative solve, between ticks, and once the structure is compiled; with the
 * bytes the run is about to write in one go where it knows them. The engine
 * reads no clock; the caller's check does (the API's: the function's remaining time, less what
 * writing the answer needs). A check that never says stop changes nothing in the answer.
 */
export type ShouldStop = (bytesToWrite?: number) => boolean;

/** The run stopped because the caller's check asked it to; no answer was written. */
export class RunStoppedError extends Error {
  override readonly name = 'RunStoppedError';

  constructor() {
    super('the run was stopped before it finished');
  }
}

/**
 * The check of the run in progress. The engine is synchronous, so one run at a time is in
 * progress on a thread: the check is installed for the run's duration rather than passed
 * through every solve that may sweep.
 */
let installed: ShouldStop | undefined;

/**
 * Runs `run` with `shouldStop` asked at every checkpoint (none when it is undefined), and puts
 * back whatever check was installed before, however `run` ends.
 */
export function withStopCheck<T>(shouldStop: ShouldStop | undefined, run: () => T): T {
  const outer = installed;
  installed = shouldStop;
  try {
    return run();
  } finally {
    installed = outer;
  }
}

/**
 * A checkpoint: throws `RunStoppedError` when the installed check says stop. `bytesToWrite`: what
 * the run is about to write in one go, which no checkpoint can stop (an extra field of many
 * megabytes), so the check can count the time to write and compress it before it starts.
 */
export function checkpoint(bytesToWrite = 0): void {
  if (installed?.(bytesToWrite) === true) throw new RunStoppedError();
}
