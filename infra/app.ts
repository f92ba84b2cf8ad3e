/**
 * The CDK app (`cdk.json` runs it with tsx): one stack per stage, checked by cdk-nag's AWS
 * Solutions rules on every synth. Settings come from context; see docs/deploy.md.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack } from './service-stack';
import { type DeploySettings, DeploySettingsError, readDeploySettings, stackNameOf } from './settings';

const app = new App();
let settings: DeploySettings;
try {
  settings = readDeploySettings((key) => app.node.tryGetContext(key));
} catch (error) {
  if (!(error instanceof DeploySettingsError)) throw error;
  // A setting the deployer mistyped: the message names it; a stack trace would only bury it.
  console.error(`Invalid setting: ${error.message} (see docs/deploy.md#settings)`);
  process.exit(1);
}
// Environment-agnostic: no account or region in the template, so `npm run synth` needs no
// credentials and gives the same template everywhere; `cdk deploy` deploys it to the account
// and region of the credentials in use (AWS_PROFILE, AWS_REGION).
new ServiceStack(app, stackNameOf(settings), { settings });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
