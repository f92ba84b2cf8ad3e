/**
 * The engine's output, pinned byte for byte: SHA-256 of `JSON.stringify` of `analyze` and of
 * `ticks(…, 20)` on the benchmark's generated structures. Speed work (memory reuse, a faster id
 * index, fused solver sweeps, sorting) must leave every number bit-identical; this fails on the
 * first changed digit. If the model itself changes on purpose, these are recomputed in the same
 * change, with the reason in the commit.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateFamily, generateStructure } from '../../bench/generate';
import { analyze, type Structure, ticks } from '../../lib/engine';

const sha256 = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

const PINNED: ReadonlyArray<[name: string, structure: () => Structure, analyze: string, ticks20: string]> = [
  [
    'random 1k/4k',
    () => generateStructure({ shape: 'random', nodeCount: 1000, dependencyCount: 4000 }),
    '50c0bbccbfddbf480464dfa9eaca6d681723e4201d231413601f224f3cd81bad',
    'b140d4b37fea5db5003809ff7b642c39144062998470afd49a59d4c36687ecd6',
  ],
  [
    'deep 1k/4k',
    () => generateStructure({ shape: 'deep', nodeCount: 1000, dependencyCount: 4000 }),
    'b7448f3d7f247f8fa8db78e0f5d07ae72326dada1ed8b34f405b8624223aa976',
    '95f3aeacec0445787c1be5e40283dfd93e7a2c80cc5ce131ee7296cccc2f1144',
  ],
  [
    'random 10k/40k',
    () => generateStructure({ shape: 'random', nodeCount: 10_000, dependencyCount: 40_000 }),
    'd84c3135df1978042d9276d030ea5f246adb7f8d5055ff171f620c095324cd24',
    'e838340dc82e915b8c1e80a4e7d8abdfa984290d0a41a9b340bfa631717fc95f',
  ],
  [
    'deep 10k/40k',
    () => generateStructure({ shape: 'deep', nodeCount: 10_000, dependencyCount: 40_000 }),
    '6986bec60824639f5f93c7821830f3c5abcbb8c17228ab61650efaa7306b5841',
    '87882b8292c07499e13295f5008f814462927fcff72a174d7432f891afcc2f14',
  ],
  [
    // One cycle through all 10,000 nodes: the large-cycle solver on every node.
    'ring 10k',
    () => generateFamily('ring', 10_000),
    '2565d9799351b54371bf59bb877f33915b24fedf504fc1b32d25cd691ae0823e',
    '412b53feb0c360d1795bd35103cf8059105e755e056a5f789b13e19f771952fe',
  ],
];

describe('pinned engine output', () => {
  it.each(PINNED)(
    '%s: analyze and ticks(…, 20) are byte-identical to the pinned output',
    (_name, make, a, t) => {
      const structure = make();
      expect(sha256(analyze(structure))).toBe(a);
      expect(sha256(ticks(structure, 20))).toBe(t);
    },
  );
});
