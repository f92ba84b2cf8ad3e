import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type ITableV2, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type IFilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { SERVER_FAULT_CODES } from '../../lib/api/errors';
import type { FunctionName } from '../../lib/http/routes';
import { TABLE_ACCESS } from '../functions';
import { constructIdOf } from '../names';

export interface ServiceAlarmsProps {
  readonly functions: Readonly<Record<FunctionName, { function: LambdaFunction; logGroup: ILogGroup }>>;
  /** The API stage: its latency and 5xx metrics. */
  readonly apiStage: HttpStage;
  /** The API stage's JSON access log. */
  readonly accessLogs: ILogGroup;
  readonly table: ITableV2;
  /** The stage the stack is deployed as; it names the custom metrics' namespace. */
  readonly stage: string | undefined;
  /** Every alarm notifies this topic when it fires and when it clears; without it, one of the stack's own. */
  readonly alarmTopicArn: string | undefined;
  /** Subscribed by email to the alarms' topic. */
  readonly alarmEmail: string | undefined;
}

/**
 * The custom metrics' namespace: one per stage, so that a `dev` stage's load test in the same
 * account moves only `dev`'s metrics and fires only `dev`'s alarms.
 * @internal test/infra/service-alarms.test.ts checks each metric filter writes here.
 */
export function metricNamespaceOf(stage: string | undefined): string {
  return `SystemBehaviorEngine/${stage ?? 'default'}`;
}

const SERVER_FAULTS_METRIC = 'ServerFaults';
const SERVICE_UNAVAILABLE_METRIC = 'ServiceUnavailable';
const PAYLOAD_ERRORS_METRIC = 'PayloadErrors';
const GATEWAY_THROTTLES_METRIC = 'GatewayThrottles';
/** Throttled requests in one period that make the alarm fire: a few are a client's burst. */
const GATEWAY_THROTTLES_THRESHOLD = 10;
/** The duration and latency alarms fire at this share of the timeout. */
const NEAR_TIMEOUT_SHARE = 0.8;
const PERIOD = Duration.minutes(5);
/** What a table fault answers, once the SDK's retries are spent. */
const SERVICE_UNAVAILABLE = { status: 503, code: 'SERVICE_UNAVAILABLE' } as const;
const PAYLOAD_ERROR = 'PAYLOAD_ERROR';

/**
 * The request-log lines (`lib/http/middleware/request-log.ts`) whose error code is one of
 * `codes`. Not API Gateway's 5xx count: the contract answers a caller's malformed structure
 * with 500 PAYLOAD_ERROR, which is the caller's fault, not ours.
 */
function requestLinePattern(codes: readonly string[], status?: number) {
  return FilterPattern.all(
    FilterPattern.stringValue('$.message', '=', 'request'),
    ...(status === undefined ? [] : [FilterPattern.numberValue('$.status', '=', status)]),
    FilterPattern.any(...codes.map((code) => FilterPattern.stringValue('$.errorCode', '=', code))),
  );
}

/**
 * Access-log lines of requests API Gateway refused with 429 (the stage's rate or burst limit):
 * they never reach a function, so no Lambda metric sees them.
 */
function gatewayThrottlePattern() {
  // The access log writes every field as a string (see ACCESS_LOG_FIELDS).
  return FilterPattern.stringValue('$.status', '=', '429');
}

/** The DynamoDB operations the functions call (TABLE_ACCESS), for the table's per-operation metrics. */
function tableOperations(): Operation[] {
  const names = new Set(
    Object.values(TABLE_ACCESS).flatMap((accesses) =>
      accesses.flatMap((access) => access.actions.map((action) => action.replace(/^dynamodb:/, ''))),
    ),
  );
  return (Object.values(Operation) as string[])
    .filter((operation) => names.has(operation))
    .sort() as Operation[];
}

/**
 * Per function: errors (anything that never became a JSON answer), throttles and a duration near
 * the timeout. For the API: p99 latency near the longest function timeout, and its 5xx answers
 * other than PAYLOAD_ERROR (the gateway's own and the service's). From the logs: server faults
 * (ENGINE_ERROR, INTERNAL_ERROR), 503 SERVICE_UNAVAILABLE (the table throttled or failing after
 * retries) and the gateway's 429s. For the table: throttled requests and system errors. Every
 * alarm notifies a topic (the stack's own unless `alarmTopicArn` names one), and a dashboard
 * shows the same signals.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];
  readonly topic: ITopic;
  readonly dashboard: Dashboard;
  readonly namespace: string;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.namespace = metricNamespaceOf(props.stage);
    this.topic =
      props.alarmTopicArn === undefined
        ? this.ownTopic()
        : Topic.fromTopicArn(this, 'Topic', props.alarmTopicArn);
    if (props.alarmEmail !== undefined) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    // No labels on what alarms watch: a label turns an alarm's metric into a metric-math query.
    const logMetric = (metricName: string) =>
      new Metric({ namespace: this.namespace, metricName, statistic: 'Sum', period: PERIOD });
    const serverFaults = logMetric(SERVER_FAULTS_METRIC);
    const serviceUnavailable = logMetric(SERVICE_UNAVAILABLE_METRIC);
    const payloadErrors = logMetric(PAYLOAD_ERRORS_METRIC);
    const gatewayThrottles = logMetric(GATEWAY_THROTTLES_METRIC);

    const functionEntries = Object.entries(props.functions) as Array<
      [FunctionName, { function: LambdaFunction; logGroup: ILogGroup }]
    >;
    for (const [name, { function: fn, logGroup }] of functionEntries) {
      const prefix = constructIdOf(name);
      this.countLines(
        `${prefix}ServerFaults`,
        logGroup,
        requestLinePattern(SERVER_FAULT_CODES),
        SERVER_FAULTS_METRIC,
      );
      this.countLines(
        `${prefix}ServiceUnavailable`,
        logGroup,
        requestLinePattern([SERVICE_UNAVAILABLE.code], SERVICE_UNAVAILABLE.status),
        SERVICE_UNAVAILABLE_METRIC,
      );
      this.countLines(
        `${prefix}PayloadErrors`,
        logGroup,
        requestLinePattern([PAYLOAD_ERROR]),
        PAYLOAD_ERRORS_METRIC,
      );
      this.add(`${prefix}Errors`, fn.metricErrors({ period: PERIOD, statistic: 'Sum' }), 1, {
        description: `The ${name} function failed without answering (unhandled error, crash or timeout).`,
      });
      this.add(`${prefix}Throttles`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }), 1, {
        description: `Lambda throttled the ${name} function: it reached its concurrency limit.`,
      });
      this.add(
        `${prefix}DurationNearTimeout`,
        fn.metricDuration({ period: PERIOD, statistic: 'Maximum' }),
        Math.round(timeoutMsOf(fn) * NEAR_TIMEOUT_SHARE),
        {
          description: `An invocation of the ${name} function took ${NEAR_TIMEOUT_SHARE * 100}% of its timeout or more.`,
        },
      );
    }
    this.countLines(
      'GatewayThrottlesFilter',
      props.accessLogs,
      gatewayThrottlePattern(),
      GATEWAY_THROTTLES_METRIC,
    );

    const longestTimeoutMs = Math.max(...functionEntries.map(([, { function: fn }]) => timeoutMsOf(fn)));
    const latencyP99 = props.apiStage.metricLatency({
      period: PERIOD,
      statistic: 'p99',
      label: 'p99 latency',
    });
    this.add('ApiLatencyNearTimeout', latencyP99, Math.round(longestTimeoutMs * NEAR_TIMEOUT_SHARE), {
      description: `The API's p99 latency reached ${NEAR_TIMEOUT_SHARE * 100}% of the longest function timeout (${longestTimeoutMs / 1000} s): requests are about to time out.`,
    });
    // API Gateway's 5xx count less the caller's PAYLOAD_ERRORs: the gateway's own 5xx (a
    // function that failed or timed out) and every other 5xx the functions answered.
    const apiServerErrors = new MathExpression({
      expression: 'MAX([0, FILL(gateway5xx, 0) - FILL(payloadErrors, 0)])',
      usingMetrics: {
        gateway5xx: props.apiStage.metricServerError({ period: PERIOD, statistic: 'Sum' }),
        payloadErrors,
      },
      period: PERIOD,
      label: '5xx answers but PAYLOAD_ERROR',
    });
    this.add('ApiServerErrors', apiServerErrors, 1, {
      description:
        'The API answered 5xx (the gateway’s own, or the service’s ENGINE_ERROR, INTERNAL_ERROR or SERVICE_UNAVAILABLE); a caller’s 500 PAYLOAD_ERROR is not counted.',
    });
    this.add('ServerFaults', serverFaults, 1, {
      description:
        'Requests answered ENGINE_ERROR or INTERNAL_ERROR (a PAYLOAD_ERROR is the caller’s and not counted).',
    });
    this.add('ServiceUnavailable', serviceUnavailable, 1, {
      description:
        'Requests answered 503 SERVICE_UNAVAILABLE: the table throttled or failed after the SDK’s retries.',
    });
    this.add('GatewayThrottles', gatewayThrottles, GATEWAY_THROTTLES_THRESHOLD, {
      description: `API Gateway answered 429 to ${GATEWAY_THROTTLES_THRESHOLD} or more requests in 5 minutes: a route's throttle (the stage's throttleRateLimit, throttleBurstLimit, or the costly routes' engineThrottle…, connectThrottle…) is turning callers away.`,
    });

    const operations = tableOperations();
    const tableThrottles = props.table.metricThrottledRequestsForOperations({
      operations,
      period: PERIOD,
      label: 'throttled requests',
    });
    const tableSystemErrors = props.table.metricSystemErrorsForOperations({
      operations,
      period: PERIOD,
      label: 'system errors',
    });
    this.add('TableThrottledRequests', tableThrottles, 1, {
      description:
        'DynamoDB throttled requests to the table (the SDK retries them; 503s follow when retries run out).',
    });
    this.add('TableSystemErrors', tableSystemErrors, 1, {
      description: 'DynamoDB answered requests to the table with a 500 (an AWS-side failure).',
    });

    const action = new SnsAction(this.topic);
    for (const alarm of this.alarms) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }

    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new TextWidget({
            markdown: `# ${Stack.of(this).stackName}\nAlarms notify the stack's topic; see docs/deploy.md#operating-it.`,
            width: 24,
            height: 2,
          }),
        ],
        [
          graph('API requests and 5xx', [
            props.apiStage.metricCount({ period: PERIOD, statistic: 'Sum', label: 'requests' }),
            apiServerErrors,
            payloadErrors,
          ]),
          graph('API latency', [
            props.apiStage.metricLatency({ period: PERIOD, statistic: 'p50' }),
            latencyP99,
          ]),
          graph('Service answers', [serverFaults, serviceUnavailable, gatewayThrottles]),
        ],
        ...functionEntries.map(([name, { function: fn }]) => [
          graph(`${name} function: errors and throttles`, [
            fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
            fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
          ]),
          graph(`${name} function: duration`, [
            fn.metricDuration({ period: PERIOD, statistic: 'p50', label: 'p50' }),
            fn.metricDuration({ period: PERIOD, statistic: 'p99', label: 'p99' }),
            fn.metricDuration({ period: PERIOD, statistic: 'Maximum', label: 'max' }),
          ]),
          graph(`${name} function: invocations`, [
            fn.metricInvocations({ period: PERIOD, statistic: 'Sum' }),
          ]),
        ]),
        // Two graphs: each expression names its per-operation metrics the same way.
        [
          graph('DynamoDB throttled requests', [tableThrottles], 12),
          graph('DynamoDB system errors', [tableSystemErrors], 12),
        ],
      ],
    });
  }

  /** The stack's own topic: only CloudWatch publishes to it, over TLS. */
  private ownTopic(): Topic {
    const topic = new Topic(this, 'Topic', {
      displayName: `${Stack.of(this).stackName} alarms`,
      enforceSSL: true,
    });
    Validations.of(topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names and states only. CloudWatch cannot publish to a topic encrypted with the AWS managed SNS key, and a customer managed key costs $1 a month per stage; set alarmTopicArn to use an encrypted topic of your own.',
    });
    return topic;
  }

  /** A metric filter adding 1 to `metricName`, in the stage's namespace, per matching log line. */
  private countLines(id: string, logGroup: ILogGroup, filterPattern: IFilterPattern, metricName: string) {
    new MetricFilter(this, id, {
      logGroup,
      filterPattern,
      metricNamespace: this.namespace,
      metricName,
      metricValue: '1',
    });
  }

  private add(id: string, metric: IMetric, threshold: number, options: { description: string }): void {
    this.alarms.push(
      new Alarm(this, id, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: options.description,
      }),
    );
  }
}

function timeoutMsOf(fn: LambdaFunction): number {
  return (fn.timeout ?? Duration.seconds(3)).toMilliseconds();
}

function graph(title: string, metrics: IMetric[], width = 8): GraphWidget {
  return new GraphWidget({ title, left: metrics, width, height: 6 });
}
