/**
 * cdk-nag's AWS Solutions rules, as the app runs them on every synth: zero findings left
 * unacknowledged, and every acknowledgement gives its reason.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, Validations } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildStack } from './synth';

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012';
/** The defaults, and every optional part switched on (a custom domain, tracing, a production stage). */
const VARIANTS: Array<[name: string, context: Record<string, string>]> = [
  ['the defaults', {}],
  [
    'everything on',
    {
      stage: 'prod',
      tracing: 'true',
      alarmEmail: 'ops@example.com',
      domainName: 'sbe.example.com',
      certificateArn: CERTIFICATE,
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
    },
  ],
  ['an alarm topic of the deployer’s', { alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops' }],
];

/** Synthesizes with the checks on; returns the unacknowledged findings (the synth throws on any). */
function findings(app: App, outdir: string): string[] {
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
function acknowledgements(app: App): Array<{ rule: string; path: string; reason: string }> {
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

describe.each(VARIANTS)('cdk-nag AwsSolutionsChecks, %s', (_name, context) => {
  const outdir = mkdtempSync(join(tmpdir(), 'sbe-cdk-nag-'));
  outdirs.push(outdir);
  const { app } = buildStack(context, { withNag: true, outdir });

  it('leaves no finding unacknowledged', () => {
    expect(findings(app, outdir)).toEqual([]);
  });

  it('has a reason of substance on every acknowledgement', () => {
    const all = acknowledgements(app);
    expect(all.length).toBeGreaterThan(0);
    for (const { reason } of all) expect(reason.length).toBeGreaterThan(40);
  });

  // What is acknowledged, so a new one is a reviewed change: per-route auth (done by the functions),
  // the Cognito options the issue asked for (optional MFA, threat protection off by default), the
  // explorer's, and the alarm topic's encryption (CloudWatch cannot use the AWS managed key).
  it('acknowledges only the reviewed rules', () => {
    const outsideHandler = acknowledgements(app).filter(
      (entry) => !entry.path.includes('CDKBucketDeployment') && !/AwsSolutions-IAM5/.test(entry.rule),
    );
    const rules = new Set(outsideHandler.map((entry) => entry.rule.replace(/^\w+::/, '')));
    const expected = [
      'AwsSolutions-APIG4',
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR2',
      'AwsSolutions-CFR3',
      // The default certificate only: a custom domain brings its own, with TLS 1.2 at least.
      ...(context.domainName === undefined ? ['AwsSolutions-CFR4'] : []),
      'AwsSolutions-COG2',
      'AwsSolutions-COG3',
      'AwsSolutions-COG8',
      'AwsSolutions-S1',
      // The stack's own topic only; a deployer's topic is theirs to encrypt.
      ...(context.alarmTopicArn === undefined ? ['AwsSolutions-SNS2'] : []),
    ];
    expect([...rules].sort()).toEqual(expected.sort());
  });

  // Wildcards and a managed policy are acknowledged for the CDK's deploy-time upload handler,
  // and for a function only X-Ray's resource "*" when tracing is on.
  it('acknowledges IAM wildcards only on the CDK bucket-deployment handler, and X-Ray’s when tracing', () => {
    const wildcardRules = acknowledgements(app).filter((entry) =>
      /AwsSolutions-(IAM4|IAM5|L1)/.test(entry.rule),
    );
    expect(wildcardRules.length).toBeGreaterThan(0);
    for (const entry of wildcardRules) {
      if (entry.path.startsWith('Service/Custom::CDKBucketDeployment')) continue;
      expect(context.tracing).toBe('true');
      expect(entry.path).toMatch(/^Service\/(Engine|Connect)\/Role$/);
      expect(entry.rule.replace(/^\w+::/, '')).toBe('AwsSolutions-IAM5[Resource::*]');
    }
  });
});
