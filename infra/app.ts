/**
 * The CDK app (`cdk.json` runs it with tsx): one stack per stage, checked by cdk-nag's AWS
 * Solutions rules on every synth. Settings come from context; see docs/deploy.md.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack } from './service-stack';
import { readDeploySettings, stackNameOf } from './settings';

const app = new App();
const settings = readDeploySettings((key) => app.node.tryGetContext(key));
new ServiceStack(app, stackNameOf(settings), {
  settings,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
