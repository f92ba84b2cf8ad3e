import { describe, expect, it, vi } from 'vitest';
import { compileStructure } from '../../lib/engine';
import {
  CompiledStructureCache,
  estimatedBytes,
  readSystemCacheBytes,
} from '../../lib/systems/compiled-cache';

/** A chain of `n` nodes: a structure whose estimated size grows with n. */
function chain(n: number) {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, load: 1 }));
  const dependencies = nodes.slice(1).map((node, i) => ({ from: `n${i}`, to: node.id }));
  return compileStructure({ nodes, dependencies });
}

describe('CompiledStructureCache', () => {
  it('returns what was kept under a hash, and nothing for another hash', () => {
    const cache = new CompiledStructureCache(1024 * 1024);
    const compiled = chain(10);
    cache.set('a'.repeat(64), compiled);
    expect(cache.get('a'.repeat(64))).toBe(compiled);
    expect(cache.get('b'.repeat(64))).toBeUndefined();
  });

  // Room for two: the third in evicts the one used least recently, not the one put in first.
  it('evicts the least recently used entry to stay within its byte bound', () => {
    const [one, two, three] = [chain(100), chain(100), chain(100)];
    const cache = new CompiledStructureCache(estimatedBytes(one) * 2 + 10);
    cache.set('1', one);
    cache.set('2', two);
    expect(cache.get('1')).toBe(one);
    cache.set('3', three);
    expect(cache.get('2')).toBeUndefined();
    expect(cache.get('1')).toBe(one);
    expect(cache.get('3')).toBe(three);
    expect(cache.size).toBe(2);
    expect(cache.bytes).toBeLessThanOrEqual(estimatedBytes(one) * 2 + 10);
  });

  it('does not keep a structure larger than the whole bound, nor count a replaced one twice', () => {
    const big = chain(1000);
    const cache = new CompiledStructureCache(estimatedBytes(big) - 1);
    cache.set('big', big);
    expect(cache.size).toBe(0);
    const small = chain(10);
    cache.set('s', small);
    cache.set('s', small);
    expect(cache.bytes).toBe(estimatedBytes(small));
  });

  it('keeps answers beside their structure, counted in its bytes and evicted with it', () => {
    const [one, two] = [chain(100), chain(100)];
    const answer = 'x'.repeat(1000);
    const cache = new CompiledStructureCache(estimatedBytes(one) * 2 + 1500);
    // No structure, no answer: an answer is only known by a structure this instance compiled.
    cache.setAnswer('1', 'analyze', answer);
    expect(cache.getAnswer('1', 'analyze')).toBeUndefined();
    cache.set('1', one);
    cache.setAnswer('1', 'analyze', answer);
    expect(cache.getAnswer('1', 'analyze')).toBe(answer);
    expect(cache.getAnswer('1', 'tick')).toBeUndefined();
    expect(cache.bytes).toBe(estimatedBytes(one) + answer.length);
    // A second structure and its answer do not fit beside both: the least recent entry goes whole.
    cache.set('2', two);
    cache.setAnswer('2', 'analyze', answer);
    expect(cache.get('1')).toBeUndefined();
    expect(cache.getAnswer('1', 'analyze')).toBeUndefined();
    expect(cache.getAnswer('2', 'analyze')).toBe(answer);
    expect(cache.bytes).toBe(estimatedBytes(two) + answer.length);
  });

  // One system asked for tick counts 1, 2, 3, … must not crowd out every other system.
  it('keeps at most 8 answers per structure, dropping the oldest', () => {
    const cache = new CompiledStructureCache(64 * 1024 * 1024);
    const compiled = chain(10);
    cache.set('s', compiled);
    for (let n = 1; n <= 10; n++) cache.setAnswer('s', `ticks ${n}`, `answer ${n}`);
    expect(cache.getAnswer('s', 'ticks 1')).toBeUndefined();
    expect(cache.getAnswer('s', 'ticks 2')).toBeUndefined();
    expect(cache.getAnswer('s', 'ticks 3')).toBe('answer 3');
    expect(cache.getAnswer('s', 'ticks 10')).toBe('answer 10');
    const kept = [3, 4, 5, 6, 7, 8, 9, 10].map((n) => `answer ${n}`.length).reduce((a, b) => a + b);
    expect(cache.bytes).toBe(estimatedBytes(compiled) + kept);
  });

  // V8 keeps a string with any character above U+00FF at two bytes per character.
  it('counts two bytes per character for answers beyond Latin-1, and keeps none above a quarter of the bound', () => {
    const compiled = chain(10);
    const cache = new CompiledStructureCache(estimatedBytes(compiled) * 4 + 4000);
    cache.set('s', compiled);
    cache.setAnswer('s', 'analyze', '"é"'.repeat(100));
    cache.setAnswer('s', 'tick', '"→"'.repeat(100));
    expect(cache.bytes).toBe(estimatedBytes(compiled) + 300 + 600);
    cache.setAnswer('s', 'ticks 2', 'x'.repeat(estimatedBytes(compiled) + 1001));
    expect(cache.getAnswer('s', 'ticks 2')).toBeUndefined();
  });

  it('does not keep an answer that would not fit even alone beside its structure', () => {
    const compiled = chain(10);
    const cache = new CompiledStructureCache(estimatedBytes(compiled) + 10);
    cache.set('s', compiled);
    cache.setAnswer('s', 'analyze', 'x'.repeat(11));
    expect(cache.getAnswer('s', 'analyze')).toBeUndefined();
    expect(cache.get('s')).toBe(compiled);
  });

  it('estimates more bytes for more nodes, dependencies and longer ids', () => {
    expect(estimatedBytes(chain(200))).toBeGreaterThan(estimatedBytes(chain(100)));
    const longIds = compileStructure({ nodes: [{ id: 'x'.repeat(5000) }], dependencies: [] });
    expect(estimatedBytes(longIds)).toBeGreaterThan(
      estimatedBytes(compileStructure({ nodes: [{ id: 'x' }], dependencies: [] })),
    );
  });
});

describe('readSystemCacheBytes', () => {
  it('is 256 MiB by default, SYSTEM_CACHE_MIB when set, 0 to turn it off', () => {
    expect(readSystemCacheBytes({})).toBe(256 * 1024 * 1024);
    expect(readSystemCacheBytes({ SYSTEM_CACHE_MIB: '64' })).toBe(64 * 1024 * 1024);
    expect(readSystemCacheBytes({ SYSTEM_CACHE_MIB: '0' })).toBe(0);
    expect(() => readSystemCacheBytes({ SYSTEM_CACHE_MIB: 'lots' })).toThrow(
      'SYSTEM_CACHE_MIB must be an integer',
    );
  });
});

describe('the byte bound, at its edges', () => {
  // The estimate of a 3-node chain, term by term: 160 a node (132 held, 28 computed on first use and kept), 142 a dependency, the id
  // characters, 4 KiB of fixed cost.
  it('estimates a worked example exactly', () => {
    expect(estimatedBytes(chain(3))).toBe(3 * 160 + 2 * 142 + 'n0n1n2'.length + 4096);
  });

  // A structure of exactly the bound is kept; answers up to exactly a quarter of the bound and
  // up to exactly the bound in all are kept, without evicting anything.
  it('keeps what fits exactly', () => {
    const compiled = chain(10);
    const size = estimatedBytes(compiled);
    const exact = new CompiledStructureCache(size);
    exact.set('s', compiled);
    expect(exact.get('s')).toBe(compiled);

    const bound = size * 2;
    const cache = new CompiledStructureCache(bound);
    cache.set('s', compiled);
    cache.setAnswer('s', 'quarter', 'q'.repeat(bound / 4));
    expect(cache.getAnswer('s', 'quarter')).toBeDefined();
    const rest = bound - cache.bytes;
    expect(rest).toBeLessThanOrEqual(bound / 4);
    cache.setAnswer('s', 'rest', 'r'.repeat(rest));
    expect(cache.getAnswer('s', 'rest')).toBeDefined();
    expect(cache.bytes).toBe(bound);
  });

  // Filling the bound exactly with two structures evicts neither.
  it('does not evict when the new entry ends exactly at the bound', () => {
    const [one, two] = [chain(50), chain(50)];
    const cache = new CompiledStructureCache(estimatedBytes(one) + estimatedBytes(two));
    cache.set('1', one);
    cache.set('2', two);
    expect(cache.size).toBe(2);
  });

  // The ninth answer drops the first, and the structure's count goes down by what it held: the
  // count stays exact however many answers come and go.
  it('counts answers dropped for newer ones out again', () => {
    const compiled = chain(10);
    const answer = (i: number) => String(i).padStart(100, '.');
    const cache = new CompiledStructureCache(estimatedBytes(compiled) + 8 * 100);
    cache.set('s', compiled);
    for (let i = 0; i < 20; i += 1) cache.setAnswer('s', `request ${i}`, answer(i));
    expect(cache.getAnswer('s', 'request 19')).toBe(answer(19));
    expect(cache.getAnswer('s', 'request 11')).toBeUndefined();
    expect(cache.bytes).toBe(estimatedBytes(compiled) + 8 * 100);
    // Evicting the structure takes its answers' bytes with it, to the byte.
    cache.set('other', chain(10));
    expect(cache.get('s')).toBeUndefined();
    expect(cache.bytes).toBe(estimatedBytes(chain(10)));
  });

  // `answer` writes the text once and serves the kept copy after.
  it('writes an answer once', () => {
    const cache = new CompiledStructureCache(1024 * 1024);
    cache.set('s', chain(10));
    let writes = 0;
    const write = () => {
      writes += 1;
      return '{"ok":true}';
    };
    expect(cache.answer('s', 'analyze', write)).toBe('{"ok":true}');
    expect(cache.answer('s', 'analyze', write)).toBe('{"ok":true}');
    expect(writes).toBe(1);
  });
});

describe('processSystemCache', () => {
  // One cache per process, sized from the environment the first time; SYSTEM_CACHE_MIB=0 means none.
  it('is made once, from the first environment it is given', async () => {
    vi.resetModules();
    const off = await import('../../lib/systems/compiled-cache');
    expect(off.processSystemCache({ SYSTEM_CACHE_MIB: '0' })).toBeUndefined();
    expect(off.processSystemCache({ SYSTEM_CACHE_MIB: '1' })).toBeUndefined();
    vi.resetModules();
    const on = await import('../../lib/systems/compiled-cache');
    const cache = on.processSystemCache({ SYSTEM_CACHE_MIB: '1' });
    expect(cache).toBeInstanceOf(on.CompiledStructureCache);
    expect(on.processSystemCache({ SYSTEM_CACHE_MIB: '0' })).toBe(cache);
  });

  it('refuses a size outside 0..4096 MiB', () => {
    expect(readSystemCacheBytes({ SYSTEM_CACHE_MIB: '4096' })).toBe(4096 * 1024 * 1024);
    expect(() => readSystemCacheBytes({ SYSTEM_CACHE_MIB: '4097' })).toThrow('SYSTEM_CACHE_MIB');
    expect(() => readSystemCacheBytes({ SYSTEM_CACHE_MIB: '-1' })).toThrow('SYSTEM_CACHE_MIB');
  });
});
