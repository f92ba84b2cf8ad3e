/**
 * A validating proxy for tests: an express app with express-openapi-validator in front of a
 * server, checking each request and each answer against an OpenAPI document, then passing both
 * on unchanged. What a spec-driven gateway would do, except that it never refuses: it records
 * every violation so a test can assert there are none (or that a planted one is found).
 */
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

export interface Violation {
  kind: 'request' | 'response';
  request: string;
  status?: number;
  messages: string[];
}

export interface ValidatingProxy {
  url: string;
  violations: Violation[];
  close(): Promise<void>;
}

/** Headers not passed on: hop-by-hop ones, and the ones the proxy recomputes. */
const NOT_FORWARDED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Passes the request on with node:http (fetch would undo the answer's compression itself). */
function forward(target: string, request: Request, raw: Buffer | undefined): Promise<Upstream> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers as IncomingHttpHeaders)) {
    if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = String(value);
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      target + request.originalUrl,
      { method: request.method, headers },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const answerHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: answerHeaders, body: Buffer.concat(chunks) });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(raw !== undefined && raw.length > 0 ? raw : undefined);
  });
}

/** The body bytes as the service reads them: its Content-Encoding undone (for validation only). */
function decoded(bytes: Buffer, coding: string | undefined): Buffer {
  // A HEAD answer names its GET's coding but carries no bytes.
  if (bytes.length === 0) return bytes;
  let result = bytes;
  for (const name of (coding ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .reverse()) {
    if (name === 'gzip' || name === 'x-gzip') result = gunzipSync(result);
    else if (name === 'br') result = brotliDecompressSync(result);
    else if (name === 'deflate') result = inflateSync(result);
  }
  return result;
}

/** What the validator should see as the request body, from the bytes the caller sent. */
function bodyForValidation(request: Request, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = decoded(raw, request.headers['content-encoding']).toString('utf8');
  } catch {
    return raw.toString('latin1');
  }
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startValidatingProxy(target: string, apiSpec: object): Promise<ValidatingProxy> {
  const violations: Violation[] = [];
  const app = express();
  const label = (request: Request) => `${request.method} ${request.originalUrl}`;
  // Every body as the bytes sent, whatever its type and coding, so it is passed on exactly.
  app.use((request: Request & { rawBody?: Buffer }, _response: Response, next: NextFunction) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', next);
    request.on('end', () => {
      request.rawBody = Buffer.concat(chunks);
      request.body = bodyForValidation(request, request.rawBody);
      next();
    });
  });
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(apiSpec) as never,
      validateApiSpec: true,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: {
        onError: (error: Error, _body: unknown, request: Request) => {
          violations.push({ kind: 'response', request: label(request), messages: [error.message] });
        },
      },
      // The service checks its own credentials; the proxy only checks shapes.
      validateSecurity: false,
    }),
  );

  const respond = async (request: Request & { rawBody?: Buffer }, response: Response) => {
    const upstream = await forward(target, request, request.rawBody);
    const { 'content-encoding': coding, 'content-length': _length, ...headers } = upstream.headers;
    response.status(upstream.status).set(headers);
    const text = decoded(upstream.body, coding).toString('utf8');
    // res.json is what the response validator checks; a bodiless answer is checked as one.
    response.json(text === '' ? undefined : JSON.parse(text));
  };
  app.use((request: Request, response: Response, next: NextFunction) => {
    respond(request, response).catch(next);
  });
  // A request the validator refused: recorded, then passed on all the same.
  app.use(
    (
      error: Error & { status?: number; errors?: Array<{ path: string; message: string }> },
      request: Request,
      response: Response,
      _next: NextFunction,
    ) => {
      if (response.headersSent) return;
      violations.push({
        kind: 'request',
        request: label(request),
        status: error.status,
        messages: error.errors?.map((item) => `${item.path}: ${item.message}`) ?? [error.message],
      });
      respond(request, response).catch((failure: Error) => {
        response.status(599).json({ proxyError: failure.message });
      });
    },
  );

  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    violations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
