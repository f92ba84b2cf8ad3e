/**
 * Stack traces that point at the TypeScript source, without Node's `--enable-source-maps`.
 *
 * Each deployed function is one minified bundle with its source map beside it. Node's flag reads
 * and parses the whole map at every cold start (about 10 ms of CPU for the engine function's
 * 570 KB map; docs/deploy.md, "Bundles and cold start") to serve the rare stack trace of an
 * unexpected failure. Here a bundle's map is read the first time a stack from it is logged, and
 * kept for the instance: a cold start pays nothing for it. A frame whose file has no map beside it
 * (the local server runs the TypeScript itself; Node's own files) is left as it is.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';

/** A V8 stack frame's line: `    at handler (file:///var/task/index.mjs:1:2345)`. */
const STACK_FRAME = /^\s+at /;
/** `file:///var/task/index.mjs:1:2345` or `/var/task/index.js:1:2345` in a V8 stack frame. */
const FRAME_LOCATION = /((?:file:\/\/)?\/[^\s()]*?\.[cm]?js):(\d+):(\d+)/g;
/** Sources are listed relative to the map (`../../lib/engine/analyze.ts`): shown from the project root. */
const LEADING_PARENT_DIRS = /^(?:\.\.\/)+/;
/** Bounds the walk down `cause`: a chain is a few links long, a cycle would be endless. */
const MAX_CAUSES = 8;

/** Each bundle's parsed map, or null where it has none; read once per instance. */
const maps = new Map<string, SourceMap | null>();

/**
 * Rewrites the stack of `error` and of its causes so that frames in a bundle point at the source
 * file, line and column the map gives; returns `error`. Safe to call again: mapped frames name
 * `.ts` files, which have no map.
 */
export function withSourceMappedStack<T>(error: T): T {
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSES && current instanceof Error; depth++) {
    if (typeof current.stack === 'string') current.stack = mapStack(current.stack);
    current = current.cause;
  }
  return error;
}

/**
 * A stack trace's text with every frame location in a mapped bundle replaced by its source's.
 * @internal test/source-mapped-stack.test.ts maps frame text directly.
 */
export function mapStack(stack: string): string {
  // Only the frames: the message above them may quote anything, a caller's input included.
  return stack
    .split('\n')
    .map((line) => (STACK_FRAME.test(line) ? line.replace(FRAME_LOCATION, mapLocation) : line))
    .join('\n');
}

function mapLocation(location: string, file: string, line: string, column: string): string {
  const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
  // findEntry answers with the nearest mapping before the position, even on another line.
  if (entry === undefined || !('originalSource' in entry) || entry.generatedLine !== Number(line) - 1)
    return location;
  const source = entry.originalSource.replace(LEADING_PARENT_DIRS, '');
  // As Node prints a mapped frame: the start of the mapping that holds the position.
  return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    map = readMap(file);
    maps.set(file, map);
  }
  return map;
}

function readMap(file: string): SourceMap | null {
  try {
    const path = file.startsWith('file://') ? decodeURIComponent(new URL(file).pathname) : file;
    return new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')));
  } catch {
    // No map beside the file, or one that cannot be read: the frame keeps its own location.
    return null;
  }
}
