import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { CorsSettings } from '../../lib/http/cors';
import {
  DEFAULT_ROUTE_FUNCTION,
  type FunctionName,
  methodsOf,
  type RouteAuth,
  type RouteDefinition,
  routeKey,
  routeKeys,
  routes,
} from '../../lib/http/routes';
import { constructIdOf } from '../names';

/** A rate and a burst, as API Gateway throttles a route. */
export interface RouteThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export interface ServiceApiProps {
  readonly functions: Readonly<Record<FunctionName, IFunction>>;
  readonly cors: CorsSettings | undefined;
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * Throttles of their own for some routes, by route key (`POST /api/engine`): the costly ones,
   * each request of which may hold a function for seconds. The others take `throttle`.
   */
  readonly routeThrottles?: Readonly<Record<string, RouteThrottle>> | undefined;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** The routes to serve; the route table unless a test passes its own. */
  readonly routes?: readonly RouteDefinition[];
}

/**
 * One access log line per request, as JSON. Only gateway facts: the caller's credentials and
 * bodies are never in it (the function's own request line adds key id, mode and error code).
 */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  errorMessage: '$context.error.message',
} as const;

/**
 * Why no route has a gateway authorizer: each function authenticates its own routes, the same
 * code locally and deployed, so failures keep the JSON error contract (401 MISSING_API_KEY,
 * 403 INVALID_API_KEY, 401 INVALID_TOKEN) that API Gateway's own 401 body cannot give.
 */
const AUTH_REASONS: Readonly<Record<RouteAuth, string>> = {
  apiKey:
    'The engine function checks the Bearer API key (SHA-256 digest looked up in DynamoDB) before anything else, ' +
    'answering the contract errors 401 MISSING_API_KEY and 403 INVALID_API_KEY.',
  userToken:
    'The connect function verifies the Cognito access token (signature, issuer, client, expiry, token_use) ' +
    'with aws-jwt-verify before anything else, answering 401 MISSING_TOKEN or INVALID_TOKEN.',
  none: 'A public, read-only document (the OpenAPI description of the API).',
};

/**
 * The HTTP API: one route per route-table entry (HEAD beside every GET), each integrated with
 * the function the table names, and a `$default` route so that an unknown path or method gets
 * the same JSON 404 or 405 as the local server. Auth is the functions' own (API key or user
 * token), identical locally and deployed, so the gateway has no authorizer.
 */
export class ServiceApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const table = props.routes ?? routes;
    const integrations = new Map<FunctionName, HttpLambdaIntegration>();
    const integrationOf = (name: FunctionName): HttpLambdaIntegration => {
      let integration = integrations.get(name);
      if (integration === undefined) {
        integration = new HttpLambdaIntegration(`${constructIdOf(name)}Integration`, props.functions[name]);
        integrations.set(name, integration);
      }
      return integration;
    };

    this.api = new HttpApi(this, 'HttpApi', {
      apiName: Stack.of(this).stackName,
      description: 'System Behavior Engine',
      createDefaultStage: false,
      defaultIntegration: integrationOf(DEFAULT_ROUTE_FUNCTION),
      ...(props.cors === undefined ? {} : { corsPreflight: corsPreflightOf(props.cors, table) }),
    });
    // The routes throttled on their own: the stage's route settings name them, so they must exist first.
    const throttled: Construct[] = [];
    const routeThrottles = props.routeThrottles ?? {};
    for (const route of table) {
      const added = this.api.addRoutes({
        path: route.path,
        methods: methodsOf(route).map((method) => HttpMethod[method]),
        integration: integrationOf(route.function),
      });
      for (const httpRoute of added) {
        Validations.of(httpRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: AUTH_REASONS[route.auth] });
      }
      if (Object.hasOwn(routeThrottles, routeKey({ method: route.method, path: route.path })))
        throttled.push(...added);
    }
    const defaultRoute = this.api.node.tryFindChild('DefaultRoute');
    if (defaultRoute !== undefined) {
      Validations.of(defaultRoute).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: 'The $default route only answers 404 or 405 for requests no route takes; it reads no data.',
      });
    }

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    const keys = Object.keys(routeThrottles);
    // A key no route has would pass synth and fail the deploy ("Unable to find Route by key").
    const known = new Set(routeKeys(table));
    const unknown = keys.filter((key) => !known.has(key));
    if (unknown.length > 0)
      throw new Error(`routeThrottles names no route of the table: ${unknown.join(', ')}`);
    if (keys.length > 0) {
      // CloudFormation refuses settings for a route it has not made yet ("Unable to find Route by
      // key"): the stage waits for them.
      for (const route of throttled) this.stage.node.addDependency(route);
      // Route settings by route key: HttpStage takes only the default route's throttle. The map is
      // CloudFormation's JSON as it is, so its names are CloudFormation's.
      (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
        keys.map((key) => [
          key,
          {
            ThrottlingRateLimit: routeThrottles[key]!.rateLimit,
            ThrottlingBurstLimit: routeThrottles[key]!.burstLimit,
          },
        ]),
      );
    }
  }

  /** The API's base URL, ending in `/`. */
  get url(): string {
    return this.stage.url;
  }
}

function corsPreflightOf(cors: CorsSettings, table: readonly RouteDefinition[]) {
  const methods = new Set(table.flatMap((route) => methodsOf(route)));
  return {
    allowOrigins: [...cors.allowOrigins],
    allowHeaders: [...cors.allowHeaders],
    exposeHeaders: [...cors.exposeHeaders],
    allowMethods: [...methods].sort().map((method) => CorsHttpMethod[method]),
    maxAge: Duration.seconds(cors.maxAgeSeconds),
  };
}
