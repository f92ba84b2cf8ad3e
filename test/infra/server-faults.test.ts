/**
 * The server-fault alarm counts request-log lines. Its metric filter, taken from the synthesized
 * template, is run here over the lines the engine function really writes: a caller's 500
 * PAYLOAD_ERROR must never count, a failure of the service always must.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { createEngineFunction } from '../../functions/engine/engine-function';
import { ERROR_STATUS, type ErrorCode, SERVER_FAULT_CODES } from '../../lib/api/errors';
import { readLimits } from '../../lib/config/limits';
import { logRequestLine } from '../../lib/http/middleware';
import { createLogger } from '../../lib/logging';
import { captureOutput, httpEvent, logLines, WORKED } from '../http/events';
import { matchesJsonFilter } from './json-filter-pattern';
import { synthesizeStack } from './synth';

const { template } = synthesizeStack();
const filters = Object.values(template.findResources('AWS::Logs::MetricFilter'));
const patternsOf = (metricName: string) =>
  filters
    .filter((filter) => filter.Properties.MetricTransformations[0].MetricName === metricName)
    .map((filter) => filter.Properties.FilterPattern as string);
const patterns = patternsOf('ServerFaults');

/** The request lines a handler call writes. */
async function requestLinesOf(verifyApiKey: () => Promise<{ id: string; owner: string }>, body: unknown) {
  const handler = createEngineFunction({
    verifyApiKey,
    systems: { get: async () => undefined, getRecord: async () => undefined },
    limits: readLimits({}),
    logger: createLogger({ env: {} }),
  });
  const { output } = await captureOutput(
    () =>
      handler(
        httpEvent({ headers: { authorization: 'Bearer sbe_x' }, body }) as never,
        {} as never,
      ) as Promise<unknown>,
  );
  return logLines(output).filter((line) => line.message === 'request');
}

const faultCount = (lines: Array<Record<string, unknown>>) =>
  lines.filter((line) => patterns.some((pattern) => matchesJsonFilter(pattern, line))).length;

describe('the server-fault metric filter', () => {
  it('is the same on every function’s log group', () => {
    expect(patterns).toHaveLength(2);
    expect(new Set(patterns).size).toBe(1);
  });

  // A node without an id: the contract's 500 PAYLOAD_ERROR, the caller's mistake.
  it('does not count a PAYLOAD_ERROR, though its status is 500', async () => {
    const lines = await requestLinesOf(async () => ({ id: 'k', owner: 'o' }), {
      mode: 'analyze',
      nodes: [{ load: 1 }],
      dependencies: [],
    });
    expect(lines).toMatchObject([{ status: 500, errorCode: 'PAYLOAD_ERROR' }]);
    expect(faultCount(lines)).toBe(0);
  });

  // The key store failing (DynamoDB unreachable): the service's fault, answered 500 INTERNAL_ERROR.
  it('counts an INTERNAL_ERROR', async () => {
    const lines = await requestLinesOf(
      async () => {
        throw new Error('DynamoDB is unreachable');
      },
      { mode: 'analyze', ...WORKED },
    );
    expect(lines).toMatchObject([{ status: 500, errorCode: 'INTERNAL_ERROR' }]);
    expect(faultCount(lines)).toBe(1);
  });

  it('does not count a successful request', async () => {
    const lines = await requestLinesOf(async () => ({ id: 'k', owner: 'o' }), { mode: 'analyze', ...WORKED });
    expect(lines).toMatchObject([{ status: 200 }]);
    expect(faultCount(lines)).toBe(0);
  });

  // Every code the service answers with, written by the one request-line writer.
  it.each(Object.keys(ERROR_STATUS) as ErrorCode[])(
    'counts %s exactly when it is a server fault',
    async (code) => {
      const { output } = await captureOutput(async () =>
        logRequestLine(createLogger({ env: {} }), {
          requestId: 'r',
          route: 'POST /api/engine',
          status: ERROR_STATUS[code],
          errorCode: code,
          durationMs: 1,
        }),
      );
      expect(faultCount(logLines(output))).toBe(
        (SERVER_FAULT_CODES as readonly string[]).includes(code) ? 1 : 0,
      );
    },
  );

  // Only request lines count: the "engine failure" line beside a request line would count it twice.
  it('does not count other log lines that mention a fault code', () => {
    expect(faultCount([{ message: 'engine failure', errorCode: 'ENGINE_ERROR' }])).toBe(0);
  });
});

describe('matchesJsonFilter (the evaluator the test above relies on)', () => {
  it('reads = and != on nested fields, && before ||, parentheses', () => {
    const line = { a: 'x', b: { c: 'y' } };
    expect(matchesJsonFilter('{ $.a = "x" }', line)).toBe(true);
    expect(matchesJsonFilter('{ $.a != "x" }', line)).toBe(false);
    expect(matchesJsonFilter('{ $.b.c = "y" && $.a = "z" }', line)).toBe(false);
    expect(matchesJsonFilter('{ $.a = "z" && $.a = "z" || $.b.c = "y" }', line)).toBe(true);
    expect(matchesJsonFilter('{ $.a = "z" && ($.a = "z" || $.b.c = "y") }', line)).toBe(false);
    expect(matchesJsonFilter('{ $.missing = "x" }', line)).toBe(false);
  });

  it('refuses syntax it does not know rather than guessing', () => {
    expect(() => matchesJsonFilter('{ $.a > 1 }', {})).toThrow();
    expect(() => matchesJsonFilter('ERROR', {})).toThrow('not a JSON filter pattern');
  });
});

/**
 * The gateway-throttle alarm counts access-log lines (infra/constructs/service-api.ts writes
 * every field as a string) of requests API Gateway answered 429 itself.
 */
describe('the gateway-throttle metric filter', () => {
  const [throttlePattern] = patternsOf('GatewayThrottles');
  const accessLine = (status: string) => ({
    requestId: 'r',
    ip: '203.0.113.7',
    method: 'POST',
    path: '/api/engine',
    routeKey: 'POST /api/engine',
    status,
    integrationStatus: status === '429' ? '-' : '200',
  });

  it('reads the access log, once', () => {
    expect(patternsOf('GatewayThrottles')).toHaveLength(1);
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: throttlePattern,
      LogGroupName: { Ref: Match.stringLikeRegexp('^ApiAccessLogs') },
    });
  });

  it('counts 429 answers and nothing else', () => {
    expect(matchesJsonFilter(throttlePattern!, accessLine('429'))).toBe(true);
    for (const status of ['200', '400', '413', '500', '502', '4290']) {
      expect(matchesJsonFilter(throttlePattern!, accessLine(status))).toBe(false);
    }
  });

  it('has an alarm at 10 throttled requests in 5 minutes', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'GatewayThrottles',
      Threshold: 10,
      Period: 300,
      Statistic: 'Sum',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });
});

/**
 * The 503s of the table's fault handling: request lines with status 503 and the code
 * SERVICE_UNAVAILABLE, written like every other error line. Counted apart from server faults,
 * since they mean the table is throttled or failing rather than a bug.
 */
describe('the service-unavailable metric filter', () => {
  const unavailable = patternsOf('ServiceUnavailable');
  const line = (status: number, errorCode: string) => ({
    level: 'INFO',
    message: 'request',
    service: 'system-behavior-engine',
    requestId: 'r',
    route: 'POST /api/engine',
    status,
    errorCode,
    durationMs: 12.5,
  });
  const counted = (event: Record<string, unknown>) =>
    unavailable.some((pattern) => matchesJsonFilter(pattern, event));

  it('reads each function’s request log', () => {
    expect(unavailable).toHaveLength(2);
    expect(new Set(unavailable).size).toBe(1);
  });

  it('counts a 503 SERVICE_UNAVAILABLE request line, as the request log writes it', async () => {
    const { output } = await captureOutput(async () =>
      logRequestLine(createLogger({ env: {} }), {
        requestId: 'r',
        route: 'GET /api/systems',
        status: 503,
        errorCode: 'SERVICE_UNAVAILABLE' as ErrorCode,
        durationMs: 3,
      }),
    );
    const lines = logLines(output);
    expect(lines).toHaveLength(1);
    expect(counted(lines[0]!)).toBe(true);
  });

  it('counts nothing else: other codes, another status, other lines', () => {
    expect(counted(line(500, 'INTERNAL_ERROR'))).toBe(false);
    expect(counted(line(500, 'SERVICE_UNAVAILABLE'))).toBe(false);
    expect(counted({ ...line(503, 'SERVICE_UNAVAILABLE'), message: 'engine failure' })).toBe(false);
    for (const code of Object.keys(ERROR_STATUS).filter((name) => name !== 'SERVICE_UNAVAILABLE')) {
      expect(counted(line(ERROR_STATUS[code as ErrorCode], code))).toBe(false);
    }
  });

  it('has its own alarm, at the first one', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ServiceUnavailable',
      Threshold: 1,
      Statistic: 'Sum',
    });
  });
});

/** PAYLOAD_ERRORs are counted only to take them out of API Gateway's 5xx count. */
describe('the API 5xx alarm', () => {
  const [payloadPattern] = patternsOf('PayloadErrors');

  it('counts PAYLOAD_ERROR lines and nothing else', () => {
    const line = (errorCode: string) => ({ message: 'request', status: 500, errorCode });
    expect(matchesJsonFilter(payloadPattern!, line('PAYLOAD_ERROR'))).toBe(true);
    expect(matchesJsonFilter(payloadPattern!, line('ENGINE_ERROR'))).toBe(false);
  });

  it('is the gateway’s 5xx less the PAYLOAD_ERRORs', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 1,
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'MAX([0, FILL(gateway5xx, 0) - FILL(payloadErrors, 0)])' }),
        Match.objectLike({
          Id: 'gateway5xx',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: '5xx' }),
          }),
        }),
        Match.objectLike({
          Id: 'payloadErrors',
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'PayloadErrors' }) }),
        }),
      ]),
    });
  });

  // The connect function's 20 s is the longest timeout; API Gateway's own limit is 30 s.
  it('has a p99 latency alarm at 80% of the longest function timeout', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 16_000,
      Metrics: [
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: 'Latency' }),
            Stat: 'p99',
          }),
        }),
      ],
    });
  });

  it('has DynamoDB throttle and system-error alarms over every operation the functions call', () => {
    for (const metricName of ['ThrottledRequests', 'SystemErrors']) {
      const alarm = Object.values(template.findResources('AWS::CloudWatch::Alarm')).find((candidate) =>
        JSON.stringify(candidate.Properties.Metrics ?? []).includes(`"MetricName":"${metricName}"`),
      );
      expect(alarm, metricName).toBeDefined();
      const operations = (
        alarm!.Properties.Metrics as Array<{
          MetricStat?: { Metric: { Dimensions: Array<{ Name: string; Value: string }> } };
        }>
      )
        .flatMap((metric) => metric.MetricStat?.Metric.Dimensions ?? [])
        .filter((dimension) => dimension.Name === 'Operation')
        .map((dimension) => dimension.Value)
        .sort();
      expect(operations).toEqual([
        'BatchGetItem',
        'BatchWriteItem',
        'DeleteItem',
        'GetItem',
        'PutItem',
        'Query',
        'UpdateItem',
      ]);
    }
  });

  it('shows the same signals on a dashboard', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]);
    for (const signal of [
      'ServerFaults',
      'ServiceUnavailable',
      'GatewayThrottles',
      'Latency',
      'ThrottledRequests',
      'SystemErrors',
    ]) {
      expect(body).toContain(signal);
    }
  });
});
