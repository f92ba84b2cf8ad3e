/**
 * `npm run bench:explorer`: its options first, so `--help` and a bad flag answer before the
 * explorer's build, the local server and Chromium's driver load; then the benchmark (explorer.ts).
 */
import { scriptArgs } from '../lib/script-args';

scriptArgs({
  command: 'npm run bench:explorer',
  usage: `The explorer page in Debian's Chromium: the small-graph download, the worked example's first
render, and large structures (Jaeger's 871 services, a 12-tier DAG and a cyclic graph of 20,000
nodes, generated structures of 20,000 and 100,000), with PASS/MISS lines for the targets.
It starts its own local server on free ports. Takes no options but:

  -h, --help    this text`,
  options: {},
});

await import('./explorer');
