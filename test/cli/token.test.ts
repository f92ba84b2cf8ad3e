import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTokenCli } from '../../cli/token';
import { createUserTokenVerifier, loadOrCreateLocalIssuer } from '../../lib/tokens';

const dataDir = mkdtempSync(join(tmpdir(), 'sbe-token-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function run(argv: string[], env: Record<string, string> = { DATA_DIR: dataDir }) {
  let stdout = '';
  let stderr = '';
  const code = runTokenCli(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env,
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
});
