/**
 * What a code-split function bundle (infra/constructs/function-code.ts) loads, and when: the
 * entry `index.mjs` and the chunks it imports statically, transitively, are read and parsed at
 * every cold start; a chunk reached only through `import()` is read at the first request that
 * needs it. Read from esbuild's output itself, minified ESM whose relative imports name the
 * chunks beside it (`import{a as b}from"./chunk-X.mjs"`, `import("./reading-Y.mjs")`).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** `import{…}from"./x.mjs"`, `import"./x.mjs"`, `export{…}from"./x.mjs"`: loaded with the module. */
const STATIC_IMPORT =
  /\b(?:import|export)\s*(?:\{[^}]*\}|\*\s*as\s*[\w$]+|[\w$]+(?:\s*,\s*\{[^}]*\})?)?\s*(?:from\s*)?["']\.\/([^"']+)["']/g;
/** `import("./x.mjs")`: loaded when that code runs. */
const DYNAMIC_IMPORT = /\bimport\(\s*["']\.\/([^"']+)["']\s*\)/g;

export interface BundleFiles {
  /** The entry and every chunk it imports statically, transitively: what a cold start loads. */
  coldStart: string[];
  /**
   * Each chunk the bundle loads with `import()`, with the chunks it brings that a cold start has
   * not loaded already (itself first): what the first request that needs it loads.
   */
  lazy: Map<string, string[]>;
}

function importsOf(folder: string, file: string, pattern: RegExp): string[] {
  const code = readFileSync(join(folder, file), 'utf8');
  return [...code.matchAll(pattern)].map((match) => match[1]!);
}

/** `from` and every file it imports statically, transitively, leaving out those in `loaded`. */
function staticClosure(folder: string, from: string, loaded: ReadonlySet<string> = new Set()): string[] {
  const files: string[] = [];
  const pending = [from];
  const seen = new Set(loaded);
  while (pending.length > 0) {
    const file = pending.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    files.push(file);
    pending.push(...importsOf(folder, file, STATIC_IMPORT));
  }
  return files;
}

/** The files of the bundle in `folder` that its entry loads at a cold start and later. */
export function bundleFiles(folder: string, entry = 'index.mjs'): BundleFiles {
  const coldStart = staticClosure(folder, entry);
  const loaded = new Set(coldStart);
  const lazy = new Map<string, string[]>();
  const pending = [...coldStart];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const file = pending.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const target of importsOf(folder, file, DYNAMIC_IMPORT)) {
      if (loaded.has(target) || lazy.has(target)) continue;
      const files = staticClosure(folder, target, loaded);
      lazy.set(target, files);
      pending.push(...files);
    }
  }
  return { coldStart, lazy };
}

/** The total size of `files` in `folder`, in bytes. */
export function bytesOf(folder: string, files: readonly string[]): number {
  return files.reduce((sum, file) => sum + statSync(join(folder, file)).size, 0);
}
