/**
 * Node ids to node indices, for compiling a structure: every node id goes in once (a repeat is
 * a duplicate) and every dependency end is looked up. An open-addressing table of Int32 slots
 * with linear probing, about twice as fast as a `Map` here because it hashes the id itself and
 * compares strings only on a hash match, and it allocates nothing per entry.
 *
 * The hash (FNV-1a over UTF-16 code units) is fixed, so anyone can craft ids that collide. No id
 * is ever placed more than `MAX_PROBES` slots past its home slot: when one would be, the index
 * moves every entry into a `Map` (whose hashing V8 seeds per process) and carries on there, so
 * colliding ids cost a bounded amount before the switch and a `Map`'s cost after it. Lookups of
 * present ids therefore probe at most `MAX_PROBES` slots. Results never depend on which is used.
 */
import { type ScratchMemory, scratch } from './scratch';

const MAX_PROBES = 32;
const EMPTY = -1;

export class IdIndex {
  readonly #ids: string[] = [];
  #slots: Int32Array;
  #hashes: Int32Array;
  #mask: number;
  #fallback: Map<string, number> | undefined;

  /**
   * Sized for `expected` ids (`tableSize`). Its arrays come from `memory` (the index lives only
   * while a structure is compiled).
   */
  constructor(expected: number, memory: ScratchMemory = scratch) {
    const capacity = tableSize(expected);
    this.#slots = memory.int32(capacity, EMPTY);
    this.#hashes = memory.int32(capacity);
    this.#mask = capacity - 1;
  }

  /**
   * Adds `id` as node `index` and returns -1, or returns the index it already has (a duplicate,
   * left as it was). Ids must be added with indices 0, 1, 2, … in order.
   */
  add(id: string, index: number): number {
    // (Once moved, the emptied table finds no slot, so the move would be made again, the same.)
    // Stryker disable next-line ConditionalExpression: see above
    if (this.#fallback !== undefined) return this.#addToMap(id, index);
    const hash = idHash(id);
    const slot = this.#slotOf(id, hash);
    if (slot < 0) {
      this.#switchToMap();
      return this.#addToMap(id, index);
    }
    const found = this.#slots[slot]!;
    if (found !== EMPTY) return found;
    this.#slots[slot] = index;
    this.#hashes[slot] = hash;
    this.#ids.push(id);
    return EMPTY;
  }

  /** The index of `id`, or -1 when no node has it. */
  get(id: string): number {
    if (this.#fallback !== undefined) return this.#fallback.get(id) ?? EMPTY;
    const slot = this.#slotOf(id, idHash(id));
    // Past MAX_PROBES from its home slot no id can be: it is absent.
    return slot < 0 ? EMPTY : this.#slots[slot]!;
  }

  /** The slot holding `id`, else the empty slot it would take; -1 when neither is within MAX_PROBES. */
  #slotOf(id: string, hash: number): number {
    const slots = this.#slots;
    const hashes = this.#hashes;
    const ids = this.#ids;
    const mask = this.#mask;
    let slot = hash & mask;
    for (let probe = 0; probe < MAX_PROBES; probe++) {
      const found = slots[slot]!;
      // The hash only spares most string comparisons; the strings decide. Probing backwards
      // instead would visit other slots in the same way for adds and lookups alike.
      // Stryker disable next-line ConditionalExpression: see above
      if (found === EMPTY || (hashes[slot] === hash && ids[found] === id)) return slot;
      // Stryker disable next-line ArithmeticOperator: see above
      slot = (slot + 1) & mask;
    }
    return -1;
  }

  /** Whether the index has moved to a `Map` (crafted or unlucky collisions); for tests and the bench. */
  get usesMap(): boolean {
    return this.#fallback !== undefined;
  }

  #addToMap(id: string, index: number): number {
    const map = this.#fallback!;
    const previous = map.get(id);
    if (previous !== undefined) return previous;
    map.set(id, index);
    this.#ids.push(id);
    return EMPTY;
  }

  #switchToMap(): void {
    const map = new Map<string, number>();
    const ids = this.#ids;
    // Stryker disable next-line EqualityOperator: one past the end adds the key undefined, which no id is
    for (let index = 0; index < ids.length; index++) map.set(ids[index]!, index);
    this.#fallback = map;
    // The table is no longer read; let it go.
    this.#slots = new Int32Array(0);
    this.#hashes = new Int32Array(0);
    this.#mask = 0;
  }
}

/**
 * The table's size for `expected` ids: a power of two at least four times as many, so that at
 * most a quarter of the slots are taken. The longest probe grows with the number of ids and
 * steeply with that fraction: half full (the size was twice the ids before), ordinary ids went
 * past `MAX_PROBES` from about 400k nodes (`svc_0`, `svc_1`, … at 377k; `node-0`, … at 930k) and
 * sent the structure to the slower `Map`; a quarter full, the longest probe of a million such
 * ids is about 15.
 * @internal tests and bench/generate.ts craft ids sharing one home slot with it.
 */
export function tableSize(expected: number): number {
  let capacity = 16;
  // Stryker disable next-line EqualityOperator: a table larger than needed answers the same
  while (capacity < expected * 4) capacity *= 2;
  return capacity;
}

/**
 * FNV-1a, 32 bits, over UTF-16 code units; a signed 32-bit integer, as the hash table stores it.
 * Public so tests and the benchmark can craft colliding ids, as an attacker could.
 * @internal tests and bench/generate.ts craft colliding ids with it.
 */
export function idHash(id: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash;
}
