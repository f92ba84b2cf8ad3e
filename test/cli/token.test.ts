import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTokenCli } from '../../cli/token';
import { createUserTokenVerifier, loadOrCreateLocalIssuer } from '../../lib/tokens';

const dataDir = mkdtempSync(join(tmpdir(), 'sbe-token-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function run(
  argv: string[],
  env: Record<string, string> = { DATA_DIR: dataDir },
  findServer?: () => { issuerFile: string },
) {
  let stdout = '';
  let stderr = '';
  const code = runTokenCli(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env,
    ...(findServer === undefined ? {} : { findServer }),
  });
  return { code, stdout, stderr };
}

describe('npm run token', () => {
  // The server made the issuer in DATA_DIR; the CLI signs with it and the server accepts the token.
  it('prints, as its last line, a token the local server with the same DATA_DIR accepts', async () => {
    const issuerFile = join(dataDir, 'local-issuer.json');
    loadOrCreateLocalIssuer(issuerFile);
    const { code, stdout } = run(['--user', 'carol']);
    expect(code).toBe(0);
    const token = stdout.trimEnd().split('\n').at(-1)!;
    const verify = createUserTokenVerifier({ kind: 'local', issuerFile });
    await expect(verify(token)).resolves.toEqual({ sub: 'carol' });
  });

  it('says what to do when no server has created the issuer yet', () => {
    const { code, stderr } = run(['--user', 'carol'], { DATA_DIR: join(dataDir, 'empty') });
    expect(code).toBe(1);
    expect(stderr).toMatch(/start the local server \(npm start\) with the same PORT and DATA_DIR/);
  });

  it.each([[[]], [['--user', 'has space']], [['--user', 'x', '--ttl', '0']], [['--nope']]])(
    'refuses %j as a usage error',
    (argv) => {
      const { code, stderr } = run(argv);
      expect(code).toBe(2);
      expect(stderr).toMatch(/^error: .*Run "npm run token -- --help" for usage\.\n$/);
    },
  );

  // No PORT or DATA_DIR: the issuer of the running server, found by its pointer, whatever port
  // and data folder it got. Before, the CLI looked for a server on port 3000 and found none.
  it('signs with the running server when no setting names one', async () => {
    const issuerFile = join(dataDir, 'elsewhere', 'local-issuer.json');
    loadOrCreateLocalIssuer(issuerFile);
    const { code, stdout } = run(['--user', 'erin'], {}, () => ({ issuerFile }));
    expect(code).toBe(0);
    const verify = createUserTokenVerifier({ kind: 'local', issuerFile });
    await expect(verify(stdout.trimEnd().split('\n').at(-1)!)).resolves.toEqual({ sub: 'erin' });
    // A setting still wins over the pointer.
    const byDataDir = run(['--user', 'erin'], { DATA_DIR: dataDir }, () => {
      throw new Error('not asked');
    });
    expect(byDataDir.code).toBe(0);
  });

  it('says to start a server when none is running, on stderr with a non-zero exit', () => {
    const { code, stdout, stderr } = run(['--user', 'erin'], {}, () => {
      throw new Error('no local server is running (nothing at /tmp/x): start one with "npm start"');
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'error: no local server is running (nothing at /tmp/x): start one with "npm start"\n',
    );
  });
});
