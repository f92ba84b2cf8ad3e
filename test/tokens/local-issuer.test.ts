/**
 * The local issuer's key sits by default under the shared temp dir, where another user could
 * create the folder or the file first and so sign tokens the local server trusts. A key file or
 * folder that is not this user's own, private, real file or folder is refused.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateLocalIssuer, readLocalIssuer } from '../../lib/tokens';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sbe-issuer-test-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const REFUSED = /refusing the local token issuer's/;

describe('loadOrCreateLocalIssuer', () => {
  it('creates an owner-only key in an owner-only folder and reads it back', () => {
    const file = join(root, 'sbe-local-3000', 'local-issuer.json');
    const first = loadOrCreateLocalIssuer(file);
    expect(loadOrCreateLocalIssuer(file).kid).toBe(first.kid);
  });

  it('refuses a folder others can write to', () => {
    const folder = join(root, 'shared');
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    expect(() => loadOrCreateLocalIssuer(join(folder, 'local-issuer.json'))).toThrow(REFUSED);
  });

  it('refuses a key file others can read', () => {
    const file = join(root, 'local-issuer.json');
    loadOrCreateLocalIssuer(file);
    chmodSync(file, 0o644);
    expect(() => loadOrCreateLocalIssuer(file)).toThrow(REFUSED);
  });

  // Another user's key, planted before the server first ran: not trusted.
  it.runIf(process.getuid?.() === 0)('refuses a key file owned by another user', () => {
    const file = join(root, 'local-issuer.json');
    loadOrCreateLocalIssuer(file);
    chownSync(file, 12345, 12345);
    expect(() => loadOrCreateLocalIssuer(file)).toThrow(REFUSED);
  });

  it('refuses a symbolic link in place of the key file, dangling or not', () => {
    const target = join(root, 'elsewhere.json');
    writeFileSync(target, '{}', { mode: 0o600 });
    const linked = join(root, 'linked.json');
    symlinkSync(target, linked);
    expect(() => loadOrCreateLocalIssuer(linked)).toThrow(REFUSED);
    const dangling = join(root, 'dangling.json');
    symlinkSync(join(root, 'missing.json'), dangling);
    expect(() => loadOrCreateLocalIssuer(dangling)).toThrow();
    // Nothing was written through the link: the key never lands where someone else pointed it.
    expect(existsSync(join(root, 'missing.json'))).toBe(false);
  });

  // DATA_DIR is often an ordinary folder others may read (0755): only the key file must be private.
  it('accepts a folder others can read but not write', () => {
    const folder = join(root, 'data');
    mkdirSync(folder);
    chmodSync(folder, 0o755);
    const file = join(folder, 'local-issuer.json');
    expect(loadOrCreateLocalIssuer(file).kid).toMatch(/^[\w-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  // The refusal says what is wrong and how to get past it.
  it('says what to do about a refused file', () => {
    const file = join(root, 'local-issuer.json');
    loadOrCreateLocalIssuer(file);
    chmodSync(file, 0o640);
    expect(() => loadOrCreateLocalIssuer(file)).toThrow(
      `refusing the local token issuer's file ${file}: it must be a file owned by this user that ` +
        'no one else can change (or read, for the key file); remove it, or set DATA_DIR to a private folder',
    );
  });
});

describe('readLocalIssuer', () => {
  // `npm run token` before the server ever ran: the message says what to start first.
  it('names the missing file and what creates it', () => {
    const file = join(root, 'never-created.json');
    expect(() => readLocalIssuer(file)).toThrow(
      `no local token issuer at ${file}: start the local server (npm start) with the same PORT and DATA_DIR first`,
    );
  });
});
