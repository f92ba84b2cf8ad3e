/**
 * How a structure is stored: brotli-compressed JSON with its SHA-256, split into chunks when
 * large, and checked on the way back. Worked examples of each refusal.
 */
import { describe, expect, it } from 'vitest';
import { SystemInputError, SystemStorageError } from '../../lib/systems/errors';
import { decodeStructure, encodeStructure, splitBytes } from '../../lib/systems/payload';

const STRUCTURE = { nodes: [{ id: 'A' }, { id: 'B' }], dependencies: [{ from: 'A', to: 'B' }] };

/** An object nested `depth` deep, built without recursion: JSON.parse reads it, JSON.stringify cannot write it. */
function nested(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error) => error,
  );
}

describe('encodeStructure', () => {
  // The element that cannot be written is named, so the caller knows what to flatten.
  it.each<['nodes' | 'dependencies', number]>([
    ['nodes', 1],
    ['dependencies', 0],
  ])('names the %s element nested too deeply to write', async (key, index) => {
    const structure = { ...STRUCTURE, [key]: [...STRUCTURE[key]] } as Record<string, unknown[]>;
    structure[key]![index] = { id: 'deep', extra: nested(200_000) };
    const error = await failure(encodeStructure(structure as never));
    expect(error).toBeInstanceOf(SystemInputError);
    expect(error).toMatchObject({ field: 'structure' });
    expect(error.message).toBe(
      `structure cannot be written as JSON: ${key}[${index}] has a field nested too deeply (or too long) to store; flatten it or leave it out`,
    );
  });

  // Outside the two arrays no element can be named.
  it('says the structure is too large when no element is to blame', async () => {
    const error = await failure(encodeStructure({ ...STRUCTURE, extra: nested(200_000) } as never));
    expect(error.message).toBe('structure cannot be written as JSON: it is too large to store');
  });
});

describe('decodeStructure', () => {
  async function stored(structure: unknown) {
    const { bytes, sha256 } = await encodeStructure(structure as never);
    return { bytes, expected: { encoding: 'br', sha256, nodes: 2, dependencies: 1 } };
  }

  it('reads back what was written', async () => {
    const { bytes, expected } = await stored(STRUCTURE);
    await expect(decodeStructure(bytes, expected, 'system X')).resolves.toEqual(STRUCTURE);
  });

  // Each way a stored structure can fail to add up, named with where it was read.
  it('refuses an unknown encoding, naming at most 20 characters of it', async () => {
    const { bytes, expected } = await stored(STRUCTURE);
    const error = await failure(
      decodeStructure(bytes, { ...expected, encoding: 'z'.repeat(30) }, 'system X'),
    );
    expect(error).toBeInstanceOf(SystemStorageError);
    expect(error.message).toBe(`system X has unknown encoding "${'z'.repeat(20)}"`);
  });

  it('refuses bytes that do not decompress', async () => {
    const { expected } = await stored(STRUCTURE);
    const error = await failure(decodeStructure(Buffer.from('not brotli at all'), expected, 'system X'));
    expect(error.message).toBe('system X: the stored structure does not decompress');
  });

  // A head whose counts were edited apart from the structure, or a structure without an array.
  it.each<[string, unknown, Partial<{ nodes: number; dependencies: number }>]>([
    ['another node count', STRUCTURE, { nodes: 3 }],
    ['another dependency count', STRUCTURE, { dependencies: 2 }],
    ['no nodes array', { dependencies: [{ from: 'A', to: 'B' }] }, {}],
    ['no dependencies array', { nodes: [{ id: 'A' }, { id: 'B' }] }, {}],
  ])('refuses %s', async (_what, structure, counts) => {
    const { bytes, expected } = await stored(structure);
    const error = await failure(decodeStructure(bytes, { ...expected, ...counts }, 'system X'));
    expect(error).toBeInstanceOf(SystemStorageError);
    expect(error.message).toBe('system X: the stored structure does not have the recorded counts');
  });
});

describe('splitBytes', () => {
  // Chunks of the given size, the last one shorter, and no empty chunk at the end.
  it('splits into full chunks and a remainder', () => {
    expect(splitBytes(Buffer.from('abcdefg'), 3).map(String)).toEqual(['abc', 'def', 'g']);
    expect(splitBytes(Buffer.from('abcdef'), 3).map(String)).toEqual(['abc', 'def']);
  });
});
