/**
 * Scratch memory for the arrays a call needs only while it runs (step buffers, pressures, the
 * reach workspace, the large-cycle vectors, compile's and Tarjan's working arrays).
 *
 * Why: every fresh typed array is external memory, and V8 starts a full mark-compact about
 * every 64 MB of new external memory — one that walks the whole heap, the caller's parsed input
 * included. Allocating ~40 arrays per call made the number of full collections per call grow
 * with the structure, and each one costs O(heap), so big calls went superlinear. Here a call
 * carves its arrays as views of one retained `ArrayBuffer` instead, so a warm process allocates
 * no external memory per call.
 *
 * How: views are handed out from a bump pointer while a call is open (`run`); a phase whose
 * arrays are dead gives them back with `release(mark())`. A request that does not fit gets a
 * fresh array (exactly what happened before) and the shortfall is remembered: when the call
 * ends, the buffer is replaced by one as large as the call's peak, so the next call of that
 * size fits. A peak above `retainLimitBytes` is never retained (such calls allocate as before),
 * which bounds what a process keeps between calls.
 *
 * Every view is filled (zero unless stated) before it is handed out, so results never depend
 * on what an earlier call left behind. Nothing here outlives a call: results are plain objects
 * and numbers; a structure `analyze` / `ticks` compile from plain data for the call
 * (`compileForCall`) lives here only for that call, and one compiled by `compileStructure` (to be
 * kept) never does.
 */

import { releaseWriterBuffer } from './json-writer';

/** Where an algorithm takes its arrays from: scratch memory for one call, or fresh ones to keep. */
export interface ArrayMemory {
  float64(length: number): Float64Array;
  int32(length: number, fill?: number): Int32Array;
  uint8(length: number): Uint8Array;
}

/** Fresh arrays, owned by whoever keeps them. */
export const FRESH_ARRAYS: ArrayMemory = {
  float64: (length) => new Float64Array(length),
  // Stryker disable next-line ConditionalExpression: filling with 0 what is already 0 changes nothing (the `true` twin is killed)
  int32: (length, fill = 0) => (fill === 0 ? new Int32Array(length) : new Int32Array(length).fill(fill)),
  uint8: (length) => new Uint8Array(length),
};

export class ScratchMemory implements ArrayMemory {
  #buffer: ArrayBuffer | undefined;
  #offset = 0;
  #peak = 0;
  #openCalls = 0;
  #pendingMarks = 0;

  constructor(readonly retainLimitBytes: number) {}

  /** Bytes kept between calls (0 before the first call that needed scratch). */
  get retainedBytes(): number {
    return this.#buffer?.byteLength ?? 0;
  }

  /** Lets the retained buffer go (the next call starts cold). Not during a call. */
  releaseRetained(): void {
    if (this.#openCalls === 0) this.#buffer = undefined;
  }

  /** Runs `work` with scratch memory available; nested calls share the outer call's memory. */
  run<T>(work: () => T): T {
    if (this.#openCalls === 0) {
      this.#offset = 0;
      this.#peak = 0;
      this.#pendingMarks = 0;
    }
    this.#openCalls++;
    let completed = false;
    try {
      const result = work();
      completed = true;
      return result;
    } finally {
      this.#openCalls--;
      // Only a call that succeeded sizes the buffer: a refused input (any size the parser let
      // through) must not leave its peak behind. (Resizing when a nested call ends too would
      // only replace the buffer early: views already handed out keep the old one.)
      // Stryker disable next-line ConditionalExpression: see above
      if (this.#openCalls === 0 && completed) this.#resize();
    }
  }

  /** The current position; pass it to `release` to give back everything carved after it. */
  mark(): number {
    this.#pendingMarks++;
    return this.#offset;
  }

  release(mark: number): void {
    this.#pendingMarks--;
    this.#offset = mark;
  }

  /**
   * Whether some phase will give back what is carved now. Arrays meant to last the whole call
   * (a structure compiled for the call, its components) must not be carved then.
   */
  get releasePending(): boolean {
    return this.#pendingMarks > 0;
  }

  float64(length: number): Float64Array {
    const offset = this.#claim(length * 8);
    if (offset < 0) return new Float64Array(length);
    return new Float64Array(this.#buffer!, offset, length).fill(0);
  }

  int32(length: number, fill = 0): Int32Array {
    const offset = this.#claim(length * 4);
    if (offset < 0) return new Int32Array(length).fill(fill);
    return new Int32Array(this.#buffer!, offset, length).fill(fill);
  }

  uint8(length: number): Uint8Array {
    const offset = this.#claim(length);
    if (offset < 0) return new Uint8Array(length);
    return new Uint8Array(this.#buffer!, offset, length).fill(0);
  }

  /** A copy of `source` in scratch memory. */
  copyOf(source: Float64Array): Float64Array {
    const copy = this.float64(source.length);
    copy.set(source);
    return copy;
  }

  /**
   * Reserves `bytes` (8-byte aligned) and returns their offset in the buffer, or -1 when they
   * are not in it (outside a call, or past its end: the caller then allocates).
   */
  #claim(bytes: number): number {
    if (this.#openCalls === 0) return -1;
    const offset = this.#offset;
    const end = offset + Math.ceil(bytes / 8) * 8;
    this.#offset = end;
    if (end > this.#peak) this.#peak = end;
    return this.#buffer !== undefined && end <= this.#buffer.byteLength ? offset : -1;
  }

  #resize(): void {
    const peak = this.#peak;
    if (peak <= this.retainedBytes || peak > this.retainLimitBytes) return;
    // Round up to a MiB so calls of nearly the same size do not each reallocate.
    this.#buffer = undefined;
    this.#buffer = new ArrayBuffer(Math.min(Math.ceil(peak / MIB) * MIB, this.retainLimitBytes));
  }
}

const MIB = 1024 * 1024;

/**
 * The most scratch memory a process keeps between calls. An `analyze` of 200,000 nodes and
 * 1,000,000 dependencies peaks at 122 MiB, of a 1M-node chain at 236 MiB and of a 2M-node chain
 * at 471 MiB (docs/engine.md); calls past the limit allocate per call, as without scratch memory.
 */
const SCRATCH_RETAIN_LIMIT_BYTES = 512 * MIB;

/** The engine's one scratch memory (a process runs one engine call at a time per thread). */
export const scratch = new ScratchMemory(SCRATCH_RETAIN_LIMIT_BYTES);

/**
 * Gives back the memory the engine keeps between calls, e.g. before idling: the scratch buffer
 * and the JSON writer's output buffer.
 * @internal no product path calls it yet; tests check it releases both buffers.
 */
export function releaseScratchMemory(): void {
  scratch.releaseRetained();
  releaseWriterBuffer();
}
