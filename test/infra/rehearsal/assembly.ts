/**
 * The cloud assembly `cdk deploy` would upload, made the way `npm run synth` makes it (the CDK
 * CLI running infra/app.ts, esbuild bundling every function), and what the rehearsal needs to
 * know about each function in it: its bundle folder, handler, runtime, size and environment.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FUNCTION_SIZING } from '../../../infra/functions';
import { constructIdOf } from '../../../infra/names';
import { PROJECT_ROOT } from '../../../infra/project';
import { FUNCTIONS, type FunctionName } from '../../../lib/http/routes';

/** A value of the template: a string, or an intrinsic such as `{ Ref: … }` that only CloudFormation resolves. */
export type TemplateValue = string | Record<string, unknown>;

export interface SynthesizedFunction {
  name: FunctionName;
  assetDir: string;
  handler: string;
  runtime: string;
  timeoutSeconds: number;
  memoryMb: number;
  environment: Record<string, TemplateValue>;
}

/** Synthesizes into `outdir` with the CDK CLI, exactly as `npm run synth` does (plus `--output`). */
export async function synthesizeAssembly(outdir: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      join(PROJECT_ROOT, 'node_modules/aws-cdk/bin/cdk'),
      'synth',
      '--quiet',
      '--no-notices',
      '--no-lookups',
      '--output',
      outdir,
    ],
    {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        AWS_EC2_METADATA_DISABLED: 'true',
        CDK_DISABLE_CLI_TELEMETRY: 'true',
        CDK_DISABLE_VERSION_CHECK: 'true',
      },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

interface LambdaResource {
  Type: string;
  Properties: {
    Handler: string;
    Runtime: string;
    Timeout: number;
    MemorySize: number;
    Environment?: { Variables?: Record<string, TemplateValue> };
  };
  Metadata?: Record<string, unknown>;
}

/** Each function of the route table as the assembly in `outdir` deploys it. */
export function functionsOf(outdir: string): Record<FunctionName, SynthesizedFunction> {
  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const stacks = Object.values(manifest.artifacts).filter(
    (artifact) => artifact.type === 'aws:cloudformation:stack',
  );
  if (stacks.length !== 1) throw new Error(`expected one stack in the assembly, found ${stacks.length}`);
  const template = JSON.parse(readFileSync(join(outdir, stacks[0]!.properties!.templateFile!), 'utf8')) as {
    Resources: Record<string, LambdaResource>;
  };
  const lambdas = Object.values(template.Resources).filter(
    (resource) => resource.Type === 'AWS::Lambda::Function',
  );
  const found = {} as Record<FunctionName, SynthesizedFunction>;
  for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
    const resource = lambdas.find((candidate) =>
      String(candidate.Metadata?.['aws:cdk:path'] ?? '').endsWith(
        `/${constructIdOf(name)}/Function/Resource`,
      ),
    );
    if (resource === undefined) throw new Error(`the assembly has no function ${name}`);
    found[name] = {
      name,
      assetDir: join(outdir, String(resource.Metadata?.['aws:asset:path'])),
      handler: resource.Properties.Handler,
      runtime: resource.Properties.Runtime,
      timeoutSeconds: resource.Properties.Timeout,
      memoryMb: resource.Properties.MemorySize,
      environment: resource.Properties.Environment?.Variables ?? {},
    };
    if (found[name].memoryMb !== FUNCTION_SIZING[name].memoryMb) {
      throw new Error(`function ${name}: the template's memory differs from infra/functions.ts`);
    }
  }
  return found;
}
