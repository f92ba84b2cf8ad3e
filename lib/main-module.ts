import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Whether the module at `moduleUrl` (its `import.meta.url`) is the script node was started with. */
export function isMainModule(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return moduleUrl === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}
