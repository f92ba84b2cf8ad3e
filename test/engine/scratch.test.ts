import { describe, expect, it } from 'vitest';
import { generateFamily, generateStructure } from '../../bench/generate';
import { analyze, compileStructure, releaseScratchMemory, ticks } from '../../lib/engine';
import { scratch as engineScratch, ScratchMemory } from '../../lib/engine/scratch';

const MIB = 1024 * 1024;

describe('ScratchMemory', () => {
  it('hands out fresh arrays outside a call and sizes its buffer to the largest call', () => {
    const memory = new ScratchMemory(16 * MIB);
    // Outside `run` nothing is kept: the array is the caller's.
    memory.float64(10);
    expect(memory.retainedBytes).toBe(0);
    // The first call does not fit (no buffer yet) and is remembered; the next one fits.
    memory.run(() => memory.float64(1000));
    expect(memory.retainedBytes).toBe(MIB);
    memory.run(() => {
      const a = memory.float64(1000);
      expect(a.buffer.byteLength).toBe(MIB);
    });
  });

  it('never hands out what an earlier call left behind: every view is filled', () => {
    const memory = new ScratchMemory(16 * MIB);
    memory.run(() => memory.float64(100));
    memory.run(() => {
      memory.float64(100).fill(7);
      memory.int32(100, -1);
    });
    memory.run(() => {
      expect(memory.float64(100).every((x) => x === 0)).toBe(true);
      expect(memory.int32(100).every((x) => x === 0)).toBe(true);
    });
  });

  it('gives back a phase with release(mark), and nested calls share the outer call', () => {
    const memory = new ScratchMemory(16 * MIB);
    memory.run(() => memory.float64(300));
    memory.run(() => {
      const kept = memory.float64(100).fill(1);
      const mark = memory.mark();
      const phase = memory.float64(100);
      expect(memory.releasePending).toBe(true);
      memory.release(mark);
      expect(memory.releasePending).toBe(false);
      // The next view reuses the phase's bytes and leaves `kept` alone.
      const again = memory.run(() => memory.float64(100));
      expect(again.byteOffset).toBe(phase.byteOffset);
      expect(kept.every((x) => x === 1)).toBe(true);
    });
  });

  it('keeps nothing above its limit: bigger calls allocate as they would without it', () => {
    const memory = new ScratchMemory(MIB);
    memory.run(() => memory.float64(MIB));
    expect(memory.retainedBytes).toBe(0);
    memory.run(() => memory.float64(1000));
    expect(memory.retainedBytes).toBe(MIB);
    memory.releaseRetained();
    expect(memory.retainedBytes).toBe(0);
  });
});

describe('the engine on reused scratch memory', () => {
  // Calls of different sizes and shapes one after another leave nothing behind for the next:
  // each answer equals the answer of a process that never ran anything else.
  it('answers the same whatever ran before', () => {
    const small = generateStructure({ shape: 'random', nodeCount: 500, dependencyCount: 2000 });
    const ring = generateFamily('ring', 3000);
    const deep = generateStructure({ shape: 'deep', nodeCount: 2000, dependencyCount: 8000 });
    releaseScratchMemory();
    const first = [
      JSON.stringify(analyze(small)),
      JSON.stringify(ticks(ring, 5)),
      JSON.stringify(analyze(deep)),
    ];
    expect(engineScratch.retainedBytes).toBeGreaterThan(0);
    const again = [
      JSON.stringify(analyze(deep)),
      JSON.stringify(ticks(ring, 5)),
      JSON.stringify(analyze(small)),
    ];
    expect(again).toEqual([first[2], first[1], first[0]]);
  });

  it('keeps a compiled structure intact across calls (its arrays are never scratch)', () => {
    const compiled = compileStructure(
      generateStructure({ shape: 'random', nodeCount: 800, dependencyCount: 3000 }),
    );
    const before = JSON.stringify(analyze(compiled));
    analyze(generateFamily('chain', 5000));
    expect(JSON.stringify(analyze(compiled))).toBe(before);
    const third = JSON.stringify(ticks(compiled, 3)[2]);
    ticks(generateFamily('ring', 4000), 3);
    expect(JSON.stringify(ticks(compiled, 3)[2])).toBe(third);
  });

  it('releaseScratchMemory gives the retained buffer back', () => {
    analyze(generateFamily('chain', 1000));
    expect(engineScratch.retainedBytes).toBeGreaterThan(0);
    releaseScratchMemory();
    expect(engineScratch.retainedBytes).toBe(0);
  });
});

describe('scratch memory after a refused input', () => {
  // A refused structure (here a huge array of non-objects) must not leave its size behind.
  it('keeps nothing from a call that threw', () => {
    releaseScratchMemory();
    expect(() => analyze({ nodes: new Array(200_000).fill(0), dependencies: [] } as never)).toThrow(
      /nodes\[0\]/,
    );
    expect(engineScratch.retainedBytes).toBe(0);
  });

  // An engine call nested in another's compile (a getter on an input object) still works.
  it('answers a nested call made while a structure is being compiled', () => {
    const inner = generateFamily('ring', 200);
    let nested = '';
    const node = {
      id: 'A',
      get load() {
        nested = JSON.stringify(analyze(inner));
        return 1;
      },
    };
    // compileStructure gives its working memory back when done: the nested call runs inside that phase.
    compileStructure({ nodes: [node], dependencies: [] });
    expect(nested).toBe(JSON.stringify(analyze(inner)));
    nested = '';
    analyze({ nodes: [node], dependencies: [] });
    expect(nested).toBe(JSON.stringify(analyze(inner)));
  });
});
