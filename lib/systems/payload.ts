/**
 * A structure's stored form: its JSON text, hashed, then compressed. The hash is of the JSON
 * bytes, so a read proves it returns exactly what was registered whatever the compression did.
 */
import { createHash } from 'node:crypto';
import { brotliCompress, brotliDecompress, constants as zlibConstants } from 'node:zlib';
import { SystemInputError, SystemStorageError } from './errors';
import type { StoredStructure, StructureInput } from './store';

/** The only encoding written so far; the head item names it so another can be added later. */
export const PAYLOAD_ENCODING = 'br';

/**
 * Quality 5 of 11. Measured on 100,000 nodes and 500,000 dependencies (20 MB of JSON): 0.9 s to
 * 3.1 MB, where the default 11 takes 52 s to 2.2 MB (far past any request's time) and 9 takes
 * 3 s for 1% less. The extra bytes cost only a few more chunk items.
 */
const BROTLI_QUALITY = 5;

// `node:util` as its CommonJS module: an ES import of it reads every export, lazy getters
// included, about 3 ms of every cold start for one function (docs/deploy.md, "Bundles and cold start").
const { promisify } = process.getBuiltinModule('node:util');
const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

export interface EncodedStructure {
  /** Compressed bytes, what is stored. */
  bytes: Buffer;
  /** SHA-256 hex of the JSON bytes. */
  sha256: string;
}

export async function encodeStructure(structure: StructureInput): Promise<EncodedStructure> {
  let text: string;
  try {
    text = JSON.stringify(structure);
  } catch {
    // JSON.stringify recurses, so a field nested tens of thousands deep (which JSON.parse reads
    // without trouble) cannot be written back; a string past V8's limit neither.
    throw new SystemInputError('structure', `structure cannot be written as JSON: ${unwritable(structure)}`);
  }
  // Stryker disable next-line StringLiteral: Buffer.from reads an empty encoding name as UTF-8, the default
  const json = Buffer.from(text, 'utf8');
  // The thread pool does the work, so one large registration does not stall other requests.
  const bytes = await compress(json, {
    params: {
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
      [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
  return { bytes, sha256: sha256Hex(json) };
}

/** The first element that JSON.stringify refuses, in words. */
function unwritable(structure: StructureInput): string {
  for (const key of ['nodes', 'dependencies'] as const) {
    // Stryker disable next-line ArrayDeclaration: checkStructure let only arrays through, so the fallback is never used
    const list: readonly unknown[] = Array.isArray(structure[key]) ? structure[key] : [];
    for (const [index, element] of list.entries()) {
      try {
        JSON.stringify(element);
      } catch {
        return `${key}[${index}] has a field nested too deeply (or too long) to store; flatten it or leave it out`;
      }
    }
  }
  return 'it is too large to store';
}

/** The structure back from its stored bytes, or `SystemStorageError` if they are not what was stored. */
export async function decodeStructure(
  bytes: Uint8Array,
  expected: { encoding: string; sha256: string; nodes: number; dependencies: number },
  where: string,
): Promise<StoredStructure> {
  if (expected.encoding !== PAYLOAD_ENCODING) {
    throw new SystemStorageError(`${where} has unknown encoding "${expected.encoding.slice(0, 20)}"`);
  }
  let json: Buffer;
  try {
    json = await decompress(bytes);
  } catch {
    throw new SystemStorageError(`${where}: the stored structure does not decompress`);
  }
  if (sha256Hex(json) !== expected.sha256) {
    throw new SystemStorageError(`${where}: the stored structure does not match its SHA-256`);
  }
  // The hash matched, so this is the JSON that was written; the checks below only catch a head
  // item whose counts were edited apart from it.
  const structure = JSON.parse(json.toString('utf8')) as StoredStructure;
  if (
    structure.nodes?.length !== expected.nodes ||
    structure.dependencies?.length !== expected.dependencies
  ) {
    throw new SystemStorageError(`${where}: the stored structure does not have the recorded counts`);
  }
  return structure;
}

/** Consecutive slices of at most `size` bytes; views, not copies. */
export function splitBytes(bytes: Buffer, size: number): Buffer[] {
  const parts: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) parts.push(bytes.subarray(start, start + size));
  return parts;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
