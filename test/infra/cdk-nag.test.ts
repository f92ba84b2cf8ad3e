/**
 * cdk-nag's AWS Solutions rules, as the app runs them on every synth: zero findings left
 * unacknowledged, and every acknowledgement gives its reason.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildStack } from './synth';

const outdir = mkdtempSync(join(tmpdir(), 'sbe-cdk-nag-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const { app } = buildStack({}, { withNag: true, outdir });

/** Synthesizes with the checks on; returns the unacknowledged findings (the synth throws on any). */
function findings(): string[] {
  try {
    app.synth();
    return [];
  } catch (error) {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
    const found = report.pluginReports.flatMap(
      (plugin: {
        violations: Array<{ ruleName: string; violatingConstructs: Array<{ constructPath: string }> }>;
      }) =>
        plugin.violations.flatMap((violation) =>
          violation.violatingConstructs.map(
            (construct) => `${violation.ruleName} at ${construct.constructPath}`,
          ),
        ),
    );
    return found.length > 0 ? found : [String(error)];
  }
}

/** Every acknowledgement in the construct tree: rule id, where, and the reason given. */
function acknowledgements(): Array<{ rule: string; path: string; reason: string }> {
  return app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({
          rule,
          path: construct.node.path,
          reason,
        })),
      ),
  );
}

describe('cdk-nag AwsSolutionsChecks', () => {
  it('leaves no finding unacknowledged', () => {
    expect(findings()).toEqual([]);
  });

  it('has a reason of substance on every acknowledgement', () => {
    const all = acknowledgements();
    expect(all.length).toBeGreaterThan(0);
    for (const { reason } of all) expect(reason.length).toBeGreaterThan(40);
  });

  // What is acknowledged, so a new one is a reviewed change: per-route auth (done by the functions)
  // and the Cognito options the issue asked for (optional MFA, threat protection off by default).
  it('acknowledges only the gateway authorizer rule, the Cognito rules for optional MFA and the Lite plan, and the explorer distribution and bucket rules', () => {
    const outsideHandler = acknowledgements().filter((entry) => !entry.path.includes('CDKBucketDeployment'));
    const rules = new Set(outsideHandler.map((entry) => entry.rule.replace(/^\w+::/, '')));
    expect([...rules].sort()).toEqual([
      'AwsSolutions-APIG4',
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR2',
      'AwsSolutions-CFR3',
      'AwsSolutions-CFR4',
      'AwsSolutions-COG2',
      'AwsSolutions-COG3',
      'AwsSolutions-COG8',
      'AwsSolutions-S1',
    ]);
  });

  // Wildcards and a managed policy are acknowledged for the CDK's deploy-time upload handler
  // only, never for a function of the service.
  it('acknowledges IAM wildcards and the runtime rule only on the CDK bucket-deployment handler', () => {
    const handlerRules = acknowledgements().filter((entry) => /AwsSolutions-(IAM4|IAM5|L1)/.test(entry.rule));
    expect(handlerRules.length).toBeGreaterThan(0);
    for (const entry of handlerRules) expect(entry.path).toMatch(/^Service\/Custom::CDKBucketDeployment/);
  });
});
