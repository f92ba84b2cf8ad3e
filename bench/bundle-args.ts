/**
 * `npm run bench:bundle`'s options, read before anything else it imports (`bundle-main.ts`):
 * `--help` and a bad flag answer at once, not after aws-cdk-lib and the stack load.
 */
import { scriptArgs } from '../lib/script-args';

export const bundleArgs = scriptArgs({
  command: 'npm run bench:bundle',
  usage: `Builds the Lambda bundles as the stack does and measures their cold-start import: per
function (engine, connect) and for the AWS SDK's DynamoDB clients alone, the bytes a cold start
loads, the import's wall and CPU time in fresh Node processes, and what each lazily loaded part
costs the first request that needs it. Then PASS or MISS (and why, for a MISS) for the goals:
each bundle ≤ 400 KB at cold start, and its import's CPU time ≤ 1.20× (engine) and ≤ 1.25×
(connect) the SDK's alone (docs/deploy.md, "Bundles and cold start").

  --rounds N    imports per bundle, each in a fresh Node process (default 21)
  --tracing     build with X-Ray tracing on (cdk -c tracing=true)
  -h, --help    this text`,
  options: { rounds: { type: 'string', default: '21' }, tracing: { type: 'boolean', default: false } },
});
const rounds = Number(bundleArgs.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(
    `error: --rounds takes a whole number of 1 or more, got ${JSON.stringify(bundleArgs.rounds)}. Run "npm run bench:bundle -- --help" for usage.`,
  );
  process.exit(2);
}
/** Imports per bundle (`--rounds`). */
export const bundleRounds = rounds;
