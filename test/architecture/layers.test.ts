/**
 * The project's layers, checked so the dependency direction cannot regress:
 *
 *   lib/text  ←  lib/engine  ←  lib/api  ←  lib/app, lib/http  ←  functions/, local/, cli/
 *   lib/engine, lib/api  ←  explorer/ (the page's worker)  ←  local/ (serves it)
 *
 * Each folder's name says what may import it. Beside that spine sit the adapters (keys,
 * storage, aws), configuration, logging and three leaf modules; nothing under lib/ imports the
 * entry points, and the engine and the API contract stay free of AWS and middy.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Which project areas each area may import (its own area is always allowed). */
const ALLOWED: Record<string, readonly string[]> = {
  // Ground floor: the engine and the text helpers every layer's messages use.
  'lib/text': [],
  'lib/engine': ['lib/text'],
  // Beside the engine: the graph formats tools serve, read into the engine's structures.
  'lib/formats': ['lib/engine', 'lib/text'],
  'lib/config': [],
  'lib/worked-example': [],
  'lib/main-module': [],
  'lib/source-mapped-stack': [],
  // A part of a function loaded at its first request (the connect function's graph readers).
  'lib/load-once': [],
  // The scripts' command line: --help and one-line mistakes (npm start, the benchmarks, openapi).
  'lib/script-args': [],
  // Where a running npm start is, for the local CLIs (token, keys, sweep).
  'lib/local-server-pointer': [],
  'lib/api': ['lib/engine', 'lib/formats', 'lib/config', 'lib/worked-example', 'lib/text'],
  'lib/logging': ['lib/config'],
  'lib/aws': ['lib/config'],
  'lib/storage': ['lib/config'],
  'lib/keys': ['lib/config', 'lib/storage', 'lib/text'],
  'lib/tokens': ['lib/config', 'lib/text'],
  'lib/outbound': ['lib/config', 'lib/text'],
  'lib/systems': ['lib/config', 'lib/engine', 'lib/storage', 'lib/text'],
  'lib/http': ['lib/api', 'lib/config', 'lib/source-mapped-stack', 'lib/text'],
  // A user's stores built together with the quotas that count across them.
  'lib/owners': ['lib/config', 'lib/keys', 'lib/storage', 'lib/systems'],
  // The use cases: the contract's requests and errors over the adapters, no HTTP.
  'lib/app': [
    'lib/api',
    'lib/engine',
    'lib/formats',
    'lib/config',
    'lib/keys',
    'lib/outbound',
    'lib/systems',
    'lib/text',
  ],
  // Wiring only: the use cases, the HTTP stack, configuration and the adapters (AWS clients,
  // stores, verifiers) built once per instance. The engine function serves the generated
  // OpenAPI document as data.
  functions: [
    'lib/app',
    'lib/http',
    'lib/config',
    'lib/aws',
    'lib/logging',
    'lib/keys',
    // Which of the table's failures are answered 503.
    'lib/storage',
    'lib/owners',
    'lib/systems',
    'lib/tokens',
    'lib/outbound',
    'lib/load-once',
    'openapi.json',
  ],
  // The local server builds and serves the explorer page.
  local: ['lib/*', 'explorer'],
  cli: ['lib/*'],
  // The page runs the engine and the contract's own request and response code in its worker.
  // And the ground floor's wording helpers: an error's path names an id as the page marks it.
  explorer: ['lib/engine', 'lib/api', 'lib/config', 'lib/worked-example', 'lib/text'],
  // The screenshots script starts the local server and drives the page with the browser tests' helpers.
  scripts: ['lib/*', 'local', 'test'],
  // The CDK app reads the route table, table layout and settings parsers; it never runs them.
  // It builds the explorer page for its bucket and sends the page's own headers.
  infra: ['lib/*', 'explorer'],
  // The engine benchmark runs lib/engine alone; the bundle benchmark builds the stack's bundles.
  // The explorer benchmark starts the local server and drives the page like the browser tests.
  bench: ['lib/*', 'infra', 'explorer', 'local', 'test'],
};

/** Packages an area must not use: the engine and the contract are plain TypeScript. */
const FORBIDDEN_PACKAGES: Record<string, RegExp> = {
  'lib/engine': /^(?!node:)/,
  'lib/api': /^(@middy\/|@aws-sdk\/|@aws-lambda-powertools\/|aws-lambda$)/,
  'lib/config': /^(?!node:)/,
  'lib/formats': /^/,
};

/** `lib/http/middleware/json-body.ts` → `lib/http`; `lib/logging.ts` → `lib/logging`; `cli/keys.ts` → `cli`. */
function areaOf(file: string): string {
  const parts = relative(root, file).replace(/\.ts$/, '').split('/');
  return parts[0] === 'lib' ? `lib/${parts[1]}` : (parts[0] ?? '');
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every module specifier a file imports or re-exports, statically or with `import()`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  for (const match of text.matchAll(
    /(?:^|\s)(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/gm,
  )) {
    specifiers.push((match[1] ?? match[2])!);
  }
  return specifiers;
}

const files = ['lib', 'functions', 'local', 'cli', 'scripts', 'infra', 'bench', 'explorer'].flatMap(
  sourceFiles,
);

describe('layers', () => {
  it('finds the source files and their imports', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(importsOf(join(root, 'lib/api/engine-request.ts'))).toContain('../engine');
  });

  it.each(files.map((file) => [relative(root, file), file]))(
    '%s imports only what its layer allows',
    (_name, file) => {
      const area = areaOf(file);
      const allowed = ALLOWED[area];
      expect(allowed, `no layer rule for ${area}`).toBeDefined();
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) {
          expect(
            FORBIDDEN_PACKAGES[area]?.test(specifier) ?? false,
            `${area} must not use ${specifier}`,
          ).toBe(false);
          continue;
        }
        const target = areaOf(resolve(dirname(file), specifier));
        if (target === area) continue;
        const ok = allowed!.some(
          (rule) => rule === target || (rule === 'lib/*' && target.startsWith('lib/')),
        );
        expect(ok, `${relative(root, file)} imports ${specifier} (${target}), which ${area} may not`).toBe(
          true,
        );
      }
    },
  );

  // The formats may use the engine's types, never its code: mapping a document is plain data work.
  // One constant is read too: the engine's total, which the readers check a caller's window and
  // sample rate against (so that the option is named, not the document). From any folder depth:
  // lib/formats/spans/ reached the engine by ../../engine, which the rule did not look at.
  it('lib/formats imports only types, and the total the engine takes, from lib/engine', () => {
    let seen = 0;
    for (const file of files.filter((candidate) => areaOf(candidate) === 'lib/formats')) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/^(import|export)\s+([^'"]*?)from\s+'((?:\.\.\/)+engine[^']*)'/gm)) {
        seen++;
        const names = match[2]!.trim();
        expect(
          names.startsWith('type ') || names === '{ MAX_TOTAL_LOAD }',
          `${relative(root, file)}: ${match[0]}`,
        ).toBe(true);
      }
    }
    expect(seen).toBeGreaterThan(0);
  });

  // The rule itself must be able to fail: this is the import the refactoring removed.
  it('would catch lib/api importing lib/http', () => {
    const allowed = ALLOWED['lib/api']!;
    expect(allowed.includes('lib/http')).toBe(false);
  });
});
