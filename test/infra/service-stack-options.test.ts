/**
 * The stack with every deploy setting given on the command line (`-c key=value`, so strings):
 * a throwaway stage with its own throttling, retention, CORS, alarm topic and threat protection.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { resourcesOf, synthesizeStack } from './synth';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:sbe-alarms';
const { template } = synthesizeStack({
  stage: 'dev',
  throwaway: 'true',
  throttleRateLimit: '25',
  throttleBurstLimit: '50',
  engineThrottleRateLimit: '3',
  engineThrottleBurstLimit: '6',
  connectThrottleRateLimit: '2',
  connectThrottleBurstLimit: '4',
  logRetentionDays: '7',
  logLevel: 'debug',
  corsAllowOrigins: 'https://app.example.com, http://localhost:5173',
  alarmTopicArn: TOPIC,
  advancedSecurity: 'true',
  engineReservedConcurrency: '40',
  connectReservedConcurrency: '5',
  maxSystemsPerOwner: '10',
  maxKeysPerOwner: '4',
  maxBytesPerOwner: '1048576',
});
const resources = resourcesOf(template);

describe('a throwaway stage', () => {
  // Deleting the stack deletes its data: meant for test stages, never the default.
  it('deletes the table, user pool and log groups with the stack, without deletion protection', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Delete',
      Properties: { Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] },
    });
    template.hasResource('AWS::Cognito::UserPool', {
      DeletionPolicy: 'Delete',
      Properties: { DeletionProtection: 'INACTIVE' },
    });
    // The two functions', the API's access log and the explorer deployment handler's.
    const logGroups = Object.values(resources).filter((r) => r.Type === 'AWS::Logs::LogGroup');
    expect(logGroups).toHaveLength(4);
    for (const logGroup of logGroups) {
      expect(logGroup.DeletionPolicy).toBe('Delete');
      expect(logGroup.Properties.RetentionInDays).toBe(7);
    }
  });

  // Deleting the page deployment empties the explorer bucket, so the bucket can go too.
  it('empties and deletes the explorer bucket with the stack', () => {
    template.hasResourceProperties('Custom::CDKBucketDeployment', { RetainOnDelete: false });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Delete' });
  });

  it('keeps point-in-time recovery on', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [
        Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
      ],
    });
  });
});

describe('settings from context', () => {
  it('throttles the stage as asked, and the costly routes on their own', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 25, ThrottlingBurstLimit: 50 },
      RouteSettings: {
        'POST /api/engine': { ThrottlingRateLimit: 3, ThrottlingBurstLimit: 6 },
        'POST /api/connect': { ThrottlingRateLimit: 2, ThrottlingBurstLimit: 4 },
        'POST /api/systems': { ThrottlingRateLimit: 2, ThrottlingBurstLimit: 4 },
        'POST /api/systems/{id}/refresh': { ThrottlingRateLimit: 2, ThrottlingBurstLimit: 4 },
      },
    });
    // CloudFormation makes the routes first: settings for a route it has not made are refused.
    const [, stageResource] = Object.entries(resources).find(
      ([, r]) => r.Type === 'AWS::ApiGatewayV2::Stage',
    )!;
    const keys = [
      'POST /api/engine',
      'POST /api/connect',
      'POST /api/systems',
      'POST /api/systems/{id}/refresh',
    ];
    for (const key of keys) {
      const route = Object.entries(resources).find(
        ([, r]) => r.Type === 'AWS::ApiGatewayV2::Route' && r.Properties.RouteKey === key,
      )!;
      expect(stageResource.DependsOn, key).toContain(route[0]);
    }
  });

  // The quotas are the connect function's: the engine never counts anything.
  it('gives the connect function the per-owner quotas', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'System Behavior Engine: the connect function',
      Environment: {
        Variables: Match.objectLike({
          MAX_SYSTEMS_PER_OWNER: '10',
          MAX_KEYS_PER_OWNER: '4',
          MAX_BYTES_PER_OWNER: '1048576',
        }),
      },
    });
  });

  it('passes the log level to every function of the service', () => {
    const functions = Object.entries(resources).filter(
      ([id, r]) => r.Type === 'AWS::Lambda::Function' && !id.startsWith('CustomCDKBucketDeployment'),
    );
    expect(functions).toHaveLength(2);
    for (const [, fn] of functions) expect(fn.Properties.Environment.Variables.LOG_LEVEL).toBe('DEBUG');
  });

  // The same parser as the local server's CORS_ALLOW_ORIGINS, and the same headers and max age.
  it('answers CORS preflights for the listed origins, with every method the route table uses', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: ['https://app.example.com', 'http://localhost:5173'],
        AllowHeaders: ['authorization', 'content-type', 'content-encoding', 'if-match', 'if-none-match'],
        ExposeHeaders: ['retry-after', 'www-authenticate', 'allow', 'etag'],
        AllowMethods: ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST'],
        MaxAge: 600,
      },
    });
  });

  // $default (the engine function) also receives preflights, so it reads the same allow-list.
  it('tells the engine function the CORS origins', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ CORS_ALLOW_ORIGINS: 'https://app.example.com,http://localhost:5173' }),
      },
    });
  });

  it('notifies the topic when any alarm fires and when it clears', () => {
    template.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [TOPIC],
      OKActions: [TOPIC],
    });
  });

  // Threat protection needs the Plus feature plan.
  it('enforces Cognito threat protection when advancedSecurity is true', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      UserPoolTier: 'PLUS',
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
    });
  });
});

describe('reserved concurrency', () => {
  // Each function's ceiling, and its guaranteed share of the account's pool.
  it('reserves the concurrency the context gives each function', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'System Behavior Engine: the engine function',
      ReservedConcurrentExecutions: 40,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'System Behavior Engine: the connect function',
      ReservedConcurrentExecutions: 5,
    });
  });
});
