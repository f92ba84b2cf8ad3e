/** Where the project is, and what `cdk.json` tells every app built from it (the CLI's, tests', the bench's). */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: function entries in the route table are relative to it. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The `context` of cdk.json (feature flags, defaults), for apps not started by the CDK CLI.
 * @internal no deployed code calls it; test/infra/synth.ts and bench/bundle.ts build their apps with it.
 */
export function cdkJsonContext(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context as Record<string, unknown>;
}
