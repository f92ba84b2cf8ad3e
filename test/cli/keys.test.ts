import { describe, expect, it } from 'vitest';
import { resolveKeysTarget, runKeysCli } from '../../cli/keys';
import { createApiKeyVerifier, DynamoApiKeyStore, hashApiKey, importApiKey } from '../../lib/keys';
import { useFreshTable } from '../helpers/dynalite';

const table = useFreshTable();

const NOW = new Date('2025-03-01T12:00:00.000Z');

/** Run the CLI as `npm run keys -- <args>` would, capturing what it prints. */
async function keys(args: string, options: { tableName?: string } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runKeysCli(args.split(' ').filter(Boolean), {
    doc: table.doc,
    tableName: options.tableName ?? table.tableName,
    target: 'test dynalite',
    now: () => NOW,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  return { code, stdout, stderr };
}

function keyIn(output: string): string {
  const key = /key:\s+(sbe_[A-Za-z0-9_-]+)/.exec(output)?.[1];
  if (key === undefined) throw new Error(`no key in output:\n${output}`);
  return key;
}

function store() {
  return new DynamoApiKeyStore({ doc: table.doc, tableName: table.tableName });
}

describe('create', () => {
  it('prints a working key once, with its id, prefix, owner and name', async () => {
    // Models an operator issuing a key for a CI pipeline and the pipeline then calling the API.
    const { code, stdout, stderr } = await keys('create --owner alice --name ci');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const key = keyIn(stdout);
    const digest = hashApiKey(key);
    expect(stdout).toContain(`id:      ${digest.slice(0, 12)}`);
    expect(stdout).toContain(`prefix:  ${key.slice(0, 12)}`);
    expect(stdout).toContain('owner:   alice');
    expect(stdout).toContain('name:    ci');
    expect(stdout).toMatch(/only time the key is shown/);
    const verifier = createApiKeyVerifier(store());
    expect(await verifier.verify(key)).toMatchObject({ owner: 'alice', name: 'ci' });
    await verifier.settled();
  });

  it('--json gives the key and the public record as one object', async () => {
    const { code, stdout } = await keys('create --owner bob --name laptop --json');
    expect(code).toBe(0);
    const created = JSON.parse(stdout);
    expect(created).toEqual({
      key: expect.stringMatching(/^sbe_[A-Za-z0-9_-]{43}$/),
      id: hashApiKey(created.key).slice(0, 12),
      prefix: created.key.slice(0, 12),
      owner: 'bob',
      name: 'laptop',
      status: 'active',
      createdAt: NOW.toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    });
  });

  // A command-line mistake exits 2, as every script's does; a value the store refuses, 1.
  it('without --owner or --name (2), or with a bad owner (1), fails with one line', async () => {
    for (const [args, message] of [
      ['create --name ci', 'error: create needs --owner <id>'],
      ['create --owner alice', 'error: create needs --name <label>'],
      ['create --owner al/ice --name ci', 'error: owner must be 1-128 characters'],
    ] as const) {
      const { code, stdout, stderr } = await keys(args);
      expect(code, args).toBe(args.includes('al/ice') ? 1 : 2);
      expect(stdout).toBe('');
      expect(stderr.startsWith(message), stderr).toBe(true);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(await store().list()).toEqual([]);
  });
});

describe('list', () => {
  it('shows id, prefix, owner, name, status and dates, and never a key or a digest', async () => {
    const alice = keyIn((await keys('create --owner alice --name ci')).stdout);
    const bob = keyIn((await keys('create --owner bob --name laptop')).stdout);
    await store().touchLastUsed(hashApiKey(bob), new Date('2025-03-02T08:00:00.000Z'));

    const { code, stdout } = await keys('list');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+PREFIX\s+OWNER\s+NAME\s+STATUS\s+CREATED\s+LAST USED$/);
    expect(lines).toHaveLength(3);
    for (const [key, owner, lastUsed] of [
      [alice, 'alice', '-'],
      [bob, 'bob', '2025-03-02T08:00:00.000Z'],
    ] as const) {
      const id = hashApiKey(key).slice(0, 12);
      const line = lines.find((candidate) => candidate.startsWith(id)) ?? '';
      expect(line.split(/\s{2,}/)).toEqual([
        id,
        key.slice(0, 12),
        owner,
        owner === 'alice' ? 'ci' : 'laptop',
        'active',
        NOW.toISOString(),
        lastUsed,
      ]);
      expect(stdout).not.toContain(key);
      expect(stdout).not.toContain(key.slice(12));
      expect(stdout).not.toContain(hashApiKey(key));
    }
  });

  it('--owner narrows the list; --json prints public records only', async () => {
    await keys('create --owner alice --name ci');
    const bob = keyIn((await keys('create --owner bob --name laptop')).stdout);
    const { code, stdout } = await keys('list --owner bob --json');
    expect(code).toBe(0);
    const listed = JSON.parse(stdout);
    expect(listed).toHaveLength(1);
    expect(Object.keys(listed[0]).sort()).toEqual(
      ['createdAt', 'id', 'lastUsedAt', 'name', 'owner', 'prefix', 'revokedAt', 'status'].sort(),
    );
    expect(listed[0].owner).toBe('bob');
    expect(stdout).not.toContain(bob.slice(12));
    expect(stdout).not.toContain(hashApiKey(bob));
  });

  it('says so when there is nothing to list', async () => {
    expect((await keys('list')).stdout).toBe('No API keys.\n');
    expect((await keys('list --owner zoe')).stdout).toBe('No API keys for owner zoe.\n');
    expect((await keys('list --json')).stdout).toBe('[]\n');
  });
});

describe('revoke', () => {
  it('by id prefix: the key stops working and shows as revoked', async () => {
    const key = keyIn((await keys('create --owner alice --name ci')).stdout);
    const id = hashApiKey(key).slice(0, 12);

    const { code, stdout } = await keys(`revoke ${id.slice(0, 6)}`);
    expect(code).toBe(0);
    expect(stdout).toBe(`Revoked API key ${id} (${key.slice(0, 12)}, owner alice, name "ci").\n`);
    expect((await keys('list')).stdout).toMatch(new RegExp(`${id}.*revoked`));
    expect(await createApiKeyVerifier(store()).verify(key)).toBeUndefined();
  });

  it('by display prefix, as copied from the list or with an ellipsis; a second revoke says it already was', async () => {
    const key = keyIn((await keys('create --owner alice --name ci')).stdout);
    expect((await keys(`revoke ${key.slice(0, 12)}…`)).code).toBe(0);
    // `--` ends the options: a key's random part may start with "-" (base64url), which the
    // parser would otherwise read as an option (1 run in 64 failed on that).
    const again = await keys(`revoke -- ${key.slice(4, 12)}`);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/was already revoked/);
    const record = await store().getByDigest(hashApiKey(key));
    expect(record).toMatchObject({ status: 'revoked', revokedAt: NOW.toISOString() });
  });

  it('refuses an ambiguous selector, listing the candidates, and revokes nothing', async () => {
    // Two keys whose display prefixes share their first characters.
    const first = await importApiKey(store(), 'sbe_samePrefixAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', {
      owner: 'a',
      name: 'x',
    });
    const second = await importApiKey(store(), 'sbe_samePrefixBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', {
      owner: 'b',
      name: 'y',
    });
    const { code, stdout, stderr } = await keys('revoke sbe_same');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('"sbe_same" matches 2 keys');
    expect(stderr).toContain(first.id);
    expect(stderr).toContain(second.id);
    expect((await store().list()).map((record) => record.status)).toEqual(['active', 'active']);
  });

  it('with no match (1), or a selector too short to be a choice (2), fails', async () => {
    keyIn((await keys('create --owner alice --name ci')).stdout);
    const none = await keys('revoke zzzzzzzz');
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toBe('error: no API key has an id or prefix starting with "zzzzzzzz"\n');
    const short = await keys('revoke sbe_a');
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/^error: give at least 4 characters/);
    const missing = await keys('revoke');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: revoke needs exactly one <id-or-prefix>/);
    expect((await store().list())[0]?.status).toBe('active');
  });
});

describe('errors and help', () => {
  it('unknown commands and options: one line, exit code 2, a pointer to help', async () => {
    for (const args of ['frobnicate', 'list --frob', 'list extra', 'revoke abcd --owner x']) {
      const { code, stderr } = await keys(args);
      expect(code, args).toBe(2);
      expect(stderr).toMatch(/^error: .*Run "npm run keys -- help" for usage\.\n$/);
      expect(stderr).not.toContain('To specify a positional argument');
    }
  });

  it('a missing table is named, without a stack trace; --debug adds the stack', async () => {
    const plain = await keys('list', { tableName: 'no-such-table' });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe(
      'error: table "no-such-table" does not exist (test dynalite). Locally, start the server ("npm start"): it creates the table.\n',
    );
    const debug = await keys('list --debug', { tableName: 'no-such-table' });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('help (and no command at all) prints usage and succeeds', async () => {
    for (const args of ['help', '', '--help']) {
      const { code, stdout } = await keys(args);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: npm run keys -- <command>/);
      expect(stdout).toContain('revoke <id-or-prefix>');
    }
  });
});

describe('resolveKeysTarget', () => {
  // Nothing set: the DynamoDB of the running npm start, wherever it put it (a fallback port, another table).
  it('defaults to the running local server, found by its pointer', () => {
    const server = {
      url: 'http://127.0.0.1:3100',
      dynamoEndpoint: 'http://127.0.0.1:8042',
      tableName: 'sbe-local',
      issuerFile: '/tmp/x/local-issuer.json',
      pid: 1,
    };
    expect(resolveKeysTarget({}, () => server)).toEqual({
      endpoint: 'http://127.0.0.1:8042',
      tableName: 'sbe-local',
      description:
        'the local server at http://127.0.0.1:3100: DynamoDB at http://127.0.0.1:8042, table "sbe-local"',
    });
    expect(() =>
      resolveKeysTarget({}, () => {
        throw new Error('no local server is running');
      }),
    ).toThrow('no local server is running');
  });

  it('takes DYNAMO_PORT, when set, over the pointer', () => {
    const notAsked = () => {
      throw new Error('not asked');
    };
    expect(resolveKeysTarget({ DYNAMO_PORT: '8123' }, notAsked)).toMatchObject({
      endpoint: 'http://127.0.0.1:8123',
      tableName: 'sbe-local',
    });
  });

  it('uses AWS (no endpoint) when TABLE_NAME is set without DYNAMODB_ENDPOINT', () => {
    expect(resolveKeysTarget({ TABLE_NAME: 'sbe-prod', AWS_REGION: 'eu-west-1' })).toEqual({
      endpoint: undefined,
      tableName: 'sbe-prod',
      description: 'AWS DynamoDB, eu-west-1, table "sbe-prod"',
    });
  });

  it('lets DYNAMODB_ENDPOINT override both', () => {
    expect(resolveKeysTarget({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9000', TABLE_NAME: 't1' })).toMatchObject(
      {
        endpoint: 'http://127.0.0.1:9000',
        tableName: 't1',
      },
    );
    expect(resolveKeysTarget({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9000', DYNAMO_PORT: '1' }).endpoint).toBe(
      'http://127.0.0.1:9000',
    );
  });

  it('refuses a DYNAMO_PORT that is not a port', () => {
    expect(() => resolveKeysTarget({ DYNAMO_PORT: 'eight' })).toThrow(
      'DYNAMO_PORT must be an integer from 1 to 65535',
    );
    expect(() => resolveKeysTarget({ DYNAMO_PORT: '70000' })).toThrow(/DYNAMO_PORT/);
  });
});
