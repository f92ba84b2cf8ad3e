import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapStack, withSourceMappedStack } from '../lib/source-mapped-stack';

// A small module bundled the way the functions are (minified ESM with a map beside it, no
// sources inside), run in a Node process of its own as Lambda runs it (the test runner would map
// the frames itself), so the frames to map are real V8 frames of a real minified bundle.
const SOURCE = `export function parseOrder(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) {
    throw new Error(\`not a number: \${text}\`);
  }
  return value;
}

export function checkAll(texts: string[]): number[] {
  try {
    return texts.map(parseOrder);
  } catch (error) {
    throw new Error('a batch failed', { cause: error });
  }
}
`;
/** Where `throw new Error(\`not a number…` stands in SOURCE: line 4, column 11 (1-based). */
const THROW_AT = 'src/orders.ts:4:11';

let dir: string;
let bundleFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sbe-stack-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/orders.ts'), SOURCE);
  bundleFile = join(dir, 'out/index.mjs');
  await build({
    entryPoints: [join(dir, 'src/orders.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    outfile: bundleFile,
    logLevel: 'silent',
  });
});

/** The error a call in the bundle throws, with the stack V8 gave it in a plain Node process. */
function thrown(call: string): Error {
  const script =
    `const m = await import(${JSON.stringify(pathToFileURL(bundleFile).href)});` +
    `try { ${call}; } catch (error) { process.stdout.write(JSON.stringify({ stack: error.stack, cause: error.cause?.stack })); }`;
  const { stack, cause } = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8' }),
  ) as { stack: string; cause?: string };
  const error = new Error(stack.split('\n')[0]);
  error.stack = stack;
  if (cause !== undefined) {
    const inner = new Error(cause.split('\n')[0]);
    inner.stack = cause;
    error.cause = inner;
  }
  return error;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('withSourceMappedStack', () => {
  // Minified, the whole module is on line 1: the frame names the bundle, line 1, some column.
  // Mapped, it names the TypeScript file and the line of the throw, from the project's root.
  it('points a bundle frame at the source file, line and column', () => {
    const error = thrown("m.parseOrder('twelve')");
    expect(error.stack).toContain(`${pathToFileURL(bundleFile).href}:1:`);
    withSourceMappedStack(error);
    expect(error.stack!.split('\n')[1]).toContain(THROW_AT);
    expect(error.stack).not.toContain('index.mjs');
    expect(error.stack!.split('\n')[0]).toBe('Error: not a number: twelve');
  });

  // The error the middleware logs is often a wrapper: its cause is mapped too.
  it('maps the causes of an error', () => {
    const error = thrown("m.checkAll(['1', 'x'])");
    withSourceMappedStack(error);
    expect(error.stack).toContain('src/orders.ts:13:');
    expect((error.cause as Error).stack!.split('\n')[1]).toContain(THROW_AT);
  });

  // Mapping twice changes nothing: a mapped frame names a .ts file, which has no map.
  it('is safe to apply twice', () => {
    const error = withSourceMappedStack(thrown("m.parseOrder('x')"));
    const once = error.stack;
    expect(withSourceMappedStack(error).stack).toBe(once);
  });

  // This test file runs from its TypeScript: no map beside it, so its frames stay as they are.
  it('leaves frames of files without a map beside them', () => {
    const error = new Error('local');
    const before = error.stack;
    expect(withSourceMappedStack(error).stack).toBe(before);
  });

  it('passes anything that is not an Error through untouched', () => {
    expect(withSourceMappedStack('text')).toBe('text');
    expect(withSourceMappedStack(undefined)).toBeUndefined();
  });

  // A cause that points back at its error: the walk stops instead of looping.
  it('stops on a cause chain that loops', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(withSourceMappedStack(a)).toBe(a);
  });
});

describe('mapStack', () => {
  // A frame past the mapped code keeps its location instead of borrowing another's.
  it('keeps a location the map does not cover', () => {
    const href = pathToFileURL(bundleFile).href;
    expect(mapStack(`    at f (${href}:999:1)`)).toBe(`    at f (${href}:999:1)`);
  });

  // The message line may quote a caller's input: only the frames below it are read as locations.
  it('leaves the message line alone, even when it looks like a location', () => {
    const href = pathToFileURL(bundleFile).href;
    const error = thrown("m.parseOrder('twelve')");
    const frames = error.stack!.split('\n').slice(1).join('\n');
    const quoted = `Error: not a number: ${href}:1:20`;
    expect(mapStack(`${quoted}\n${frames}`).split('\n')[0]).toBe(quoted);
    expect(mapStack(`${quoted}\n${frames}`).split('\n')[1]).toContain(THROW_AT);
  });

  // A map that cannot be read is as good as none.
  it('keeps the locations of a bundle whose map is unreadable', () => {
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, 'export {};');
    writeFileSync(`${broken}.map`, '{ not json');
    expect(mapStack(`    at g (${broken}:1:5)`)).toBe(`    at g (${broken}:1:5)`);
  });

  // CommonJS frames carry a plain path instead of a file URL.
  it('maps a frame given as a plain path', () => {
    const error = thrown("m.parseOrder('nine')");
    const frame = error.stack!.split('\n')[1]!.replace(pathToFileURL(bundleFile).href, bundleFile);
    expect(mapStack(frame)).toContain(THROW_AT);
  });
});
