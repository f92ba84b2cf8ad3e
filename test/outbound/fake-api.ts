/**
 * A stand-in for the external API: a `node:http` server on 127.0.0.1 with a free port, which
 * records every request's path and headers so tests can check what was (and was not) sent.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export interface FakeApi {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  requests: RecordedRequest[];
  /** Stops the server, cutting any connection a slow handler still holds open. */
  close(): Promise<void>;
}

export type FakeHandler = (request: IncomingMessage, response: ServerResponse) => void;

export async function startFakeApi(handle: FakeHandler): Promise<FakeApi> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    requests.push({ path: request.url ?? '', headers: request.headers });
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers `status` with these bytes, as `application/json` unless the headers say otherwise. */
export function reply(
  body: string | Buffer,
  headers: Record<string, string> = {},
  status = 200,
): FakeHandler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body);
  };
}
