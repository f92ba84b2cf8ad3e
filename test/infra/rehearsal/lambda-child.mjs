// One Lambda execution environment for a bundle from cdk.out, as Lambda's Node.js runtime runs
// it: the handler module is imported once (the cold start, with the function's environment and
// NODE_OPTIONS), then each invocation calls `handler(event, context)` and the result goes back
// serialized as JSON, as Lambda serializes it. Plain JavaScript on purpose: nothing but the
// bundle and Node itself is loaded, as in Lambda.
import { pathToFileURL } from 'node:url';

const [bundleFile, handlerName, functionName, timeoutSeconds, memoryMb] = process.argv.slice(2);

let handler;
try {
  const module = await import(pathToFileURL(bundleFile).href);
  handler = module[handlerName];
  if (typeof handler !== 'function') throw new Error(`${bundleFile} exports no function ${handlerName}`);
} catch (error) {
  process.send({ kind: 'init-error', message: String(error?.stack ?? error) });
  process.exit(1);
}
process.send({ kind: 'ready', version: process.version });

process.on('message', async ({ id, event }) => {
  const deadline = Date.now() + Number(timeoutSeconds) * 1000;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: memoryMb,
    awsRequestId: event?.requestContext?.requestId ?? String(id),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'rehearsal',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  try {
    const result = await handler(event, context);
    process.send({ id, kind: 'result', payload: JSON.stringify(result ?? null) });
  } catch (error) {
    process.send({
      id,
      kind: 'error',
      errorType: error?.name ?? 'Error',
      errorMessage: String(error?.message ?? error),
    });
  }
});
