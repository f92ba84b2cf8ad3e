/**
 * One synthesized template per context variant that changes the stack's shape: a production
 * stage, a dev stage beside it, tracing, a custom domain (with and without its Route 53 zone)
 * and an alarm address. Focused checks on what each variant adds or changes.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { metricNamespaceOf } from '../../infra/constructs/service-alarms';
import { PRODUCTION_STAGE } from '../../infra/settings';
import { type CfnJson, resourcesOf, synthesizeStack } from './synth';

const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012';
const ZONE = 'Z0123456789ABCDEFGHIJ';

const functionsOf = (resources: Record<string, CfnJson>) =>
  Object.entries(resources).filter(
    ([id, resource]) => resource.Type === 'AWS::Lambda::Function' && /^(Engine|Connect)Function/.test(id),
  );

describe('stages', () => {
  const prod = synthesizeStack({ stage: PRODUCTION_STAGE });
  const dev = synthesizeStack({ stage: 'dev' });
  const unstaged = synthesizeStack();

  it('protects the production stage from deletion, and no other', () => {
    expect(prod.stack.terminationProtection).toBe(true);
    expect(dev.stack.terminationProtection).toBe(false);
    expect(unstaged.stack.terminationProtection).toBe(false);
  });

  // A dev stage's load test in the same account must not move prod's metrics or fire its alarms.
  it.each([
    ['prod', prod],
    ['dev', dev],
    [undefined, unstaged],
  ] as const)(
    'writes and watches the custom metrics of stage %s in its own namespace',
    (stage, { template }) => {
      const namespace = metricNamespaceOf(stage);
      const filters = Object.values(template.findResources('AWS::Logs::MetricFilter'));
      expect(filters.length).toBeGreaterThan(0);
      for (const filter of filters) {
        expect(filter.Properties.MetricTransformations[0].MetricNamespace).toBe(namespace);
      }
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: namespace,
        MetricName: 'ServerFaults',
      });
      template.hasOutput('MetricNamespace', { Value: namespace });
    },
  );

  it('gives each stage a namespace of its own', () => {
    expect(
      new Set([metricNamespaceOf('prod'), metricNamespaceOf('dev'), metricNamespaceOf(undefined)]).size,
    ).toBe(3);
  });

  it('tags every function with the project and the stage', () => {
    for (const [, fn] of functionsOf(resourcesOf(dev.template))) {
      expect(fn.Properties.Tags).toEqual(
        expect.arrayContaining([
          { Key: 'project', Value: 'system-behavior-engine' },
          { Key: 'stage', Value: 'dev' },
        ]),
      );
    }
    unstaged.template.hasResourceProperties('AWS::S3::Bucket', {
      Tags: Match.arrayWith([{ Key: 'stage', Value: 'default' }]),
    });
  });
});

describe('tracing', () => {
  const traced = synthesizeStack({ tracing: 'true' });
  const resources = resourcesOf(traced.template);

  it('turns on X-Ray active tracing and the Powertools tracer in both functions', () => {
    const functions = functionsOf(resources);
    expect(functions).toHaveLength(2);
    for (const [, fn] of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('true');
    }
  });

  it('lets each function send its segments to X-Ray', () => {
    for (const role of ['EngineRole', 'ConnectRole']) {
      traced.template.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [{ Ref: Match.stringLikeRegexp(`^${role}`) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
              Resource: '*',
            }),
          ]),
        },
      });
    }
  });

  it('is off by default', () => {
    for (const [, fn] of functionsOf(resourcesOf(synthesizeStack().template))) {
      expect(fn.Properties.TracingConfig).toBeUndefined();
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('false');
    }
  });
});

describe('a custom domain', () => {
  const withDomain = synthesizeStack({ domainName: 'sbe.example.com', certificateArn: CERTIFICATE });
  const withZone = synthesizeStack({
    domainName: 'sbe.example.com',
    certificateArn: CERTIFICATE,
    hostedZoneId: ZONE,
  });

  // One name for the page and the API: the distribution already serves /api/* from API Gateway.
  it('puts the name and its certificate on the distribution, with TLS 1.2 at least', () => {
    withDomain.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['sbe.example.com'],
        ViewerCertificate: {
          AcmCertificateArn: CERTIFICATE,
          MinimumProtocolVersion: 'TLSv1.2_2021',
          SslSupportMethod: 'sni-only',
        },
      }),
    });
    withDomain.template.hasOutput('ExplorerUrl', { Value: 'https://sbe.example.com/' });
  });

  it('adds no DNS record without a hosted zone', () => {
    withDomain.template.resourceCountIs('AWS::Route53::RecordSet', 0);
  });

  it('points the name at the distribution, IPv4 and IPv6, when the zone is given', () => {
    for (const type of ['A', 'AAAA']) {
      withZone.template.hasResourceProperties('AWS::Route53::RecordSet', {
        Name: 'sbe.example.com.',
        Type: type,
        HostedZoneId: ZONE,
        AliasTarget: {
          DNSName: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ExplorerDistribution'), 'DomainName'] },
        },
      });
    }
  });

  it('keeps CloudFront’s own name without one', () => {
    const distribution = Object.values(
      synthesizeStack().template.findResources('AWS::CloudFront::Distribution'),
    )[0];
    expect(distribution!.Properties.DistributionConfig.Aliases).toBeUndefined();
  });
});

describe('alarm notifications', () => {
  it('subscribes the alarm address to the stack’s own topic', () => {
    const { template } = synthesizeStack({ alarmEmail: 'ops@example.com' });
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^AlarmsTopic') },
    });
  });

  it('uses a given topic instead of creating one, and can subscribe the address to it', () => {
    const topic = 'arn:aws:sns:eu-west-1:123456789012:ops';
    const { template } = synthesizeStack({ alarmTopicArn: topic, alarmEmail: 'ops@example.com' });
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: topic,
      Endpoint: 'ops@example.com',
    });
    template.allResourcesProperties('AWS::CloudWatch::Alarm', { AlarmActions: [topic], OKActions: [topic] });
  });

  // Only CloudWatch publishes, and only over TLS.
  it('makes its own topic refuse publishing without TLS', () => {
    synthesizeStack().template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});
