/**
 * X-Ray tracing with the Powertools tracer, when a function's stage turns it on (the `tracing`
 * deploy setting sets POWERTOOLS_TRACE_ENABLED and Lambda's active tracing). Two things are
 * traced: every DynamoDB call, as a subsegment of the invocation, and the outbound fetch of
 * connect and refresh. Off (the default, and always outside Lambda) both are plain pass-throughs;
 * the bundles of a stage without tracing carry a stand-in instead (lib/aws/tracer-off.ts).
 */
import { Tracer } from '@aws-lambda-powertools/tracer';

// The service name comes from POWERTOOLS_SERVICE_NAME. Node's http and https are not patched
// globally: that would record every URL whole, query string included; the outbound fetch gets a
// subsegment of its own that names the host only.
const tracer = new Tracer({ captureHTTPsRequests: false });

/** Traces the client's calls (and those of document clients built on it, which share its stack). */
export function traceAwsClient<T extends object>(client: T): T {
  return tracer.isTracingEnabled() ? tracer.captureAWSv3Client(client) : client;
}

/** Runs one outbound fetch of `url` inside a subsegment `## outbound fetch`, annotated with the host. */
export async function traceOutbound<T>(url: string, run: () => Promise<T>): Promise<T> {
  const parent = tracer.isTracingEnabled() ? tracer.getSegment() : undefined;
  if (parent === undefined) return run();
  const subsegment = parent.addNewSubsegment('## outbound fetch');
  subsegment.addAnnotation('host', hostOf(url));
  tracer.setSegment(subsegment);
  try {
    return await run();
  } catch (error) {
    subsegment.addError(error as Error);
    throw error;
  } finally {
    subsegment.close();
    tracer.setSegment(parent);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(not a URL)';
  }
}
