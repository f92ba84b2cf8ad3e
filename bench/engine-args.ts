/**
 * `npm run bench`'s options, read before anything else the benchmark imports (`engine-main.ts`):
 * `--help` and a bad flag answer at once, not after the engine, graphology and the generators load.
 */
import { scriptArgs } from '../lib/script-args';

export const args = scriptArgs({
  command: 'npm run bench',
  usage: `The engine benchmark: every family and size, ratios against the JSON floor and graphology,
measured in one run, with PASS/MISS lines for the targets (docs/benchmark.md).

  --quick           the small rows only (a minute, not the whole bench)
  --only=compare    the what-if section alone
  --only=latency    the latency section alone (response times, end-to-end latency, SLO search)
  --only=spans      the spans section alone: a day of spans in each span format through connect
                    (spans per second, peak memory, the largest that registers; with --quick: 4 MiB)
  --only=round      performance round 3's own measurements (a fan-out loop of gain > 1, what-ifs on 100k/500k)
  --only=linearity  the chain, star and ring rows and the open twins at 200k/1M, with round 3's
                    chain and open-over-closed targets
  -h, --help        this text`,
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } },
});
if (args.only !== undefined && !['compare', 'latency', 'spans', 'round', 'linearity'].includes(args.only)) {
  console.error(
    `error: --only takes "compare", "latency", "spans", "round" or "linearity", got ${JSON.stringify(args.only)}. Run "npm run bench -- --help" for usage.`,
  );
  process.exit(2);
}
