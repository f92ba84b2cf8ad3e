import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  readLocalServerPointer,
  removeLocalServerPointer,
  writeLocalServerPointer,
} from '../lib/local-server-pointer';

const folder = mkdtempSync(join(tmpdir(), 'sbe-pointer-'));
const pointer = {
  url: 'http://127.0.0.1:3100',
  dynamoEndpoint: 'http://127.0.0.1:8042',
  tableName: 'sbe-local',
  issuerFile: join(folder, 'local-issuer.json'),
  pid: process.pid,
};

describe('the local server pointer', () => {
  // npm start writes it; the CLIs read it back while that process runs.
  it('is read back while its server runs, and is the owner’s alone', () => {
    const file = join(folder, 'a', 'server.json');
    writeLocalServerPointer(pointer, file);
    expect(readLocalServerPointer(file)).toEqual(pointer);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toMatch(/sbe_/);
  });

  it('says to start a server when there is none, or its process is gone', () => {
    expect(() => readLocalServerPointer(join(folder, 'none', 'server.json'))).toThrow(
      /^no local server is running \(nothing at .*\): start one with "npm start"/,
    );
    const file = join(folder, 'b', 'server.json');
    // A pid no process has: far above any the kernel hands out.
    writeLocalServerPointer({ ...pointer, pid: 2 ** 30 }, file);
    expect(() => readLocalServerPointer(file)).toThrow(
      `the local server that wrote ${file} (process ${2 ** 30}) is no longer running: start one with "npm start"`,
    );
  });

  // A server stopping removes its own pointer, never the one a later server wrote.
  it('is removed by its own server only', () => {
    const file = join(folder, 'c', 'server.json');
    writeLocalServerPointer({ ...pointer, pid: 1 }, file);
    removeLocalServerPointer(process.pid, file);
    expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(1);
    removeLocalServerPointer(1, file);
    expect(() => readLocalServerPointer(file)).toThrow(/no local server is running/);
  });

  // Three servers started one after another: each stop points the tools at the latest one
  // still running; a server stopped while a later one holds the file is only dropped from it.
  // (One level alone lost the first of three; before that, a second server's stop left none.)
  it('points back at the latest server still running when one stops', () => {
    const file = join(folder, 'd', 'server.json');
    // Pids of processes that run: this one, init, and this one's parent.
    const [a, b, c] = [process.pid, 1, process.ppid].map((pid, i) => ({
      ...pointer,
      url: `http://127.0.0.1:${3917 + i}`,
      pid,
    }));
    writeLocalServerPointer(a!, file);
    writeLocalServerPointer(b!, file);
    writeLocalServerPointer(c!, file);
    expect(readLocalServerPointer(file).url).toBe(c!.url);
    removeLocalServerPointer(b!.pid, file);
    expect(readLocalServerPointer(file)).toEqual({ ...c, replaced: [a] });
    removeLocalServerPointer(c!.pid, file);
    expect(readLocalServerPointer(file)).toEqual(a);
    // A server replaced that is gone is not pointed at again.
    writeLocalServerPointer({ ...pointer, pid: 2 ** 30 }, file);
    writeLocalServerPointer(b!, file);
    removeLocalServerPointer(b!.pid, file);
    expect(readLocalServerPointer(file)).toEqual(a);
    removeLocalServerPointer(a!.pid, file);
    expect(() => readLocalServerPointer(file)).toThrow(/no local server is running/);
  });
});
