/**
 * Stands in for `@aws-lambda-powertools/tracer` in the bundles of a stage deployed without
 * tracing (an esbuild alias, infra/functions.ts): the few members lib/aws/tracing.ts uses, as a
 * tracer that is never enabled, so neither the tracer nor the X-Ray SDK is bundled.
 */
export class Tracer {
  isTracingEnabled(): boolean {
    return false;
  }

  captureAWSv3Client<T>(client: T): T {
    return client;
  }

  getSegment(): undefined {
    return undefined;
  }

  setSegment(): void {}
}
