/**
 * The stack `cdk deploy` creates with no context given: what each resource must be, asserted
 * on one synthesized template.
 */
import { Match } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { tableConditions } from '../../infra/constructs/service-function';
import { FUNCTION_SIZING, TABLE_ACCESS } from '../../infra/functions';
import {
  DEFAULT_ROUTE_FUNCTION,
  FUNCTIONS,
  type FunctionName,
  routeKeys,
  routes,
} from '../../lib/http/routes';
import { type CfnJson, resourcesOf, synthesizeStack } from './synth';

const { stack, template } = synthesizeStack();
const resources = resourcesOf(template);
const FUNCTION_NAMES = Object.keys(FUNCTIONS) as FunctionName[];

function logicalIdOf(name: FunctionName): string {
  return stack.getLogicalId(stack.functions[name].function.node.defaultChild as CfnFunction);
}

function resourcesOfType(type: string) {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** The function a route's integration invokes, by logical id. */
function functionBehind(routeKey: string): string | undefined {
  const route = resourcesOfType('AWS::ApiGatewayV2::Route').find(
    ([, r]) => r.Properties.RouteKey === routeKey,
  );
  const target = route?.[1].Properties.Target['Fn::Join'][1][1].Ref as string | undefined;
  const integration = target === undefined ? undefined : resources[target];
  return integration?.Properties.IntegrationUri['Fn::GetAtt'][0];
}

function policyStatementsOf(name: FunctionName): Array<{ Action: string | string[]; [k: string]: unknown }> {
  const roleId = resources[logicalIdOf(name)]!.Properties.Role['Fn::GetAtt'][0];
  return resourcesOfType('AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
}

describe('the HTTP API', () => {
  // Every route of the table, HEAD beside each GET, plus $default for everything else.
  it('has exactly the route table’s routes and $default', () => {
    const keys = resourcesOfType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(keys.sort()).toEqual([...routeKeys(), '$default'].sort());
  });

  it.each(routes.flatMap((route) => routeKeys([route]).map((key) => [key, route.function] as const)))(
    '%s is integrated with the %s function',
    (key, fn) => {
      expect(functionBehind(key)).toBe(logicalIdOf(fn));
    },
  );

  it('sends $default (unknown paths and methods) to the function that answers JSON 404 and 405', () => {
    expect(functionBehind('$default')).toBe(logicalIdOf(DEFAULT_ROUTE_FUNCTION));
  });

  // Auth is the functions' own, so the JSON error contract holds: no gateway authorizer on any route.
  it('puts no authorizer in front of any route', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    for (const [, route] of resourcesOfType('AWS::ApiGatewayV2::Route')) {
      expect(route.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
    }
  });

  it('uses payload format 2.0, which the functions read', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Integration', FUNCTION_NAMES.length);
    template.allResourcesProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  it('is named after the stack, so each stage’s API is told apart in the console', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { Name: 'Service', ProtocolType: 'HTTP' });
  });

  it('has no CORS configuration unless origins are given', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { CorsConfiguration: Match.absent() });
  });

  it('throttles the default stage at 100 requests per second with bursts of 200', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
  });

  // Access logs carry gateway facts only; no header, so never a key or token.
  it('writes JSON access logs to a log group kept 30 days', () => {
    const [[stageId, stage]] = resourcesOfType('AWS::ApiGatewayV2::Stage') as [[string, CfnJson]];
    expect(stageId).toBeDefined();
    const logGroupId = stage.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'][0];
    expect(resources[logGroupId]?.Properties.RetentionInDays).toBe(30);
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format);
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
    expect(stage.Properties.AccessLogSettings.Format).not.toMatch(/authorization|header/i);
  });
});

describe('the functions', () => {
  // Beside them, only the CDK's own deploy-time handler that uploads the explorer page.
  it('is one function per entry of the route table’s FUNCTIONS', () => {
    const others = resourcesOfType('AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => !FUNCTION_NAMES.some((name) => id === logicalIdOf(name)));
    expect(others).toHaveLength(1);
    expect(others[0]).toMatch(/^CustomCDKBucketDeployment/);
    for (const name of FUNCTION_NAMES) expect(resources[logicalIdOf(name)]).toBeDefined();
  });

  // Reserving concurrency is opt-in (engineReservedConcurrency, connectReservedConcurrency).
  it.each(FUNCTION_NAMES)('%s reserves no concurrency by default', (name) => {
    expect(resources[logicalIdOf(name)]!.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it.each(FUNCTION_NAMES)(
    '%s runs on Node.js 24, arm64, ESM bundle, sized as FUNCTION_SIZING says',
    (name) => {
      const fn = resources[logicalIdOf(name)]!.Properties;
      expect(fn).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: FUNCTION_SIZING[name].memoryMb,
        Timeout: FUNCTION_SIZING[name].timeout.toSeconds(),
      });
    },
  );

  it('gives the engine at least 1024 MB (docs/api.md) and both a timeout under API Gateway’s 30 s', () => {
    expect(FUNCTION_SIZING.engine.memoryMb).toBeGreaterThanOrEqual(1024);
    for (const name of FUNCTION_NAMES) expect(FUNCTION_SIZING[name].timeout.toSeconds()).toBeLessThan(30);
  });

  // No NODE_OPTIONS=--enable-source-maps: it parses the map at every cold start, where a logged
  // stack is mapped when it is logged (lib/source-mapped-stack.ts).
  it('tells the engine function its table, service name and log level, nothing else', () => {
    expect(resources[logicalIdOf('engine')]!.Properties.Environment.Variables).toEqual({
      POWERTOOLS_SERVICE_NAME: 'system-behavior-engine',
      LOG_LEVEL: 'INFO',
      POWERTOOLS_TRACE_ENABLED: 'false',
      TABLE_NAME: { Ref: stack.getLogicalId(stackTable()) },
    });
  });

  // Deployed, tokens are Cognito's: no local issuer, no allow-list that would open private hosts.
  // Engine runs happen in the engine function: a compiled-structure cache in connect would be
  // written on every registration and never read.
  it('tells the connect function the user pool and its app client, the quotas, no CONNECT_ALLOW_HOSTS, and no system cache', () => {
    const pool = resourcesOfType('AWS::Cognito::UserPool')[0]![0];
    const client = resourcesOfType('AWS::Cognito::UserPoolClient')[0]![0];
    expect(resources[logicalIdOf('connect')]!.Properties.Environment.Variables).toEqual({
      POWERTOOLS_SERVICE_NAME: 'system-behavior-engine',
      LOG_LEVEL: 'INFO',
      POWERTOOLS_TRACE_ENABLED: 'false',
      TABLE_NAME: { Ref: stack.getLogicalId(stackTable()) },
      USER_POOL_ID: { Ref: pool },
      USER_POOL_CLIENT_ID: { Ref: client },
      SYSTEM_CACHE_MIB: '0',
      MAX_SYSTEMS_PER_OWNER: '100',
      MAX_KEYS_PER_OWNER: '20',
      MAX_BYTES_PER_OWNER: '1073741824',
    });
  });

  it.each(FUNCTION_NAMES)('%s logs to a log group of its own, kept 30 days and retained', (name) => {
    const logGroupId = resources[logicalIdOf(name)]!.Properties.LoggingConfig.LogGroup.Ref;
    expect(resources[logGroupId]).toMatchObject({
      Type: 'AWS::Logs::LogGroup',
      Properties: { RetentionInDays: 30 },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

function stackTable() {
  return stack.node.findChild('Storage').node.findChild('Table').node.defaultChild as never;
}

describe('least privilege', () => {
  // One statement per TABLE_ACCESS entry, each on the table only, with its conditions
  // (test/infra/table-calls.test.ts checks TABLE_ACCESS against the calls the stores make).
  it.each(FUNCTION_NAMES)('%s has one table statement per TABLE_ACCESS entry', (name) => {
    const tableStatements = policyStatementsOf(name).filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('dynamodb:')),
    );
    expect(
      tableStatements.map((statement) => ({
        actions: [statement.Action].flat().sort(),
        conditions: statement.Condition,
        resource: statement.Resource,
      })),
    ).toEqual(
      TABLE_ACCESS[name].map((access) => ({
        actions: [...access.actions].sort(),
        conditions: tableConditions(access),
        resource: { 'Fn::GetAtt': [stack.getLogicalId(stackTable()), 'Arn'] },
      })),
    );
  });

  // Every table statement names exactly one partition prefix and requires a leading key (a
  // ForAllValues condition on a request without one would hold vacuously).
  it.each(FUNCTION_NAMES)(
    '%s reaches each partition only through statements requiring its prefix',
    (name) => {
      for (const statement of policyStatementsOf(name).filter((s) =>
        JSON.stringify(s.Action).includes('dynamodb:'),
      )) {
        const condition = statement.Condition as CfnJson;
        expect(condition['ForAllValues:StringLike']['dynamodb:LeadingKeys']).toHaveLength(1);
        expect(condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'][0]).toMatch(/^[A-Z]+#\*$/);
        expect(condition.Null).toEqual({ 'dynamodb:LeadingKeys': 'false' });
      }
    },
  );

  // The engine may stamp lastUsedAt on a key and nothing else: not status, not owner.
  it("limits the engine's key update to lastUsedAt, returning nothing", () => {
    const updates = policyStatementsOf('engine').filter((statement) =>
      [statement.Action].flat().includes('dynamodb:UpdateItem'),
    );
    expect(updates).toHaveLength(1);
    expect(updates[0]!.Action).toBe('dynamodb:UpdateItem');
    expect(updates[0]!.Condition).toMatchObject({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'lastUsedAt'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
    });
  });

  it('lets the engine read and touch API keys and read systems, nothing more', () => {
    expect(TABLE_ACCESS.engine.map(({ actions, partition }) => [actions.join(' '), partition])).toEqual([
      ['dynamodb:GetItem', 'APIKEY#'],
      ['dynamodb:UpdateItem', 'APIKEY#'],
      ['dynamodb:GetItem', 'OWNER#'],
      ['dynamodb:Query', 'SYSTEM#'],
    ]);
  });

  it.each(FUNCTION_NAMES)('%s writes only to its own log group', (name) => {
    const logGroupId = resources[logicalIdOf(name)]!.Properties.LoggingConfig.LogGroup.Ref;
    const logStatements = policyStatementsOf(name).filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('logs:')),
    );
    expect(logStatements).toEqual([
      {
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
      },
    ]);
  });

  // The CDK's bucket-deployment handler (deploy time only) is the one exception, checked in
  // cdk-nag.test.ts: its acknowledgements sit on it alone.
  it('grants no Scan, no table management, no wildcard action or resource, and no managed policy', () => {
    const isDeploymentHandler = (id: string) => id.startsWith('CustomCDKBucketDeployment');
    for (const [id, policy] of resourcesOfType('AWS::IAM::Policy')) {
      if (isDeploymentHandler(id)) continue;
      for (const statement of policy.Properties.PolicyDocument.Statement) {
        for (const action of [statement.Action].flat()) {
          expect(action).not.toMatch(/\*|dynamodb:(Scan|DeleteTable|CreateTable|UpdateTable|PartiQL)/);
        }
        expect(statement.Resource).not.toBe('*');
        expect(statement.Effect).toBe('Allow');
      }
    }
    for (const [id, role] of resourcesOfType('AWS::IAM::Role')) {
      if (isDeploymentHandler(id)) continue;
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe('the table', () => {
  it('has the key schema of lib/storage/table.ts, on-demand, with PITR and deletion protection', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      GlobalSecondaryIndexes: Match.absent(),
      Replicas: [
        Match.objectLike({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        }),
      ],
    });
  });

  // Data outlives the stack: deleting the stack leaves the table (and the users) in place.
  it('is retained when the stack is deleted or the table replaced', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('the user pool', () => {
  it('takes no self sign-up, a strong password, optional authenticator-app MFA, no threat protection', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: {
        PasswordPolicy: {
          MinimumLength: 14,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        },
      },
      MfaConfiguration: 'OPTIONAL',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      UserPoolTier: 'LITE',
      UserPoolAddOns: Match.absent(),
      DeletionProtection: 'ACTIVE',
    });
    template.hasResource('AWS::Cognito::UserPool', { DeletionPolicy: 'Retain' });
  });

  // The connect function verifies this client's access tokens; no secret, no OAuth redirects.
  it('has one app client for password sign-in that issues one-hour access tokens', () => {
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      ExplicitAuthFlows: Match.arrayWith(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH']),
      AllowedOAuthFlowsUserPoolClient: false,
      AccessTokenValidity: 60,
      TokenValidityUnits: Match.objectLike({ AccessToken: 'minutes' }),
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
    });
  });
});

describe('alarms', () => {
  it.each(FUNCTION_NAMES)(
    'watch the %s function for errors, throttles and a duration near its timeout',
    (name) => {
      const fnRef = { Ref: logicalIdOf(name) };
      const dimensions = [{ Name: 'FunctionName', Value: fnRef }];
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: dimensions,
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Throttles',
        Dimensions: dimensions,
        Threshold: 1,
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        Dimensions: dimensions,
        Statistic: 'Maximum',
        Threshold: FUNCTION_SIZING[name].timeout.toMilliseconds() * 0.8,
      });
    },
  );

  // API Gateway's 5xx count would include PAYLOAD_ERROR, a caller's mistake: faults come from the request log.
  it('count server faults from each function’s request log, in the stage’s namespace', () => {
    for (const name of FUNCTION_NAMES) {
      const logGroupId = resources[logicalIdOf(name)]!.Properties.LoggingConfig.LogGroup.Ref;
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        LogGroupName: { Ref: logGroupId },
        FilterPattern: Match.stringLikeRegexp('ENGINE_ERROR'),
        MetricTransformations: [
          { MetricNamespace: 'SystemBehaviorEngine/default', MetricName: 'ServerFaults', MetricValue: '1' },
        ],
      });
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'SystemBehaviorEngine/default',
      MetricName: 'ServerFaults',
      Threshold: 1,
    });
    // The gateway's 5xx count is only ever used less the PAYLOAD_ERRORs.
    for (const [, alarm] of resourcesOfType('AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties.Namespace).not.toBe('AWS/ApiGateway');
    }
  });

  it('are 3 per function and 7 for the service, each notifying the stack’s own topic', () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 3 * FUNCTION_NAMES.length + 7);
    const topic = { Ref: Match.stringLikeRegexp('^AlarmsTopic') };
    template.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [topic],
      OKActions: [topic],
    });
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('outputs', () => {
  it('gives the URLs, the explorer bucket and distribution, each function and log group, the alarms topic', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs).sort()).toEqual([
      'AccessLogGroupName',
      'AlarmTopicArn',
      'ApiUrl',
      'ConnectFunctionName',
      'ConnectLogGroupName',
      'DashboardName',
      'EngineFunctionName',
      'EngineLogGroupName',
      'ExplorerBucketName',
      'ExplorerDistributionDomainName',
      'ExplorerDistributionId',
      'ExplorerUrl',
      'MetricNamespace',
      'TableName',
      'UserPoolClientId',
      'UserPoolId',
    ]);
    template.hasOutput('EngineFunctionName', { Value: { Ref: logicalIdOf('engine') } });
    template.hasOutput('ExplorerBucketName', { Value: { Ref: Match.stringLikeRegexp('^ExplorerSite') } });
    template.hasOutput('TableName', { Value: { Ref: stack.getLogicalId(stackTable()) } });
  });
});
