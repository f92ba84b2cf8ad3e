/**
 * The HTTP API construct on its own: a throttle for a route the table does not have is refused
 * at synth, where it would otherwise fail the deploy ("Unable to find Route by key").
 */
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { ServiceApi } from '../../infra/constructs/service-api';

function apiWith(routeThrottles: Record<string, { rateLimit: number; burstLimit: number }>) {
  const stack = new Stack(new App(), 'ApiOnly');
  const fn = (id: string) =>
    new LambdaFunction(stack, id, {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({});'),
    });
  return new ServiceApi(stack, 'Api', {
    functions: { engine: fn('Engine'), connect: fn('Connect') },
    cors: undefined,
    throttle: { rateLimit: 100, burstLimit: 200 },
    routeThrottles,
    removalPolicy: RemovalPolicy.DESTROY,
    logRetention: RetentionDays.ONE_DAY,
  });
}

describe('ServiceApi', () => {
  it('refuses a throttle for a route the table does not have', () => {
    expect(() => apiWith({ 'POST /api/engines': { rateLimit: 1, burstLimit: 1 } })).toThrow(
      'routeThrottles names no route of the table: POST /api/engines',
    );
    expect(() => apiWith({ 'POST /api/engine': { rateLimit: 1, burstLimit: 1 } })).not.toThrow();
  });
});
