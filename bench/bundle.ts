/**
 * `npm run bench:bundle`: each function's Lambda bundle, built exactly as `cdk deploy` builds it
 * (the stack is synthesized with bundling on, and the assets it wrote are measured), once with
 * the AWS SDK bundled (what the stack deploys) and once with it left to the Lambda runtime.
 *
 * The bundles are code split (infra/constructs/function-code.ts): what a cold start loads is the
 * entry `index.mjs` and the chunks it imports statically; a chunk the code reaches only through
 * `import()` is loaded at the first request that needs it. Per bundle: the size of what a cold
 * start loads, how long `import()` of the entry takes in a fresh Node process, and how long from
 * process start until that import resolved, next to the same for an empty module and for the
 * floor, a bundle of the AWS SDK's DynamoDB clients alone (what any function that reads the
 * table must load), rounds interleaved so all see the same machine. That is a cold start's init
 * phase minus the network: the environment the functions read at load is set, and nothing is
 * sent anywhere (no client connects at load). The goal: each function's import at most
 * `MAX_IMPORT_VS_SDK[fn]`× the SDK's alone, compared in CPU time (user + system of the process
 * during the import), which holds still on a shared machine where wall time does not; wall times
 * are printed beside. Then, for each part of a deployed bundle that is loaded lazily, what the
 * first request that needs it pays: the `import()` of that part in a process that has just
 * imported the entry.
 *
 * Usage: npm run bench:bundle [-- --rounds 21] [-- --tracing]   (--tracing: as a stage deployed with -c tracing=true)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { App, Stack } from 'aws-cdk-lib';
import { type CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { bundledFunctionProps } from '../infra/constructs/function-code';
import type { AwsSdkPlacement } from '../infra/functions';
import { cdkJsonContext, PROJECT_ROOT } from '../infra/project';
import { ServiceStack } from '../infra/service-stack';
import { readDeploySettings } from '../infra/settings';
import { FUNCTIONS, type FunctionName } from '../lib/http/routes';
import { bundleRounds, bundleArgs as values } from './bundle-args';
import { bundleFiles, bytesOf } from './bundle-files';
import { type Column, formatMs, formatRatio, median, renderTable } from './table';

/** The targets of the bundle budget: what a cold start loads, and its import's CPU time vs the SDK's alone. */
const MAX_BUNDLE_BYTES = 400 * 1024;
const MAX_IMPORT_VS_SDK: Readonly<Record<FunctionName, number>> = { engine: 1.2, connect: 1.25 };
/** What the stack deploys (infra/functions.ts); the other placement is measured for comparison. */
const DEPLOYED_PLACEMENT: AwsSdkPlacement = 'bundled';
const PLACEMENTS: readonly AwsSdkPlacement[] = ['bundled', 'external'];
const FLOOR = 'AWS SDK alone';
/**
 * Why a function's cold start may miss its goal, printed beside a MISS: what its entry must load
 * whatever the request, beyond the SDK's clients (the import's CPU time is mostly V8 compiling
 * the code it reads; measured in docs/deploy.md, "Bundles and cold start").
 */
const MISS_REASON: Readonly<Record<FunctionName, string>> = {
  engine:
    "every request runs the engine, so its code (the steady state, latency, what-ifs and the writer, some 75 KB of the entry's 156 KB of own code) loads at cold start with the logger and the HTTP stack; loading it lazily would only move the same cost to the first request. The ratio also moves by ±0.05 with the machine's load between runs",
  connect:
    "the HTTP stack, the logger, the token verifier and the stores load at cold start; the graph readers, the engine and the request schemas are loaded at the first request that needs them. The ratio moves by ±0.05 with the machine's load between runs",
};

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

/** A part of a bundle that is loaded with `import()`: its chunk and the chunks it brings. */
interface LazyPart {
  /** The chunk's name without esbuild's hash: `reading` for `reading-ABCD1234.mjs`. */
  name: string;
  file: string;
  bytes: number;
  /** Its own code (not a dependency's `import()`, such as the SDK's event streams): measured. */
  own: boolean;
}

interface Bundle {
  /** A function of the route table, or the SDK-only reference. */
  fn: FunctionName | typeof FLOOR;
  placement: AwsSdkPlacement;
  /** The entry module to import: inside the project, so an external SDK resolves from node_modules. */
  file: string;
  /** What a cold start loads: the entry and its static chunks. */
  bytes: number;
  mapBytes: number;
  gzipBytes: number;
  /** Every chunk loaded with `import()` (a chunk two parts share counted once). */
  laterBytes: number;
  lazy: LazyPart[];
}

/** The first source of a chunk's map that is the project's own, if any. */
function isOwnCode(folder: string, file: string): boolean {
  const { sources } = JSON.parse(readFileSync(join(folder, `${file}.map`), 'utf8')) as { sources: string[] };
  return sources.some((source) => !source.includes('node_modules/'));
}

/** What a bundle folder loads at a cold start and later. */
function describeBundle(fn: Bundle['fn'], placement: AwsSdkPlacement, folder: string): Bundle {
  const { coldStart, lazy } = bundleFiles(folder);
  return {
    fn,
    placement,
    file: join(folder, 'index.mjs'),
    bytes: bytesOf(folder, coldStart),
    mapBytes: bytesOf(
      folder,
      coldStart.map((file) => `${file}.map`),
    ),
    gzipBytes: coldStart.reduce((sum, file) => sum + gzipSync(readFileSync(join(folder, file))).length, 0),
    laterBytes: bytesOf(folder, [...new Set([...lazy.values()].flat())]),
    lazy: [...lazy].map(([file, files]) => ({
      name: file.replace(/-[A-Z0-9]{8}\.mjs$/, ''),
      file: join(folder, file),
      bytes: bytesOf(folder, files),
      own: isOwnCode(folder, file),
    })),
  };
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
    const sdkOnly = new LambdaFunction(
      new Stack(app, 'BundleBenchFloor'),
      'SdkOnly',
      bundledFunctionProps(join(PROJECT_ROOT, 'bench/fixtures/sdk-only.ts'), placement),
    );
    app.synth();
    const built: Array<[Bundle['fn'], LambdaFunction]> = [
      ...(Object.keys(FUNCTIONS) as FunctionName[]).map((fn): [FunctionName, LambdaFunction] => [
        fn,
        stack.functions[fn].function,
      ]),
      [FLOOR, sdkOnly],
    ];
    return built.map(([fn, lambda]) => {
      const cfn = lambda.node.defaultChild as CfnFunction;
      const assetPath = cfn.getMetadata('aws:asset:path') as string;
      const target = join(workDir, placement, fn.replaceAll(' ', '-'));
      cpSync(join(outdir, assetPath), target, { recursive: true });
      return describeBundle(fn, placement, target);
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

/**
 * One fresh process that imports `file` and reports its timings; with `then`, it imports that
 * module next and reports the second import's timings instead (a lazy part after a cold start).
 */
function timeImport(file: string, then?: string): Timing {
  const measure = (target: string) =>
    'cpuBefore = process.cpuUsage(); before = performance.now();' +
    `await import(${JSON.stringify(pathToFileURL(target).href)});` +
    'after = performance.now(); cpu = process.cpuUsage(cpuBefore);';
  const script =
    'let cpuBefore, before, after, cpu;' +
    measure(file) +
    (then === undefined ? '' : measure(then)) +
    'process.stdout.write(JSON.stringify({ startToImported: after, importOnly: after - before, ' +
    'importCpu: (cpu.user + cpu.system) / 1000 }));';
  const child = spawnSync(process.execPath, ['--input-type=module', '--eval', script], {
    env: { PATH: process.env.PATH ?? '', ...FUNCTION_ENV },
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`importing ${then ?? file} failed: ${child.stderr.slice(0, 2000)}`);
  return JSON.parse(child.stdout) as Timing;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function loadAverage(): string {
  return loadavg()
    .map((load) => load.toFixed(2))
    .join(', ');
}

function main(): void {
  const rounds = bundleRounds;

  // Under node_modules so a bundle that leaves the SDK external finds it, as Lambda's runtime provides it.
  const workDir = join(PROJECT_ROOT, 'node_modules', '.cache', 'sbe-bundle-bench');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  try {
    const emptyModule = join(workDir, 'empty.mjs');
    writeFileSync(emptyModule, 'export const handler = async () => ({ statusCode: 204 });\n');
    const bundles = PLACEMENTS.flatMap((placement) => buildBundles(placement, workDir, values.tracing));
    const loadBefore = loadAverage();

    /** What is timed: a module's import in a fresh process, or a lazy part's after its entry's. */
    const key = (file: string, then?: string) => (then === undefined ? file : `${file} then ${then}`);
    const measured: Array<[string, string | undefined]> = [
      [emptyModule, undefined],
      ...bundles.map((bundle): [string, undefined] => [bundle.file, undefined]),
      ...bundles
        .filter((bundle) => bundle.placement === DEPLOYED_PLACEMENT)
        .flatMap((bundle) =>
          bundle.lazy.filter((part) => part.own).map((part): [string, string] => [bundle.file, part.file]),
        ),
    ];
    const samples = new Map<string, Timing[]>(measured.map(([file, then]) => [key(file, then), []]));
    for (let round = 0; round < rounds; round++) {
      for (const [file, then] of measured) samples.get(key(file, then))!.push(timeImport(file, then));
    }
    const medianOf = (file: string, field: keyof Timing, then?: string) =>
      median(samples.get(key(file, then))!.map((timing) => timing[field]));
    const emptyStart = medianOf(emptyModule, 'startToImported');

    const columns: Column[] = [
      { header: 'function', align: 'left' },
      { header: 'AWS SDK', align: 'left' },
      { header: 'cold start loads', align: 'right' },
      { header: 'gzip', align: 'right' },
      { header: 'source maps', align: 'right' },
      { header: 'loaded later', align: 'right' },
      { header: 'import()', align: 'right' },
      { header: 'start → imported', align: 'right' },
      { header: 'import() CPU', align: 'right' },
      { header: 'CPU vs SDK alone', align: 'right' },
      { header: `≤ ${MAX_BUNDLE_BYTES / 1024} KB`, align: 'left' },
      { header: 'CPU goal', align: 'left' },
    ];
    /** The floor of a placement: the DynamoDB clients alone, bundled the same way. */
    const floorOf = (placement: AwsSdkPlacement) =>
      bundles.find((bundle) => bundle.fn === FLOOR && bundle.placement === placement)!;
    const vsSdk = (bundle: Bundle) =>
      medianOf(bundle.file, 'importCpu') / medianOf(floorOf(bundle.placement).file, 'importCpu');
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
    const goal = (bundle: Bundle) => {
      if (bundle.fn === FLOOR) return '(floor)';
      const max = MAX_IMPORT_VS_SDK[bundle.fn];
      return `≤ ${max.toFixed(2)}× ${verdict(vsSdk(bundle) <= max)}`;
    };
    const rows = [
      [
        '(empty module)',
        '',
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
        const reference = bundle.fn === FLOOR;
        return [
          bundle.fn,
          `${bundle.placement}${bundle.placement === DEPLOYED_PLACEMENT ? ' (deployed)' : ' (SDK not counted)'}`,
          kb(bundle.bytes),
          kb(bundle.gzipBytes),
          kb(bundle.mapBytes),
          kb(bundle.laterBytes),
          formatMs(medianOf(bundle.file, 'importOnly')),
          formatMs(medianOf(bundle.file, 'startToImported')),
          formatMs(medianOf(bundle.file, 'importCpu')),
          formatRatio(vsSdk(bundle)),
          reference ? '(floor)' : verdict(bundle.bytes <= MAX_BUNDLE_BYTES),
          goal(bundle),
        ];
      }),
    ];
    console.log(
      `Lambda bundles as the stack builds them (esbuild ESM, code split, minified${values.tracing ? ', tracing on' : ''}), Node ${process.version}, ` +
        `median of ${rounds} fresh processes each, source maps read only when a stack is logged; ` +
        `load average ${loadBefore} before the imports, ${loadAverage()} after\n`,
    );
    console.log(renderTable(columns, rows));
    console.log(
      '\n"cold start loads": the entry index.mjs and the chunks it imports statically; "loaded later": the chunks ' +
        'reached only through import(), read at the first request that needs them (or never). "start → imported": ' +
        'process start until import() resolved (what a cold start spends before the first request, network ' +
        "aside). With the SDK external, the SDK is loaded from node_modules as Lambda loads the runtime's copy, " +
        'so its load time is counted and its size is not. "AWS SDK alone" only builds the DynamoDB clients both ' +
        'functions need: the floor of any function that reads the table.',
    );

    const deployed = bundles.filter(
      (bundle) => bundle.placement === DEPLOYED_PLACEMENT && bundle.fn !== FLOOR,
    );
    const floor = floorOf(DEPLOYED_PLACEMENT);
    const floorCpu = medianOf(floor.file, 'importCpu');
    const lazyRows = deployed.flatMap((bundle) =>
      bundle.lazy.map((part) => [
        bundle.fn,
        part.name,
        kb(part.bytes),
        part.own ? formatMs(medianOf(bundle.file, 'importOnly', part.file)) : '',
        part.own ? formatMs(medianOf(bundle.file, 'importCpu', part.file)) : '',
        part.own ? formatRatio(medianOf(bundle.file, 'importCpu', part.file) / floorCpu) : '',
        part.own ? '' : "a dependency's import(), for what these functions do not use: not measured",
      ]),
    );
    console.log(
      "\nLoaded later, deployed bundles: each lazily loaded part's import() in a process that has just imported " +
        'the entry, what the first request that needs it pays on top of the cold start (medians):\n',
    );
    console.log(
      renderTable(
        [
          { header: 'function', align: 'left' },
          { header: 'part', align: 'left' },
          { header: 'size', align: 'right' },
          { header: 'import()', align: 'right' },
          { header: 'import() CPU', align: 'right' },
          { header: 'CPU vs SDK alone', align: 'right' },
          { header: 'note', align: 'left' },
        ],
        lazyRows,
      ),
    );

    console.log(
      "\nCold-start goal: the CPU time of import() of each deployed bundle's entry ≤ its goal × that of the AWS SDK's DynamoDB clients alone.",
    );
    for (const bundle of deployed) {
      const ratio = vsSdk(bundle);
      const max = MAX_IMPORT_VS_SDK[bundle.fn as FunctionName];
      const own = bundle.lazy.filter((part) => part.own);
      const firstRequest = own
        .map((part) => `${part.name} +${formatMs(medianOf(bundle.file, 'importCpu', part.file))}`)
        .join(', ');
      console.log(
        `  ${bundle.fn}: ${formatMs(medianOf(bundle.file, 'importCpu'))} vs ${formatMs(floorCpu)} CPU ` +
          `(import() wall time ${formatMs(medianOf(bundle.file, 'importOnly'))} vs ${formatMs(medianOf(floor.file, 'importOnly'))}) ` +
          `→ ${ratio.toFixed(3)}× ≤ ${max.toFixed(2)}×: ${verdict(ratio <= max)}; ` +
          `${kb(bundle.bytes)} at cold start ≤ ${kb(MAX_BUNDLE_BYTES)}: ${verdict(bundle.bytes <= MAX_BUNDLE_BYTES)}` +
          (firstRequest === '' ? '' : `; first request of a lazy part: ${firstRequest} CPU`) +
          (ratio <= max ? '' : ` — why: ${MISS_REASON[bundle.fn as FunctionName]}`),
      );
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

main();
