/**
 * The run's temporary folder: one left by a run that ended is removed by the next run; a running
 * run's, and anything else in the temporary folder, are left.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeAbandonedRunFolders } from './temp-root';

let parent: string | undefined;
afterEach(() => {
  if (parent !== undefined) rmSync(parent, { recursive: true, force: true });
  parent = undefined;
});

/** The id of a process that has ended. */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

describe('removeAbandonedRunFolders', () => {
  // Run folders name their run's process: one whose run ended (made again, empty, by a process
  // it left), one whose run is this process; and two that are not a run's.
  it('removes only the folders of runs whose process is gone', () => {
    parent = mkdtempSync(join(tmpdir(), 'temp-root-test-'));
    const folder = (name: string, content = true) => {
      const path = join(parent!, name);
      mkdirSync(path);
      if (content) writeFileSync(join(path, 'cdk.out'), 'staged');
      return path;
    };
    const ended = endedPid();
    const killed = folder(`sbe-run-${ended}-a1B2c3`);
    const remade = folder(`sbe-run-${ended}-x9Y8z7`, false);
    const running = folder(`sbe-run-${process.pid}-q5W6e7`);
    const unnamed = folder('sbe-run-Muv0q8');
    const other = folder(`other-tool-${ended}-a1B2c3`);

    expect(removeAbandonedRunFolders(parent).sort()).toEqual([killed, remade].sort());
    for (const gone of [killed, remade]) expect(existsSync(gone)).toBe(false);
    for (const kept of [running, unnamed, other]) expect(existsSync(kept)).toBe(true);
  });
});
