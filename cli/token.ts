/**
 * `npm run token -- --user <sub> [--ttl <seconds>]`: signs a user access token with the local
 * issuer of the running local server (found by its pointer file, or by `PORT` and `DATA_DIR`
 * when they are set), and prints it as the last line, ready for `Authorization: Bearer <token>`.
 * Local runs only: deployed tokens come from the Cognito user pool.
 */
import { parseArgs } from 'node:util';
import { type Env, optionalEnv } from '../lib/config/env';
import { type LocalServerPointer, readLocalServerPointer } from '../lib/local-server-pointer';
import { isMainModule } from '../lib/main-module';
import { OWNER_RULE, OWNER_SHAPE } from '../lib/text';
import { localIssuerFileFromEnv, readLocalIssuer, signAccessToken } from '../lib/tokens/local-issuer';
import { endOnOutputError, type TextOutput, UsageError, usageErrorFrom, usageErrorLine } from './common';

const USAGE = `Usage: npm run token -- --user <sub> [--ttl <seconds>]

Prints an access token of the local server's issuer for user <sub> (the owner of what the user
creates), valid for --ttl seconds (default 3600, at most 86400). It signs with the issuer of the
running npm start, wherever its PORT and DATA_DIR put it; with PORT or DATA_DIR set, with the
issuer of the server started with those.
`;

export function runTokenCli(
  argv: readonly string[],
  io: {
    stdout: TextOutput;
    stderr: TextOutput;
    env: Env;
    /** Where the running server is; default its pointer file. */
    findServer?: () => Pick<LocalServerPointer, 'issuerFile'>;
  },
): number {
  try {
    const { values } = parseWithUsage(argv);
    if (values.help) {
      io.stdout.write(USAGE);
      return 0;
    }
    const sub = values.user;
    if (sub === undefined || !OWNER_SHAPE.test(sub)) {
      throw new UsageError(`give --user <sub>: ${OWNER_RULE}`);
    }
    const ttlSeconds = values.ttl === undefined ? 3600 : Number(values.ttl);
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > 86_400) {
      throw new UsageError('--ttl must be a whole number of seconds from 1 to 86400');
    }
    // A setting says which server: it wins over the running server's pointer.
    const explicit =
      optionalEnv(io.env, 'PORT') !== undefined || optionalEnv(io.env, 'DATA_DIR') !== undefined;
    const file = explicit
      ? localIssuerFileFromEnv(io.env)
      : (io.findServer ?? readLocalServerPointer)().issuerFile;
    const issuer = readLocalIssuer(file);
    io.stdout.write(`Access token for ${sub}, valid for ${ttlSeconds} s (issuer key ${file}):\n`);
    io.stdout.write(`${signAccessToken(issuer, { sub, ttlSeconds })}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(usageErrorLine(error, 'npm run token -- --help'));
      return 2;
    }
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function parseWithUsage(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      options: { user: { type: 'string' }, ttl: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    throw usageErrorFrom(error);
  }
}

if (isMainModule(import.meta.url)) {
  endOnOutputError();
  process.exitCode = runTokenCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
}
