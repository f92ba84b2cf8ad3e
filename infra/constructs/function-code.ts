/**
 * A function's code asset: its entry bundled by esbuild's JS API at synth, code split, into the
 * asset folder the CDK uploads.
 *
 * Why not `NodejsFunction`: it always runs esbuild with `--outfile`, and code splitting needs an
 * output folder (esbuild: 'Must use "outdir" when code splitting is enabled', and 'Cannot use
 * both "outfile" and "outdir"' when `esbuildArgs` adds one). Only a second, hand-written esbuild
 * run in a `commandHooks.afterBundling` shell command could replace its output. Without
 * splitting, a function cannot leave what only some routes need out of its cold start: an
 * `import()` inside one file only wraps the modules it reaches in lazy initializers, in the same
 * file, parsed at load (docs/deploy.md, "Bundles and cold start"). So the asset is bundled here,
 * as `NodejsFunction` bundles locally: through the
 * CDK's asset staging with a local bundler (no Docker), which skips it where the CDK skips
 * bundling (`aws:cdk:bundling-stacks`, as the fast infrastructure tests set), and hashed by its
 * output, so an unchanged bundle is not uploaded again.
 */
import { copyFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, buildSync } from 'esbuild';
import {
  type AwsSdkPlacement,
  FUNCTION_ARCHITECTURE,
  FUNCTION_RUNTIME,
  functionBundling,
} from '../functions';
import { PROJECT_ROOT } from '../project';

/**
 * The bundle's entry file, `index.mjs`, and the export Lambda calls.
 * @internal test/infra/bundling.test.ts checks the built function's handler is this.
 */
export const FUNCTION_HANDLER = 'index.handler';

/**
 * Builds one function's folder: esbuild's output (`index.mjs`, its chunks, their maps) and the
 * project files the function reads at run time. Its fields are what the CDK hashes to tell one
 * bundling from another (the methods are not), so they name everything the output depends on
 * besides the sources.
 */
class FunctionBundler implements ILocalBundling {
  constructor(
    readonly entry: string,
    readonly options: BuildOptions,
    readonly files: readonly string[],
  ) {}

  tryBundle(outputDir: string): boolean {
    buildSync({
      ...this.options,
      entryPoints: { index: this.entry },
      outdir: outputDir,
      // Relative aliases (infra/functions.ts) resolve from the project root.
      absWorkingDir: PROJECT_ROOT,
    });
    for (const file of this.files) copyFileSync(join(PROJECT_ROOT, file), join(outputDir, basename(file)));
    return true;
  }
}

/**
 * The code of a function with entry `entry` (a path inside the project), bundled with
 * `functionBundling`'s options, and `files` (paths relative to the project root) copied beside
 * the bundle.
 */
function functionCode(
  entry: string,
  awsSdk?: AwsSdkPlacement,
  tracing = false,
  files: readonly string[] = [],
): Code {
  return Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local bundler always builds (or throws esbuild's error).
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs24.x'),
      local: new FunctionBundler(entry, functionBundling(awsSdk, tracing), files),
    },
  });
}

/**
 * What every function of this project is built with: its entry bundled from the project root
 * with the options of infra/functions.ts, on the runtime and architecture there. The stack and
 * the bundle benchmark both build through this, so they build the same way.
 * @internal bench/bundle.ts and test/infra/bundling.test.ts bundle a fixture with these props.
 */
export function bundledFunctionProps(
  entry: string,
  awsSdk?: AwsSdkPlacement,
  tracing = false,
  files: readonly string[] = [],
) {
  return {
    code: functionCode(entry, awsSdk, tracing, files),
    handler: FUNCTION_HANDLER,
    runtime: FUNCTION_RUNTIME,
    architecture: FUNCTION_ARCHITECTURE,
  };
}
