/**
 * Compiled structures of stored systems, kept across requests by a warm Lambda instance so a
 * repeated `{ mode, systemId }` run skips reading, decompressing, parsing, validating and
 * compiling the structure, and the component and sweep-order work the compiled structure keeps.
 *
 * Keyed by the SHA-256 of the stored structure (the record's `sha256`, checked on every read of
 * the bytes), so two systems with the same structure share one entry and a structure can never
 * be served for another: the owner's access is checked on the record before the cache is asked.
 * Bounded in (estimated) bytes, least recently used out first.
 */

import { type Env, envInt } from '../config/env';
import type { CompiledStructure } from '../engine';

/** Estimated bytes one cached structure holds: its typed arrays plus the parsed input objects it keeps. */
export function estimatedBytes(compiled: CompiledStructure): number {
  const { nodeCount, dependencyCount, ids } = compiled;
  let idChars = 0;
  for (const id of ids) idChars += id.length;
  // Typed arrays: ~32 bytes per node, ~52 per dependency (CSR both ways, shares, flows' slots).
  // Parsed JSON objects: ~100 bytes per node and ~90 per dependency in V8, plus the id strings
  // (the dependency ends share them).
  return nodeCount * 132 + dependencyCount * 142 + idChars + 4096;
}

export class CompiledStructureCache {
  readonly #maxBytes: number;
  /** Insertion order is recency order: a hit is deleted and set again. */
  readonly #entries = new Map<string, { compiled: CompiledStructure; bytes: number }>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(sha256: string): CompiledStructure | undefined {
    const entry = this.#entries.get(sha256);
    if (entry === undefined) return undefined;
    this.#entries.delete(sha256);
    this.#entries.set(sha256, entry);
    return entry.compiled;
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
    for (const [key, entry] of this.#entries) {
      if (this.#bytes + bytes <= this.#maxBytes) break;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes;
    }
    this.#entries.set(sha256, { compiled, bytes });
    this.#bytes += bytes;
  }

  /** Estimated bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }
}

const DEFAULT_CACHE_MIB = 256;

/**
 * `SYSTEM_CACHE_MIB`: how much memory (MiB, estimated) the engine function may keep compiled
 * stored systems in; 0 turns the cache off. Default 256, a quarter of the smallest memory
 * docs/api.md recommends, beside the ~410 MB the largest request may need.
 */
export function readSystemCacheBytes(env: Env = process.env): number {
  return envInt(env, 'SYSTEM_CACHE_MIB', DEFAULT_CACHE_MIB, { min: 0, max: 4096 }) * 1024 * 1024;
}
