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
