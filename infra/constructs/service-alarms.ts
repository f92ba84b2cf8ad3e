import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { SERVER_FAULT_CODES } from '../../lib/api/errors';
import type { FunctionName } from '../../lib/http/routes';
import { constructIdOf } from '../names';

export interface ServiceAlarmsProps {
  readonly functions: Readonly<Record<FunctionName, { function: NodejsFunction; logGroup: ILogGroup }>>;
  /** The API stage's JSON access log. */
  readonly accessLogs: ILogGroup;
  /** Every alarm notifies this topic when it fires and when it clears. */
  readonly alarmTopicArn: string | undefined;
}

const METRIC_NAMESPACE = 'SystemBehaviorEngine';
const SERVER_FAULTS_METRIC = 'ServerFaults';
const GATEWAY_THROTTLES_METRIC = 'GatewayThrottles';
/** Throttled requests in one period that make the alarm fire: a few are a client's burst. */
const GATEWAY_THROTTLES_THRESHOLD = 10;
/** The duration alarm fires when an invocation takes this share of its timeout. */
const DURATION_ALARM_SHARE = 0.8;
const PERIOD = Duration.minutes(5);

/**
 * The request-log lines (`lib/http/middleware/request-log.ts`) whose error code says the service
 * failed. Not API Gateway's 5xx count: the contract answers a caller's malformed structure
 * with 500 PAYLOAD_ERROR, which is the caller's fault, not ours.
 */
function serverFaultPattern() {
  return FilterPattern.all(
    FilterPattern.stringValue('$.message', '=', 'request'),
    FilterPattern.any(
      ...SERVER_FAULT_CODES.map((code) => FilterPattern.stringValue('$.errorCode', '=', code)),
    ),
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

/**
 * Per function: throttles, errors (an unhandled error, a crash, a timeout: anything that never
 * became a JSON answer) and a duration near the timeout. For the service: server faults, the
 * ENGINE_ERROR and INTERNAL_ERROR answers counted from the request log, and requests API
 * Gateway throttled (429), counted from the access log.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const topic =
      props.alarmTopicArn === undefined ? undefined : Topic.fromTopicArn(this, 'Topic', props.alarmTopicArn);

    const faults = new Metric({
      namespace: METRIC_NAMESPACE,
      metricName: SERVER_FAULTS_METRIC,
      statistic: 'Sum',
      period: PERIOD,
    });
    for (const [name, { function: fn, logGroup }] of Object.entries(props.functions)) {
      const prefix = constructIdOf(name);
      new MetricFilter(this, `${prefix}ServerFaults`, {
        logGroup,
        filterPattern: serverFaultPattern(),
        metricNamespace: METRIC_NAMESPACE,
        metricName: SERVER_FAULTS_METRIC,
        metricValue: '1',
      });
      this.add(`${prefix}Errors`, fn.metricErrors({ period: PERIOD, statistic: 'Sum' }), 1, {
        description: `The ${name} function failed without answering (unhandled error, crash or timeout).`,
      });
      this.add(`${prefix}Throttles`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }), 1, {
        description: `Lambda throttled the ${name} function: it reached its concurrency limit.`,
      });
      const timeoutMs = (fn.timeout ?? Duration.seconds(3)).toMilliseconds();
      this.add(
        `${prefix}DurationNearTimeout`,
        fn.metricDuration({ period: PERIOD, statistic: 'Maximum' }),
        Math.round(timeoutMs * DURATION_ALARM_SHARE),
        {
          description: `An invocation of the ${name} function took ${DURATION_ALARM_SHARE * 100}% of its timeout or more.`,
        },
      );
    }
    new MetricFilter(this, 'GatewayThrottlesFilter', {
      logGroup: props.accessLogs,
      filterPattern: gatewayThrottlePattern(),
      metricNamespace: METRIC_NAMESPACE,
      metricName: GATEWAY_THROTTLES_METRIC,
      metricValue: '1',
    });
    this.add(
      'GatewayThrottles',
      new Metric({
        namespace: METRIC_NAMESPACE,
        metricName: GATEWAY_THROTTLES_METRIC,
        statistic: 'Sum',
        period: PERIOD,
      }),
      GATEWAY_THROTTLES_THRESHOLD,
      {
        description: `API Gateway answered 429 to ${GATEWAY_THROTTLES_THRESHOLD} or more requests in 5 minutes: the stage's throttle (throttleRateLimit, throttleBurstLimit) is turning callers away.`,
      },
    );
    this.add('ServerFaults', faults, 1, {
      description:
        'Requests answered ENGINE_ERROR or INTERNAL_ERROR (a PAYLOAD_ERROR is the caller’s and not counted).',
    });

    if (topic !== undefined) {
      const action = new SnsAction(topic);
      for (const alarm of this.alarms) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }
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
