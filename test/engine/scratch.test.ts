import { describe, expect, it } from 'vitest';
import { generateFamily, generateStructure } from '../../bench/generate';
import { analyze, compileStructure, releaseScratchMemory, ticks } from '../../lib/engine';
import { scratch as engineScratch, FRESH_ARRAYS, ScratchMemory } from '../../lib/engine/scratch';

const MIB = 1024 * 1024;

describe('ScratchMemory', () => {
  // A call's peak is what it held at once, not what it ended with: 1 MiB + 8 bytes carved in a
  // phase and given back, then 8 bytes, peak at 1 MiB + 8, so the buffer is 2 MiB (whole MiBs).
  // Exactly 1 MiB of float64s takes exactly 1 MiB.
  it('sizes the buffer to the peak of a call, rounded up to whole MiB', () => {
    const exact = new ScratchMemory(16 * MIB);
    exact.run(() => exact.float64(MIB / 8));
    expect(exact.retainedBytes).toBe(MIB);
    const phased = new ScratchMemory(16 * MIB);
    phased.run(() => {
      const mark = phased.mark();
      phased.float64(MIB / 8 + 1);
      phased.release(mark);
      phased.float64(1);
    });
    expect(phased.retainedBytes).toBe(2 * MIB);
    // A smaller call afterwards keeps the larger buffer.
    phased.run(() => phased.float64(1));
    expect(phased.retainedBytes).toBe(2 * MIB);
  });

  // Views of the kept buffer, to its very last byte: 8 bytes, then 1 MiB − 8 ends exactly at its
  // end and is still a view (offset 8), not a fresh array. Every kind of array, offset 0 too.
  it('hands out views of the kept buffer up to its last byte', () => {
    const memory = new ScratchMemory(16 * MIB);
    memory.run(() => memory.float64(1000));
    for (const carve of [() => memory.int32(2), () => memory.uint8(8)]) {
      memory.run(() => expect(carve().buffer.byteLength).toBe(MIB));
    }
    memory.run(() => {
      expect(memory.float64(1).byteOffset).toBe(0);
      const last = memory.float64(MIB / 8 - 1);
      expect(last.buffer.byteLength).toBe(MIB);
      expect(last.byteOffset).toBe(8);
    });
  });

  // A peak exactly at the limit is kept; anything above it never is, and a later smaller call
  // is sized as if the big one had not happened.
  it('keeps a peak exactly at its limit', () => {
    const memory = new ScratchMemory(MIB);
    memory.run(() => memory.float64(MIB / 8));
    expect(memory.retainedBytes).toBe(MIB);
    const small = new ScratchMemory(MIB);
    small.run(() => small.float64(MIB / 8 + 1));
    expect(small.retainedBytes).toBe(0);
  });

  // Letting the buffer go is for between calls: asked during one, it keeps serving that call.
  it('keeps its buffer when asked to let it go during a call', () => {
    const memory = new ScratchMemory(16 * MIB);
    memory.run(() => memory.float64(1000));
    memory.run(() => {
      memory.releaseRetained();
      expect(memory.int32(2).buffer.byteLength).toBe(MIB);
    });
    expect(memory.retainedBytes).toBe(MIB);
  });

  // Arrays to keep are plain fresh arrays, filled as asked.
  it('fills fresh arrays as asked', () => {
    expect(Array.from(FRESH_ARRAYS.int32(3, -1))).toEqual([-1, -1, -1]);
    expect(Array.from(FRESH_ARRAYS.int32(2))).toEqual([0, 0]);
  });

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
