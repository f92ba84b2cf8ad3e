/**
 * A DynamoDB that fails on purpose: an HTTP proxy in front of dynalite that answers chosen calls
 * the way DynamoDB itself answers a fault, so the SDK's own parsing, classification and retries
 * run exactly as they would against AWS.
 *
 * Error bodies and status codes are DynamoDB's (awsJson1_0): `{"__type": "<namespace>#<Name>",
 * "message": …}` with `Content-Type: application/x-amz-json-1.0`, `x-amzn-RequestId` and
 * `x-amz-crc32`, as the DynamoDB Developer Guide ("Error handling with DynamoDB") shows them; the
 * SDK reads the name after `#` (`loadJsonRpcErrorCode` in @smithy/core). The messages are the
 * ones that guide lists for each error.
 *
 * One *call* is one SDK operation with all its attempts: the SDK sends the same
 * `amz-sdk-invocation-id` on every attempt of a call, so the proxy numbers calls by it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

/** The faults DynamoDB answers with, by the name the SDK sees. */
export const DYNAMO_ERRORS = {
  ProvisionedThroughputExceededException: {
    status: 400,
    type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message:
      'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  },
  ThrottlingException: {
    status: 400,
    type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
    message: 'Rate of requests exceeds the allowed throughput.',
  },
  RequestLimitExceeded: {
    status: 400,
    type: 'com.amazonaws.dynamodb.v20120810#RequestLimitExceeded',
    message:
      'Throughput exceeds the current throughput limit for your account. Please contact AWS Support to request a limit increase.',
  },
  InternalServerError: {
    status: 500,
    type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
    message: 'Internal server error',
  },
  // Not a fault of the service's health: a write DynamoDB refuses (an item over 400 KB, a number it
  // cannot hold). The SDK does not retry it.
  ValidationException: {
    status: 400,
    type: 'com.amazon.coral.validate#ValidationException',
    message: 'Item size has exceeded the maximum allowed size',
  },
  ServiceUnavailable: {
    status: 503,
    type: 'com.amazonaws.dynamodb.v20120810#ServiceUnavailable',
    message: 'DynamoDB is currently unavailable. (This should be a temporary state.)',
  },
} as const;

export type DynamoErrorName = keyof typeof DYNAMO_ERRORS;

/**
 * What the proxy does with one attempt:
 * - `error`: answers the error without forwarding (nothing happened);
 * - `appliedThenError`: forwards it (the write happens) and answers the error instead of the
 *   result, as when DynamoDB's answer is lost after the write was applied;
 * - `hang`: never answers (the SDK's attempt timeout fires);
 * - `reset`: drops the connection without an answer.
 */
export type Fault =
  | { kind: 'error'; error: DynamoErrorName }
  | { kind: 'appliedThenError'; error: DynamoErrorName }
  | { kind: 'hang' }
  | { kind: 'reset' };

export interface ProxiedCall {
  /** 0-based, in the order the calls' first attempts arrived. */
  index: number;
  /** `PutItem`, `GetItem`, … from `X-Amz-Target`. */
  operation: string;
  /** The request body, parsed. */
  // biome-ignore lint/suspicious/noExplicitAny: DynamoDB's JSON, read by tests as they need.
  body: any;
  /** Attempts seen so far. */
  attempts: number;
}

/** Decides the fault (if any) for one attempt of a call. */
export type FaultRule = (call: ProxiedCall, attempt: number) => Fault | undefined;

export interface FaultProxy {
  endpoint: string;
  /** Every call so far, in order. */
  calls: ProxiedCall[];
  /** Replaces the rule (none: every call passes) and forgets the calls seen so far. */
  reset(rule?: FaultRule): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let rule: FaultRule | undefined;
  let calls: ProxiedCall[] = [];
  const byInvocation = new Map<string, ProxiedCall>();
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const invocation = String(req.headers['amz-sdk-invocation-id'] ?? randomUUID());
      let call = byInvocation.get(invocation);
      if (call === undefined) {
        const target = String(req.headers['x-amz-target'] ?? '');
        call = {
          index: calls.length,
          operation: target.slice(target.indexOf('.') + 1),
          body: JSON.parse(body.toString('utf8') || '{}'),
          attempts: 0,
        };
        byInvocation.set(invocation, call);
        calls.push(call);
      }
      call.attempts += 1;
      const fault = rule?.(call, call.attempts);
      if (fault?.kind === 'error') return answerError(res, fault.error);
      if (fault?.kind === 'hang') {
        hanging.add(res);
        return;
      }
      if (fault?.kind === 'reset') {
        req.socket.destroy();
        return;
      }
      forward(upstream, req, body, (status, headers, answer) => {
        if (fault?.kind === 'appliedThenError') return answerError(res, fault.error);
        res.writeHead(status, headers);
        res.end(answer);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get calls() {
      return calls;
    },
    reset(next) {
      rule = next;
      calls = [];
      byInvocation.clear();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function answerError(res: ServerResponse, name: DynamoErrorName): void {
  const { status, type, message } = DYNAMO_ERRORS[name];
  const text = JSON.stringify({ __type: type, message });
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID().replaceAll('-', '').toUpperCase(),
    'x-amz-crc32': String(crc32(text)),
  });
  res.end(text);
}

function forward(
  upstream: URL,
  req: IncomingMessage,
  body: Buffer,
  done: (status: number, headers: Record<string, string | string[] | undefined>, answer: Buffer) => void,
): void {
  const out = httpRequest(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => parts.push(chunk));
      answer.on('end', () => done(answer.statusCode ?? 500, answer.headers, Buffer.concat(parts)));
    },
  );
  out.end(body);
}
