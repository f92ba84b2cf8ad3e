import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { expect, vi } from 'vitest';
import { ApiError } from '../../lib/api/errors';
import { WORKED_EXAMPLE } from '../../lib/worked-example';

/** The worked example of the engine model (one copy, shared with the OpenAPI document). */
export const WORKED = WORKED_EXAMPLE;

export interface EventInput {
  body?: unknown;
  headers?: Record<string, string>;
  isBase64Encoded?: boolean;
  method?: string;
  path?: string;
}

/** An HTTP API v2 event as API Gateway sends it; a non-string body is JSON-encoded. */
export function httpEvent(input: EventInput = {}): APIGatewayProxyEventV2 {
  const method = input.method ?? 'POST';
  const path = input.path ?? '/api/engine';
  const body =
    input.body === undefined || typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { ...(input.headers ?? {}) },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'req-test-1',
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 1767225600000,
    },
    ...(body === undefined ? {} : { body: body as string }),
    isBase64Encoded: input.isBase64Encoded ?? false,
  };
}

/**
 * Everything written to stdout and stderr while `run` runs (the Powertools logger writes JSON
 * lines to stdout). Output still reaches the terminal only through the capture.
 */
export async function captureOutput<T>(run: () => Promise<T>): Promise<{ result: T; output: string }> {
  const chunks: string[] = [];
  const grab = (chunk: unknown) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(grab as typeof process.stdout.write);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(grab as typeof process.stderr.write);
  try {
    const result = await run();
    return { result, output: chunks.join('') };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** The JSON log lines in captured output. */
export function logLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The ApiError a promise rejects with (fails the test if it resolves or rejects otherwise). */
export async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/**
 * A body whose two node ids differ only in one byte that is not UTF-8 (0xff, 0xfe). Decoded
 * with replacement both become "a\ufffd", so a reader that did not refuse invalid UTF-8 would
 * call them duplicates.
 */
export const IDS_DIFFERING_IN_INVALID_BYTES = Buffer.concat([
  Buffer.from('{"mode":"analyze","nodes":[{"id":"a'),
  Buffer.from([0xff]),
  Buffer.from('"},{"id":"a'),
  Buffer.from([0xfe]),
  Buffer.from('"}],"dependencies":[]}'),
]);
