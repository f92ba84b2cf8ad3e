import { CfnOutput, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { QUOTA_ENV } from '../lib/config/quotas';
import { FUNCTIONS, type FunctionName, routeKey } from '../lib/http/routes';
import { ServiceAlarms } from './constructs/service-alarms';
import { type RouteThrottle, ServiceApi } from './constructs/service-api';
import { ServiceExplorer } from './constructs/service-explorer';
import { ServiceFunction } from './constructs/service-function';
import { ServiceTable } from './constructs/service-table';
import { ServiceUserPool } from './constructs/service-user-pool';
import type { AwsSdkPlacement } from './functions';
import { constructIdOf } from './names';
import { type DeploySettings, PRODUCTION_STAGE } from './settings';

export interface ServiceStackProps extends StackProps {
  readonly settings: DeploySettings;
  /** Where the AWS SDK comes from; the bundle benchmark builds both. Default bundled. */
  readonly awsSdk?: AwsSdkPlacement;
}

/** The whole service: table, user pool, one function per route-table function, the HTTP API, alarms. */
export class ServiceStack extends Stack {
  readonly functions: Record<FunctionName, ServiceFunction>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    const { settings, awsSdk, ...stackProps } = props;
    super(scope, id, {
      description:
        'System Behavior Engine: engine and connect functions behind an HTTP API, and the explorer page',
      // A production stage cannot be deleted by a stray `cdk destroy`: turn it off in the console first.
      terminationProtection: settings.stage === PRODUCTION_STAGE,
      ...stackProps,
    });
    // On every resource that takes tags: what it belongs to, for cost reports and clean-ups.
    Tags.of(this).add('project', 'system-behavior-engine');
    Tags.of(this).add('stage', settings.stage ?? 'default');
    // Data outlives the stack unless the stage is declared throwaway.
    const removalPolicy = settings.throwaway ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const logRetention = settings.logRetentionDays as RetentionDays;

    const { table } = new ServiceTable(this, 'Storage', {
      removalPolicy,
      deletionProtection: !settings.throwaway,
    });
    const users = new ServiceUserPool(this, 'Users', {
      removalPolicy,
      deletionProtection: !settings.throwaway,
      advancedSecurity: settings.advancedSecurity,
    });

    const environments: Record<FunctionName, Record<string, string>> = {
      engine: {
        TABLE_NAME: table.tableName,
        // The engine function serves $default, which also receives CORS preflights (see lib/http/dispatch.ts).
        ...(settings.cors === undefined ? {} : { CORS_ALLOW_ORIGINS: settings.cors.allowOrigins.join(',') }),
      },
      connect: {
        TABLE_NAME: table.tableName,
        USER_POOL_ID: users.userPool.userPoolId,
        USER_POOL_CLIENT_ID: users.client.userPoolClientId,
        // A registration keeps its compiled structure for the engine runs of the same thread;
        // deployed, engine runs happen in the engine function, so nothing here would ever read
        // it. The local server gives its main thread, where connect runs, the same setting.
        SYSTEM_CACHE_MIB: '0',
        [QUOTA_ENV.maxSystems]: String(settings.quotas.maxSystems),
        [QUOTA_ENV.maxKeys]: String(settings.quotas.maxKeys),
        [QUOTA_ENV.maxBytes]: String(settings.quotas.maxBytes),
      },
    };
    const functionNames = Object.keys(FUNCTIONS) as FunctionName[];
    this.functions = Object.fromEntries(
      functionNames.map((name) => [
        name,
        new ServiceFunction(this, constructIdOf(name), {
          name,
          table,
          environment: environments[name],
          logLevel: settings.logLevel,
          logRetention,
          removalPolicy,
          ...(awsSdk === undefined ? {} : { awsSdk }),
          tracing: settings.tracing,
          ...(settings.reservedConcurrency[name] === undefined
            ? {}
            : { reservedConcurrency: settings.reservedConcurrency[name] }),
        }),
      ]),
    ) as Record<FunctionName, ServiceFunction>;

    const api = new ServiceApi(this, 'Api', {
      functions: Object.fromEntries(
        functionNames.map((name) => [name, this.functions[name].function]),
      ) as Record<FunctionName, ServiceFunction['function']>,
      cors: settings.cors,
      throttle: { rateLimit: settings.throttleRateLimit, burstLimit: settings.throttleBurstLimit },
      routeThrottles: costlyRouteThrottles(settings),
      logRetention,
      removalPolicy,
    });

    const explorer = new ServiceExplorer(this, 'Explorer', {
      api: api.api,
      removalPolicy,
      logRetention,
      domain: settings.domain,
    });

    const alarms = new ServiceAlarms(this, 'Alarms', {
      functions: this.functions,
      apiStage: api.stage,
      accessLogs: api.accessLogs,
      table,
      stage: settings.stage,
      alarmTopicArn: settings.alarmTopicArn,
      alarmEmail: settings.alarmEmail,
    });

    new CfnOutput(this, 'ApiUrl', {
      value: api.url,
      description: 'Base URL of the API (POST {ApiUrl}api/engine)',
    });
    new CfnOutput(this, 'ExplorerUrl', {
      value: `https://${settings.domain?.domainName ?? explorer.distribution.distributionDomainName}/`,
      description: 'The explorer page; the API is also served here under /api/*',
    });
    new CfnOutput(this, 'ExplorerBucketName', {
      value: explorer.bucket.bucketName,
      description: "The explorer page's files (retained unless throwaway)",
    });
    new CfnOutput(this, 'ExplorerDistributionId', {
      value: explorer.distribution.distributionId,
      description: 'The CloudFront distribution of the page and /api/*',
    });
    new CfnOutput(this, 'ExplorerDistributionDomainName', {
      value: explorer.distribution.distributionDomainName,
      description: "CloudFront's own name for the distribution (the target of a custom domain's DNS record)",
    });
    for (const name of functionNames) {
      const prefix = constructIdOf(name);
      new CfnOutput(this, `${prefix}FunctionName`, { value: this.functions[name].function.functionName });
      new CfnOutput(this, `${prefix}LogGroupName`, { value: this.functions[name].logGroup.logGroupName });
    }
    new CfnOutput(this, 'AccessLogGroupName', { value: api.accessLogs.logGroupName });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: alarms.topic.topicArn,
      description: 'Every alarm notifies this topic; subscribe to it (or deploy with -c alarmEmail=…)',
    });
    new CfnOutput(this, 'DashboardName', { value: alarms.dashboard.dashboardName });
    new CfnOutput(this, 'MetricNamespace', { value: alarms.namespace });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'UserPoolId', { value: users.userPool.userPoolId });
    new CfnOutput(this, 'UserPoolClientId', { value: users.client.userPoolClientId });
  }
}

/**
 * The routes throttled on their own, below the stage's per-route rate: each request may hold a
 * function for seconds (the engine a full vCPU for up to 15 s; connect, registration and refresh
 * fetch, read and store up to 64 MiB in up to 20 s).
 */
function costlyRouteThrottles(settings: DeploySettings): Record<string, RouteThrottle> {
  const engine = {
    rateLimit: settings.engineThrottleRateLimit,
    burstLimit: settings.engineThrottleBurstLimit,
  };
  const connect = {
    rateLimit: settings.connectThrottleRateLimit,
    burstLimit: settings.connectThrottleBurstLimit,
  };
  return {
    [routeKey({ method: 'POST', path: '/api/engine' })]: engine,
    [routeKey({ method: 'POST', path: '/api/connect' })]: connect,
    [routeKey({ method: 'POST', path: '/api/systems' })]: connect,
    [routeKey({ method: 'POST', path: '/api/systems/{id}/refresh' })]: connect,
  };
}
