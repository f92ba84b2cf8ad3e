/**
 * Requests Node's HTTP parser refuses before any route runs: headers too large, malformed
 * request lines or header bytes, and requests that take too long to arrive. Node would answer
 * them with a bare status line; these answers carry the same JSON error body as every other
 * error, and a request log line. (Deployed, API Gateway answers such requests itself.)
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@aws-lambda-powertools/logger';
import { ApiError, type ErrorCode, errorBody } from '../lib/api/errors';
import { API_RESPONSE_HEADERS, logRequestLine } from '../lib/http/middleware';

interface ClientErrorAnswer {
  code: ErrorCode;
  message: string;
}

/** What to answer for a parser or timeout error code, or `undefined` to just drop the connection. */
function clientErrorAnswer(errorCode: string | undefined): ClientErrorAnswer | undefined {
  if (errorCode === 'HPE_HEADER_OVERFLOW') {
    return {
      code: 'HEADERS_TOO_LARGE',
      message: 'The request headers are too large; send fewer or shorter headers.',
    };
  }
  if (errorCode === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      code: 'REQUEST_TIMEOUT',
      message: 'The request did not arrive in time (headers and body); send it again without pausing.',
    };
  }
  if (errorCode?.startsWith('HPE_')) {
    return {
      code: 'BAD_REQUEST',
      message: 'The request is not valid HTTP/1.1 (request line or header bytes).',
    };
  }
  return undefined;
}

/** A `clientError` listener for `http.Server` that answers with a JSON error body when it still can. */
export function answerClientErrors(logger: Logger | undefined) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    const answer = clientErrorAnswer(error.code);
    const response = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (answer === undefined || !socket.writable || response?.headersSent === true) {
      socket.destroy();
      return;
    }
    const apiError = new ApiError(answer.code, answer.message);
    const body = JSON.stringify(errorBody(apiError));
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
      ...API_RESPONSE_HEADERS,
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n${head}\r\n${body}`);
    if (logger !== undefined) {
      logRequestLine(logger, {
        requestId: randomUUID(),
        route: undefined,
        status: apiError.status,
        errorCode: apiError.code,
        durationMs: undefined,
      });
    }
  };
}
