import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { cdkJsonContext } from '../../infra/project';
import { ServiceStack } from '../../infra/service-stack';
import { readDeploySettings } from '../../infra/settings';

/** The feature flags and settings `cdk deploy` uses, from cdk.json, so tests assert what deploys. */
const CDK_JSON_CONTEXT = cdkJsonContext();

export interface SynthesizedStack {
  app: App;
  stack: ServiceStack;
  template: Template;
}

/**
 * One stack, synthesized the fast way: no bundling (the bundle benchmark and `npm run synth`
 * build real bundles) and no CloudFormation schema validation. `context` is what a deployer
 * passes with `-c`; `withNag` adds the AWS Solutions checks the app runs.
 */
export function synthesizeStack(
  context: Record<string, string> = {},
  options: { withNag?: boolean; outdir?: string } = {},
): SynthesizedStack {
  const { app, stack } = buildStack(context, options);
  return { app, stack, template: Template.fromStack(stack) };
}

/** The app and stack of `synthesizeStack`, not synthesized yet. */
export function buildStack(
  context: Record<string, string> = {},
  options: { withNag?: boolean; outdir?: string } = {},
): Omit<SynthesizedStack, 'template'> {
  const app = new App({
    builtinCloudFormationValidation: false,
    ...(options.outdir === undefined ? {} : { outdir: options.outdir }),
    context: { ...CDK_JSON_CONTEXT, ...context, 'aws:cdk:bundling-stacks': [] },
  });
  const settings = readDeploySettings((key) => app.node.tryGetContext(key));
  const stack = new ServiceStack(app, 'Service', { settings });
  if (options.withNag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

/** A synthesized template's JSON, read by path in assertions. */
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON has no static type; assertions check its shape.
export type CfnJson = any;

/** The template's resources by logical id. */
export function resourcesOf(template: Template): Record<string, CfnJson> {
  return template.toJSON().Resources as Record<string, CfnJson>;
}
