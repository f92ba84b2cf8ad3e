/**
 * Compiled structures of stored systems, kept across requests by a warm Lambda instance so a
 * repeated `{ mode, systemId }` run skips reading, decompressing, parsing, validating and
 * compiling the structure, and the component and sweep-order work the compiled structure keeps;
 * and beside each structure the last few response texts written for it, so an exact repeat
 * (same structure, mode and tick count) skips the engine and the serialization too.
 *
 * Keyed by the SHA-256 of the stored structure (the record's `sha256`, checked on every read of
 * the bytes), so two systems with the same structure share one entry and a structure can never
 * be served for another: the owner's access is checked on the record before the cache is asked.
 * Bounded in (estimated) bytes, least recently used out first.
 */

import { type Env, envInt } from '../config/env';
import type { CompiledStructure } from '../engine';

/**
 * Estimated bytes one cached structure holds: its typed arrays, what it computes on first use
 * and keeps between calls, and the parsed input objects it keeps.
 * @internal test/systems/compiled-cache.test.ts sizes caches in units of this estimate.
 */
export function estimatedBytes(compiled: CompiledStructure): number {
  const { nodeCount, dependencyCount, ids } = compiled;
  let idChars = 0;
  for (const id of ids) idChars += id.length;
  // Typed arrays: ~32 bytes per node, ~52 per dependency (CSR both ways, shares, flows' slots).
  // Kept once computed: the components (12 bytes a node at most), both sweep orders (8) and a
  // capacity what-if's steady state (8). The loops' local systems are let go after each call.
  // Parsed JSON objects: ~100 bytes per node and ~90 per dependency in V8, plus the id strings
  // (the dependency ends share them).
  return nodeCount * 160 + dependencyCount * 142 + idChars + 4096;
}

/**
 * Most answers kept per structure (`analyze`, `tick` and a few tick counts): a caller stepping
 * through many tick counts of one system must not push every other system out.
 */
const MAX_ANSWERS_PER_STRUCTURE = 8;

/**
 * Bytes V8 holds for a string: one per character when every character is below U+0100, else
 * two (it stores the whole string in two-byte form).
 */
function answerBytes(text: string): number {
  return BEYOND_LATIN1.test(text) ? 2 * text.length : text.length;
}
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

interface Entry {
  compiled: CompiledStructure;
  /** The structure's estimate plus its answers' lengths. */
  bytes: number;
  /** Response texts by request (`analyze`, `tick`, `ticks 20`), oldest first. */
  answers: Map<string, string>;
}

export class CompiledStructureCache {
  readonly #maxBytes: number;
  /** Insertion order is recency order: a hit is deleted and set again. */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(sha256: string): CompiledStructure | undefined {
    return this.#touch(sha256)?.compiled;
  }

  /** Keeps `compiled` unless it alone is larger than the bound; evicts the least recently used to fit. */
  set(sha256: string, compiled: CompiledStructure): void {
    const bytes = estimatedBytes(compiled);
    const existing = this.#entries.get(sha256);
    if (existing !== undefined) {
      this.#entries.delete(sha256);
      this.#bytes -= existing.bytes;
    }
    if (bytes > this.#maxBytes) return;
    this.#makeRoom(bytes);
    this.#entries.set(sha256, { compiled, bytes, answers: new Map() });
    this.#bytes += bytes;
  }

  /**
   * The response text this instance already wrote for `request` on the structure, if any. An
   * answer is a pure function of the structure (fixed by its SHA-256), the mode and the tick
   * count, so a repeat gets the same bytes without running the engine again.
   */
  getAnswer(sha256: string, request: string): string | undefined {
    return this.#touch(sha256)?.answers.get(request);
  }

  /** Keeps an answer beside its structure (which must be cached), within the same byte bound. */
  setAnswer(sha256: string, request: string, text: string): void {
    const entry = this.#touch(sha256);
    if (entry === undefined || entry.answers.has(request)) return;
    const bytes = answerBytes(text);
    // One answer may take at most a quarter of the bound: a huge one (likely too large to send
    // anyway) must not push every other system out.
    if (bytes > this.#maxBytes / 4) return;
    if (entry.answers.size >= MAX_ANSWERS_PER_STRUCTURE) {
      const [oldest, oldestText] = entry.answers.entries().next().value!;
      entry.answers.delete(oldest);
      entry.bytes -= answerBytes(oldestText);
      this.#bytes -= answerBytes(oldestText);
    }
    if (entry.bytes + bytes > this.#maxBytes) return;
    // The entry itself is the most recent one, so making room never evicts it.
    this.#makeRoom(bytes, sha256);
    entry.answers.set(request, text);
    entry.bytes += bytes;
    this.#bytes += bytes;
  }

  /** The kept answer for `request` on the structure, else `write()`'s, kept for next time. */
  answer(sha256: string, request: string, write: () => string): string {
    const kept = this.getAnswer(sha256, request);
    if (kept !== undefined) return kept;
    const text = write();
    this.setAnswer(sha256, request, text);
    return text;
  }

  /** Estimated bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  #touch(sha256: string): Entry | undefined {
    const entry = this.#entries.get(sha256);
    if (entry === undefined) return undefined;
    this.#entries.delete(sha256);
    this.#entries.set(sha256, entry);
    return entry;
  }

  /** Evicts least recently used entries (never `keep`) until `bytes` more fit. */
  #makeRoom(bytes: number, keep?: string): void {
    for (const [key, entry] of this.#entries) {
      if (this.#bytes + bytes <= this.#maxBytes) break;
      // Stryker disable next-line ConditionalExpression: never reached: the kept entry is the most recent, last in the map, and the caller checked it fits once the others are gone
      if (key === keep) continue;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes;
    }
  }
}

const DEFAULT_CACHE_MIB = 256;

let processCache: { cache: CompiledStructureCache | undefined } | undefined;

/**
 * The process's one cache (one per thread, as all module state), sized by `SYSTEM_CACHE_MIB`
 * when first asked for (`undefined` when it is 0). Every function loaded in the thread shares
 * it, so where one thread serves both connect and the engine a system registered by connect is
 * run without compiling it again. On Lambda each function instance has its own, and so has
 * each engine worker of the local server, whose main thread serves connect without one, as the
 * stack deploys it.
 */
export function processSystemCache(env: Env = process.env): CompiledStructureCache | undefined {
  if (processCache === undefined) {
    const bytes = readSystemCacheBytes(env);
    processCache = { cache: bytes > 0 ? new CompiledStructureCache(bytes) : undefined };
  }
  return processCache.cache;
}

/**
 * `SYSTEM_CACHE_MIB`: how much memory (MiB, estimated) the engine function may keep compiled
 * stored systems in; 0 turns the cache off. Default 256, a quarter of the smallest memory
 * docs/api.md recommends, beside the ~410 MB the largest request may need.
 * @internal bench/engine.ts sizes its cache as deployed; the local server checks the setting
 * at start; tests pass an env object.
 */
export function readSystemCacheBytes(env: Env = process.env): number {
  return envInt(env, 'SYSTEM_CACHE_MIB', DEFAULT_CACHE_MIB, { min: 0, max: 4096 }) * 1024 * 1024;
}
