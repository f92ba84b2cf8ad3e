/**
 * Fetches JSON from a URL someone else chose, without letting that URL reach into the network
 * the service runs in: every URL (the first and each redirect) passes `checkOutboundUrl`, and
 * every socket resolves its host through the guarded lookup, which refuses private addresses at
 * connect time. One deadline covers the whole exchange; the body is capped while it streams.
 */
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { quoteText } from '../text';
import type { AllowedHosts } from './allow-hosts';
import { DEFAULT_DEADLINE_MS } from './deadline';
import { OutboundError } from './errors';
import { createGuardedLookup, type ResolveHost } from './guarded-lookup';
import { ACCEPTED_ENCODINGS, readJsonBody } from './response-body';
import { checkOutboundUrl } from './url-rules';

const DEFAULT_MAX_BODY_BYTES = 6 * 1024 * 1024;
const MAX_REDIRECTS = 3;
/**
 * `node:http` is taken as its CommonJS module, not by an ES import: an ES import of a built-in
 * reads every export, and `node:http`'s `WebSocket`, `CloseEvent` and `MessageEvent` are getters
 * that load undici, about 25 ms of CPU at every cold start of the connect function for classes
 * it never uses (`npm run bench:bundle`; docs/deploy.md, "Bundles and cold start").
 */
const { request: httpRequest, STATUS_CODES } = process.getBuiltinModule('node:http');
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** What a bearer token may contain (RFC 6750 allows less; this only keeps header syntax intact). */
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

export interface FetchJsonOptions {
  /** Hosts exempt from the address rules (`readConnectAllowHosts`). Default: none. */
  allowHosts?: AllowedHosts;
  /** Sent as `Authorization: Bearer <token>`, and only to the origin of the URL it was given for. */
  token?: string;
  /** One limit for connecting, headers and body across every redirect, in ms. Default 10 000. */
  deadlineMs?: number;
  /**
   * The URL is one a system kept (a refresh), not one a request brings to be kept: a credential
   * in its query, refused for a new system, does not stop it (`UrlSource` `stored`).
   */
  stored?: boolean;
  /** Most bytes of response body, counted after decoding. Default 6 MiB. */
  maxBodyBytes?: number;
  /** Resolves host names; tests inject one. Default: the system resolver. */
  resolveHost?: ResolveHost;
  /** Wraps the whole fetch, redirects included (the functions' X-Ray subsegment). Default: none. */
  trace?: <T>(url: string, run: () => Promise<T>) => Promise<T>;
  /**
   * Take JSON Lines too: a body that is not one JSON document but one value per line is given
   * back as `JsonLinesText` (its media types, `application/jsonl`, `application/x-ndjson`, … are
   * accepted). Default false.
   */
  jsonLines?: boolean;
  /**
   * Told each URL it is about to fetch, before its check: the first, then every redirect's target
   * (the request log), so one refused is told too.
   */
  onFetch?: (url: string) => void;
}

export interface FetchedJson {
  /** The URL that answered, after redirects, without any fragment. */
  url: string;
  /** The parsed JSON body, or with `jsonLines` the text of a JSON Lines body (`JsonLinesText`). */
  body: unknown;
}

/**
 * GETs `url` and parses its JSON answer, following up to 3 redirects. Throws `OutboundError`:
 * `URL_NOT_ALLOWED` for a URL (or redirect) that breaks a rule or leads to a private address,
 * `UPSTREAM_ERROR` when the server cannot be reached, is too slow, answers non-2xx, sends too
 * much or redirects too often, `UPSTREAM_INVALID` when the answer is not JSON.
 */
export async function fetchJson(url: string, options: FetchJsonOptions = {}): Promise<FetchedJson> {
  const { trace, ...untraced } = options;
  return trace === undefined ? fetchUntraced(url, untraced) : trace(url, () => fetchUntraced(url, untraced));
}

async function fetchUntraced(url: string, options: FetchJsonOptions): Promise<FetchedJson> {
  const allowHosts = options.allowHosts ?? new Set<string>();
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  if (
    // Stryker disable next-line ConditionalExpression: `test(undefined)` tests the text "undefined", which the pattern accepts
    options.token !== undefined &&
    !TOKEN_PATTERN.test(options.token)
  ) {
    // Validating user input is the caller's job, so this is a bug there; the message leaves the token out.
    throw new TypeError('The token must be non-empty printable ASCII without spaces.');
  }
  options.onFetch?.(url);
  const first = checkOutboundUrl(url, allowHosts, options.stored === true ? 'stored' : 'request');
  const deadline = AbortSignal.timeout(deadlineMs);
  const lookup = createGuardedLookup(allowHosts, options.resolveHost);
  const hop = { url: first, redirects: 0 };
  let response: IncomingMessage | undefined;
  try {
    let token = options.token;
    for (;;) {
      const server = describeServer(hop);
      response = await get(hop.url, { headers: requestHeaders(token), lookup, signal: deadline });
      const statusCode = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(statusCode)) {
        response.destroy();
        if (hop.redirects === MAX_REDIRECTS) {
          throw new OutboundError(
            'UPSTREAM_ERROR',
            `The URL redirected more than ${MAX_REDIRECTS} times; send the URL the redirects end at.`,
          );
        }
        const target = redirectTarget(hop.url, response.headers.location);
        options.onFetch?.(target.href);
        const next = checkOutboundUrl(
          target,
          allowHosts,
          // Stryker disable next-line StringLiteral: every source other than 'request' is read as a redirect
          'redirect',
        );
        // Once the token would go to another origin it is gone for good, even if a later hop comes back.
        if (next.origin !== hop.url.origin) token = undefined;
        hop.url = next;
        hop.redirects += 1;
        continue;
      }
      if (statusCode < 200 || statusCode > 299) {
        response.destroy();
        throw new OutboundError(
          'UPSTREAM_ERROR',
          `${capitalize(server)} answered ${describeStatus(statusCode)}.`,
        );
      }
      const body = await readJsonBody(
        { headers: response.headers, body: response },
        {
          maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
          signal: deadline,
          server,
          jsonLines: options.jsonLines === true,
        },
      );
      return { url: withoutFragment(hop.url), body };
    }
  } catch (error) {
    throw asOutboundError(error, describeServer(hop), deadline, deadlineMs);
  } finally {
    // No connection outlives the call: each request has its own socket (`agent: false`).
    response?.destroy();
  }
}

interface GetOptions {
  headers: Record<string, string>;
  /** Every socket resolves its host through this (the guard); IP literals were checked by URL. */
  lookup: LookupFunction;
  signal: AbortSignal;
}

/** One GET on a socket of its own, resolving once the status line and headers are in. */
function get(url: URL, options: GetOptions): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      {
        // Stryker disable next-line StringLiteral: Node sends GET for an empty method too
        method: 'GET',
        headers: options.headers,
        lookup: options.lookup,
        signal: options.signal,
        agent: false,
      },
      resolve,
    );
    outgoing.on('error', reject);
    // A 101 (or any upgrade) answer emits neither 'response' nor 'error', only 'close': without
    // this the call would outlive its deadline. Rejecting after resolving changes nothing.
    outgoing.on('close', () =>
      reject(
        new OutboundError('UPSTREAM_ERROR', 'The server switched protocols instead of answering with JSON.'),
      ),
    );
    outgoing.end();
  });
}

function requestHeaders(token: string | undefined): Record<string, string> {
  return {
    accept: 'application/json',
    'accept-encoding': ACCEPTED_ENCODINGS,
    'user-agent': 'system-behavior-engine',
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
}

/** The next URL, resolved against the current one as browsers do. Always fetched with GET. */
function redirectTarget(current: URL, location: string | string[] | undefined): URL {
  // Stryker disable next-line MethodExpression: the HTTP parser strips spaces around a header value, so a Location of spaces arrives empty
  if (typeof location !== 'string' || location.trim() === '') {
    throw new OutboundError(
      'UPSTREAM_ERROR',
      'The server answered with a redirect but no single Location to follow.',
    );
  }
  try {
    // Stryker disable next-line MethodExpression: the URL parser strips leading and trailing spaces itself
    return new URL(location.trim(), current);
  } catch {
    throw new OutboundError('UPSTREAM_ERROR', 'The server redirected to a Location that is not a valid URL.');
  }
}

/**
 * The answering server, for messages. The first host is the caller's own; a redirect's host was
 * written by the remote server, which may have been sent the token, so it is not repeated.
 */
function describeServer(hop: { url: URL; redirects: number }): string {
  return hop.redirects === 0 ? `the server at ${quoteText(hop.url.host)}` : 'the server it redirected to';
}

function describeStatus(status: number): string {
  const reason = STATUS_CODES[status];
  return reason === undefined ? `HTTP status ${status}` : `${status} ${reason}`;
}

function withoutFragment(url: URL): string {
  const copy = new URL(url);
  copy.hash = '';
  return copy.href;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Any failure as an `OutboundError`. Network errors are described by their code only: their
 * messages and properties come from sockets and the remote server, and are not passed on.
 */
function asOutboundError(
  error: unknown,
  server: string,
  deadline: AbortSignal,
  deadlineMs: number,
): OutboundError {
  if (error instanceof OutboundError) return error;
  if (deadline.aborted) {
    return new OutboundError(
      'UPSTREAM_ERROR',
      `${capitalize(server)} did not send a complete answer within ${deadlineMs} ms.`,
    );
  }
  // Stryker disable next-line OptionalChaining: sockets, the resolver and the body reader reject with Errors, never undefined
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') {
    return new OutboundError('UPSTREAM_ERROR', `The host name of ${server} could not be resolved (${code}).`);
  }
  if (
    // Stryker disable next-line ConditionalExpression: `test` reads a non-string as its text, which never starts with a capital
    typeof code !== 'string' ||
    !/^[A-Z][A-Z0-9_]*$/.test(code)
  ) {
    return new OutboundError('UPSTREAM_ERROR', `Could not get an answer from ${server}.`);
  }
  const words = NETWORK_ERROR_WORDS[code];
  return new OutboundError(
    'UPSTREAM_ERROR',
    `Could not get an answer from ${server}: ${words === undefined ? code : `${words} (${code})`}.`,
  );
}

/** The network failures people meet most, in words; any other code (TLS ones included) is shown as is. */
const NETWORK_ERROR_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'connecting timed out',
};
