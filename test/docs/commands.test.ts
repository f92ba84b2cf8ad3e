/**
 * The README's and docs' commands, run as written, in order, in one shell, against a real
 * `npm start` on a port and data folder that are not the defaults, in the environment a reader
 * has: nothing set but what the docs say to paste. Each answer is compared with the one the docs
 * show (`…` matches anything); a placeholder (`<id>`, `<the key npm start printed>`) is filled
 * from what came before, as the docs say. A doc example that drifts from the server fails here.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/project';
import { freePort } from '../helpers/free-port';
import { type DocumentedCommand, documentedCommands, matchesAnswer } from './documented-commands';

/** In reading order: the README first, then the guides it sends a newcomer to. */
const DOCUMENTS = ['README.md', 'docs/local.md', 'docs/keys.md', 'docs/tokens.md', 'docs/api.md'];

const commands: DocumentedCommand[] = DOCUMENTS.flatMap((file) =>
  documentedCommands(file, readFileSync(join(PROJECT_ROOT, file), 'utf8')),
);

/** A temp directory of the test's own: the server's pointer file and data go there, not over a developer's. */
const temp = mkdtempSync(join(tmpdir(), 'sbe-docs-'));
/** What a reader's environment has: no PORT, DATA_DIR or DynamoDB settings of the server's. */
const readerEnv = Object.fromEntries(
  Object.entries({ ...process.env, TMPDIR: temp }).filter(
    ([name]) =>
      !/^(PORT|DATA_DIR|DYNAMO_PORT|DYNAMODB_ENDPOINT|TABLE_NAME|LOCAL_ISSUER_FILE|SBE_\w+)$/.test(name),
  ),
) as Record<string, string>;

let server: ChildProcessWithoutNullStreams;
let banner = '';
let shell: Shell;

beforeAll(async () => {
  // Another terminal: `PORT=… DATA_DIR=… npm start`, neither the default, as the README allows.
  server = spawn('npm', ['start'], {
    cwd: PROJECT_ROOT,
    env: { ...readerEnv, PORT: String(await freePort()), DATA_DIR: join(temp, 'data') },
    detached: true,
  });
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      banner += chunk.toString('utf8');
      if (banner.includes('Ctrl-C stops the server.')) resolve();
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${banner}`)));
  });
  shell = startShell();
}, 120_000);

afterAll(async () => {
  shell?.close();
  if (server?.pid !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    // npm's own process and the server under it: the whole group.
    process.kill(-server.pid, 'SIGTERM');
    await exited;
  }
  rmSync(temp, { recursive: true, force: true });
});

/** What the banner told the reader to paste. */
function printed(name: 'SBE_URL' | 'SBE_KEY' | 'SBE_TOKEN'): string {
  const value = new RegExp(`export ${name}=(\\S+)`).exec(banner)?.[1];
  if (value === undefined) throw new Error(`npm start printed no ${name}:\n${banner}`);
  return value;
}

/** The values placeholders stand for, from the banner and the answers so far. */
function fill(command: string, answers: readonly string[]): string {
  return command.replace(/<([^<>\n]+)>/g, (placeholder, name: string) => {
    if (name === 'the URL npm start printed') return printed('SBE_URL');
    if (name === 'the key npm start printed') return printed('SBE_KEY');
    if (name === 'the token npm start printed') return printed('SBE_TOKEN');
    if (/^id\b/.test(name)) {
      // The id in the latest answer that has one: JSON's "id", or the keys CLI's `id:` line.
      for (const answer of [...answers].reverse()) {
        const id = /"id":"([^"]+)"/.exec(answer)?.[1] ?? /^\s*id:\s+(\S+)/m.exec(answer)?.[1];
        if (id !== undefined) return id;
      }
    }
    throw new Error(`no value for the placeholder ${placeholder}`);
  });
}

describe('the documented commands, as written', () => {
  it('finds the marked blocks', () => {
    expect(commands.length).toBeGreaterThan(15);
    expect(commands.filter((command) => command.where.startsWith('README.md')).length).toBeGreaterThan(8);
  });

  const answers: string[] = [];
  it.each(commands.map((command) => [command.where, command] as const))('%s', async (_where, documented) => {
    // The reader's own server is the one started above.
    if (/^npm (start|ci)\b/.test(documented.command)) return;
    const ran = await shell.run(fill(documented.command, answers));
    answers.push(ran.output);
    const context = `${documented.command}\n→ exit ${ran.exitCode}, HTTP ${ran.status ?? '-'}:\n${ran.output}`;
    expect(ran.exitCode, context).toBe(0);
    const expected = documented.expected;
    const status = expected === undefined ? undefined : /^([1-5]\d\d)\b\s*/.exec(expected);
    if (status !== undefined && status !== null) expect(ran.status, context).toBe(Number(status[1]));
    else if (ran.status !== undefined) expect(ran.status, context).toBeLessThan(400);
    const body = status === undefined || status === null ? expected : expected?.slice(status[0].length);
    if (body !== undefined && body !== '') {
      expect(matchesAnswer(body, ran.output), `the docs show\n${body}\n${context}`).toBe(true);
    }
  });
});

interface Ran {
  exitCode: number;
  /** The HTTP status of the command's curl, when it ran one. */
  status: number | undefined;
  output: string;
}

interface Shell {
  run(command: string): Promise<Ran>;
  close(): void;
}

/**
 * One bash for every command, so that what one exports the next sees, as in a reader's terminal.
 * curl is wrapped only to report the HTTP status after the body; the command itself is as written.
 */
function startShell(): Shell {
  const bash = spawn('bash', ['--noprofile', '--norc'], { cwd: PROJECT_ROOT, env: readerEnv });
  let buffer = '';
  let waiting: ((text: string) => void) | undefined;
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const done = /\n?__DOC_DONE__ (\d+)\n$/.exec(buffer);
    if (done !== null && waiting !== undefined) {
      const take = waiting;
      waiting = undefined;
      const text = buffer;
      buffer = '';
      take(text);
    }
  };
  bash.stdout.on('data', onData);
  bash.stderr.on('data', onData);
  bash.stdin.write(
    ['exec 2>&1', `curl() { command curl -w '\\n__HTTP_STATUS__ %{http_code}\\n' "$@"; }`, ''].join('\n'),
  );
  return {
    run: (command) =>
      new Promise((resolve) => {
        waiting = (text) => {
          const exitCode = Number(/__DOC_DONE__ (\d+)\n$/.exec(text)?.[1]);
          // npm's own echo of the script it runs (`> pkg@1.0.0 keys` and the command) is npm's, not ours.
          let output = text.replace(/\n?__DOC_DONE__ \d+\n$/, '').replace(/^\s*> \S+@\S+ \S+\n> .*\n/gm, '');
          const statuses = [...output.matchAll(/\n?__HTTP_STATUS__ (\d+)\n?/g)];
          output = output.replace(/\n?__HTTP_STATUS__ \d+\n?/g, '\n').trim();
          const last = statuses.at(-1)?.[1];
          resolve({ exitCode, status: last === undefined ? undefined : Number(last), output });
        };
        bash.stdin.write(`${command}\nprintf '\\n__DOC_DONE__ %s\\n' "$?"\n`);
      }),
    close: () => {
      bash.stdin.end();
      bash.kill();
    },
  };
}
