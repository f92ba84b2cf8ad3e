/**
 * `npm run bench:bundle`: each function's Lambda bundle, built exactly as `cdk deploy` builds it
 * (the stack is synthesized with bundling on, and the assets it wrote are measured), once with
 * the AWS SDK bundled (what the stack deploys) and once with it left to the Lambda runtime.
 *
 * Per bundle: its size, how long `import()` of it takes in a fresh Node process, and how long
 * from process start until that import resolved, next to the same for an empty module and for
 * the floor, a bundle of the AWS SDK's DynamoDB clients alone (what any function that reads the
 * table must load), rounds interleaved so all see the same machine. That is a cold start's init
 * phase minus the network: the environment the functions read at load is set, and nothing is
 * sent anywhere (no client connects at load). The goal: each function's import at most
 * `MAX_IMPORT_VS_SDK`× the SDK's alone, so the service's own code adds at most a fifth to the
 * unavoidable part; compared in CPU time (user + system of the process during the import), which
 * holds still on a shared machine where wall time does not; wall times are printed beside.
 *
 * Usage: npm run bench:bundle [-- --rounds 21] [-- --tracing]   (--tracing: as a stage deployed with -c tracing=true)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { App, Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { bundledFunctionProps } from '../infra/constructs/service-function';
import type { AwsSdkPlacement } from '../infra/functions';
import { cdkJsonContext, PROJECT_ROOT } from '../infra/project';
import { ServiceStack } from '../infra/service-stack';
import { readDeploySettings } from '../infra/settings';
import { FUNCTIONS, type FunctionName } from '../lib/http/routes';
import { scriptArgs } from '../lib/script-args';
import { type Column, formatMs, formatRatio, renderTable } from './table';

/** The targets of the bundle budget. */
const MAX_BUNDLE_BYTES = 400 * 1024;
const MAX_IMPORT_VS_SDK = 1.2;
/** What the stack deploys (infra/functions.ts); the other placement is measured for comparison. */
const DEPLOYED_PLACEMENT: AwsSdkPlacement = 'bundled';
const PLACEMENTS: readonly AwsSdkPlacement[] = ['bundled', 'external'];

/** What the functions read at cold start; placeholders, since nothing is called at load. */
const FUNCTION_ENV = {
  TABLE_NAME: 'bench-table',
  USER_POOL_ID: 'eu-west-1_Bench1234',
  USER_POOL_CLIENT_ID: 'benchclientid0123456789abc',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIABENCHBENCHBENCH0',
  AWS_SECRET_ACCESS_KEY: 'bench-secret-not-used',
  AWS_EC2_METADATA_DISABLED: 'true',
  POWERTOOLS_SERVICE_NAME: 'system-behavior-engine',
  LOG_LEVEL: 'INFO',
};

interface Bundle {
  /** A function of the route table, or the SDK-only reference. */
  fn: FunctionName | 'AWS SDK alone';
  placement: AwsSdkPlacement;
  /** The module to import: inside the project, so an external SDK resolves from node_modules. */
  file: string;
  bytes: number;
  mapBytes: number;
  gzipBytes: number;
}

/** Synthesizes the stack with real bundling and copies each function's bundle where it can run. */
function buildBundles(placement: AwsSdkPlacement, workDir: string, tracing: boolean): Bundle[] {
  const outdir = mkdtempSync(join(tmpdir(), `sbe-bundle-${placement}-`));
  try {
    // Asset metadata names each function's bundle folder, as it does when the CLI synthesizes.
    const app = new App({
      outdir,
      context: {
        ...cdkJsonContext(),
        'aws:cdk:enable-asset-metadata': true,
        ...(tracing ? { tracing: 'true' } : {}),
      },
    });
    const settings = readDeploySettings((key) => app.node.tryGetContext(key));
    const stack = new ServiceStack(app, 'BundleBench', { settings, awsSdk: placement });
    // The floor: only the DynamoDB clients, bundled by the same construct with the same options.
    const sdkOnly = new NodejsFunction(
      new Stack(app, 'BundleBenchFloor'),
      'SdkOnly',
      bundledFunctionProps(join(PROJECT_ROOT, 'bench/fixtures/sdk-only.ts'), placement),
    );
    app.synth();
    const built: Array<[Bundle['fn'], NodejsFunction]> = [
      ...(Object.keys(FUNCTIONS) as FunctionName[]).map((fn): [FunctionName, NodejsFunction] => [
        fn,
        stack.functions[fn].function,
      ]),
      ['AWS SDK alone', sdkOnly],
    ];
    return built.map(([fn, lambda]) => {
      const cfn = lambda.node.defaultChild as CfnFunction;
      const assetPath = cfn.getMetadata('aws:asset:path') as string;
      const target = join(workDir, placement, fn.replaceAll(' ', '-'));
      cpSync(join(outdir, assetPath), target, { recursive: true });
      const file = join(target, 'index.mjs');
      const code = readFileSync(file);
      return {
        fn,
        placement,
        file,
        bytes: code.length,
        mapBytes: statSync(`${file}.map`).size,
        gzipBytes: gzipSync(code).length,
      };
    });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

interface Timing {
  /** From process start until the import resolved. */
  startToImported: number;
  /** The `import()` alone. */
  importOnly: number;
  /**
   * CPU time (user + system, all threads) the process spent on the `import()`: what the import
   * costs, with the waiting for a core left out, so it holds still on a shared machine.
   */
  importCpu: number;
}

/** One fresh process that imports `file` and reports its timings. */
function timeImport(file: string): Timing {
  const script =
    'const cpuBefore = process.cpuUsage();' +
    'const before = performance.now();' +
    `await import(${JSON.stringify(pathToFileURL(file).href)});` +
    'const after = performance.now();' +
    'const cpu = process.cpuUsage(cpuBefore);' +
    'process.stdout.write(JSON.stringify({ startToImported: after, importOnly: after - before, ' +
    'importCpu: (cpu.user + cpu.system) / 1000 }));';
  const child = spawnSync(process.execPath, ['--input-type=module', '--eval', script], {
    env: { PATH: process.env.PATH ?? '', ...FUNCTION_ENV },
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`importing ${file} failed: ${child.stderr.slice(0, 2000)}`);
  return JSON.parse(child.stdout) as Timing;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function main(): void {
  const values = scriptArgs({
    command: 'npm run bench:bundle',
    usage: `Builds the Lambda bundles as the stack does and measures their cold-start import.

  --rounds N    imports per bundle, each in a fresh Node process (default 21)
  --tracing     build with X-Ray tracing on (cdk -c tracing=true)
  -h, --help    this text`,
    options: { rounds: { type: 'string', default: '21' }, tracing: { type: 'boolean', default: false } },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a positive integer');

  // Under node_modules so a bundle that leaves the SDK external finds it, as Lambda's runtime provides it.
  const workDir = join(PROJECT_ROOT, 'node_modules', '.cache', 'sbe-bundle-bench');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  try {
    const emptyModule = join(workDir, 'empty.mjs');
    writeFileSync(emptyModule, 'export const handler = async () => ({ statusCode: 204 });\n');
    const bundles = PLACEMENTS.flatMap((placement) => buildBundles(placement, workDir, values.tracing));

    const samples = new Map<string, Timing[]>(
      [emptyModule, ...bundles.map((bundle) => bundle.file)].map((file): [string, Timing[]] => [file, []]),
    );
    for (let round = 0; round < rounds; round++) {
      for (const [file, timings] of samples) timings.push(timeImport(file));
    }
    const medianOf = (file: string, key: keyof Timing) =>
      median(samples.get(file)!.map((timing) => timing[key]));
    const emptyStart = medianOf(emptyModule, 'startToImported');

    const columns: Column[] = [
      { header: 'function', align: 'left' },
      { header: 'AWS SDK', align: 'left' },
      { header: 'bundle', align: 'right' },
      { header: 'gzip', align: 'right' },
      { header: 'source map', align: 'right' },
      { header: 'import()', align: 'right' },
      { header: 'start → imported', align: 'right' },
      { header: 'import() CPU', align: 'right' },
      { header: 'CPU vs SDK alone', align: 'right' },
      { header: `≤ ${MAX_BUNDLE_BYTES / 1024} KB`, align: 'left' },
      { header: `≤ ${MAX_IMPORT_VS_SDK}× SDK`, align: 'left' },
    ];
    /** The floor of a placement: the DynamoDB clients alone, bundled the same way. */
    const floorOf = (placement: AwsSdkPlacement) =>
      bundles.find((bundle) => bundle.fn === 'AWS SDK alone' && bundle.placement === placement)!;
    const vsSdk = (bundle: Bundle) =>
      medianOf(bundle.file, 'importCpu') / medianOf(floorOf(bundle.placement).file, 'importCpu');
    const rows = [
      [
        '(empty module)',
        '',
        '',
        '',
        '',
        formatMs(medianOf(emptyModule, 'importOnly')),
        formatMs(emptyStart),
        formatMs(medianOf(emptyModule, 'importCpu')),
        '',
        '',
        '',
      ],
      ...bundles.map((bundle) => {
        const ratio = vsSdk(bundle);
        const reference = bundle.fn === 'AWS SDK alone';
        return [
          bundle.fn,
          `${bundle.placement}${bundle.placement === DEPLOYED_PLACEMENT ? ' (deployed)' : ' (SDK not counted)'}`,
          kb(bundle.bytes),
          kb(bundle.gzipBytes),
          kb(bundle.mapBytes),
          formatMs(medianOf(bundle.file, 'importOnly')),
          formatMs(medianOf(bundle.file, 'startToImported')),
          formatMs(medianOf(bundle.file, 'importCpu')),
          formatRatio(ratio),
          reference ? '(floor)' : bundle.bytes <= MAX_BUNDLE_BYTES ? 'yes' : 'MISS',
          reference ? '(floor)' : ratio <= MAX_IMPORT_VS_SDK ? 'yes' : 'MISS',
        ];
      }),
    ];
    console.log(
      `Lambda bundles as the stack builds them (esbuild ESM, minified${values.tracing ? ', tracing on' : ''}), Node ${process.version}, ` +
        `median of ${rounds} fresh processes each, source maps read only when a stack is logged\n`,
    );
    console.log(renderTable(columns, rows));
    console.log(
      '\n"start → imported": process start until import() resolved (what a cold start spends before the ' +
        'first request, network aside). With the SDK external, the SDK is loaded from node_modules as Lambda ' +
        'loads the runtime\'s copy, so its load time is counted and its size is not. "AWS SDK alone" only ' +
        'builds the DynamoDB clients both functions need: the floor of any function that reads the table.',
    );
    const deployed = bundles.filter(
      (bundle) => bundle.placement === DEPLOYED_PLACEMENT && bundle.fn !== 'AWS SDK alone',
    );
    const floor = floorOf(DEPLOYED_PLACEMENT);
    console.log(
      `\nCold-start goal: the CPU time of import() of each deployed bundle ≤ ${MAX_IMPORT_VS_SDK}× that of the AWS SDK's DynamoDB clients alone.`,
    );
    for (const bundle of deployed) {
      const ratio = vsSdk(bundle);
      console.log(
        `  ${bundle.fn}: ${formatMs(medianOf(bundle.file, 'importCpu'))} vs ${formatMs(medianOf(floor.file, 'importCpu'))} CPU ` +
          `(import() wall time ${formatMs(medianOf(bundle.file, 'importOnly'))} vs ${formatMs(medianOf(floor.file, 'importOnly'))}) ` +
          `→ ${formatRatio(ratio)} ${ratio <= MAX_IMPORT_VS_SDK ? '(met)' : '(MISS)'}`,
      );
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

main();
