/**
 * The OpenAPI 3.1 document of the engine API, built from the zod schemas in ./schemas so the
 * document and the validation cannot say different things. Examples are produced by running
 * the real engine and the real request parser, so they cannot go stale either.
 * `npm run openapi` writes it to openapi.json; `GET /api/openapi.json` serves it.
 */
import * as z from 'zod';
import { DEFAULT_LIMITS, type Limits } from '../config/limits';
import { analyze, tick, ticks } from '../engine';
import { OPEN_WORKED_EXAMPLE, WORKED_EXAMPLE } from '../worked-example';
import { answerCannotFit } from './answer-floor';
import { invalidApiKey, invalidToken, missingApiKey, missingToken } from './auth-errors';
import { parseEngineRequest } from './engine-request';
import { renderEngineResponse } from './engine-response';
import {
  ApiError,
  classifyFailure,
  ENGINE_ERROR_MESSAGE,
  type ErrorBody,
  errorBody,
  quotaExceeded,
  SYSTEM_NOT_FOUND_DETAIL,
  SYSTEM_NOT_FOUND_MESSAGE,
  serviceUnavailable,
} from './errors';
import { parseJsonRequestBody, REQUEST_CODINGS } from './request-body';
import { WHOLE_SYSTEM_ADVICE } from './response-size';
import { stoppedMessage } from './run-deadline';
import { apiSchemaRegistry } from './schema-registry';
// Each of these registers its named schemas when loaded: the engine's in ./schemas, the small
// request bodies beside the code that checks them.
import './connect-request';
import './key-request';
import './schemas';

const API_VERSION = '0.1.0';
const SCHEMA_REF_PREFIX = '#/components/schemas/';
const ref = (id: string) => ({ $ref: `${SCHEMA_REF_PREFIX}${id}` });
/** A JSON body of a named schema. */
const json = (schema: string) => ({ 'application/json': { schema: ref(schema) } });

type JsonObject = Record<string, unknown>;

/** The local server's default address (`npm start`; `PORT` changes the port). */
const LOCAL_SERVER_URL = 'http://127.0.0.1:3000';

/**
 * API Gateway's own answers carry `{"message": …}`, not the service's error body: its throttle
 * (429), a body over its 10 MB payload limit (413), a function that failed without answering
 * (500) or did not answer in time (503).
 */
const GATEWAY_MESSAGE = 'GatewayMessage';
const GATEWAY_MESSAGE_SCHEMA = {
  type: 'object',
  properties: { message: { type: 'string', examples: ['Too Many Requests'] } },
  required: ['message'],
  description:
    "An answer API Gateway gives itself, before or instead of the function's: `Too Many Requests` (429), " +
    '`Request Entity Too Large` (413), `Internal Server Error` (500), `Service Unavailable` (503).',
};

/** `Content-Encoding` as the request-body reader takes it: a list of codings, any case, `identity` skipped. */
function contentEncodingPattern(): string {
  const caseless = (word: string) =>
    [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');
  const coding = `(?:${['x-gzip', ...REQUEST_CODINGS, 'identity'].map(caseless).join('|')})`;
  return `^[ \\t]*${coding}?(?:[ \\t]*,[ \\t]*${coding}?)*[ \\t]*$`;
}

const CONTENT_ENCODING_PARAMETER = {
  name: 'Content-Encoding',
  in: 'header',
  required: false,
  description:
    `How the body is compressed: ${REQUEST_CODINGS.join(', ')} (zlib or raw deflate), or a list of them in the ` +
    'order applied (undone from the last); `identity` is skipped. Send a compressed body as ' +
    '`application/octet-stream`: API Gateway passes text types on as text, which breaks compressed bytes. Any ' +
    'other coding: 415.',
  schema: { type: 'string', pattern: contentEncodingPattern() },
};

/**
 * A JSON request body, in every form the body reader (lib/api/request-body.ts) takes: JSON as
 * `application/json`, as any text type, or as bytes with any other or no `Content-Type` (curl's
 * `-d` sends `application/x-www-form-urlencoded`), those bytes optionally compressed.
 */
function jsonRequestBody(schema: JsonObject, examples?: JsonObject): JsonObject {
  return {
    required: true,
    description:
      'JSON, UTF-8, at most 6 MB as sent (a deployment may set less) and 64 MiB decompressed. The ' +
      '`Content-Type` only decides how API Gateway hands the bytes on: `application/json` and `text/*` as ' +
      'text, anything else (or none) as binary, which is the only form a compressed body survives. The ' +
      'service reads JSON from all of them.',
    content: {
      'application/json': { schema, ...(examples === undefined ? {} : { examples }) },
      'text/plain': {
        schema: {
          type: 'string',
          contentMediaType: 'application/json',
          contentSchema: schema,
          description: 'The same JSON, sent as text (any `text/*` type).',
        },
      },
      'application/octet-stream': {
        schema: bytes('The same JSON as bytes, compressed as `Content-Encoding` says, or plain.'),
      },
      // What curl's plain `-d` sends (`application/x-www-form-urlencoded`), or any other type or
      // none: read as bytes, like application/octet-stream.
      '*/*': {
        schema: bytes('Any other `Content-Type`, or none: read as bytes, like `application/octet-stream`.'),
      },
    },
  };
}

/** A body of JSON bytes, maybe compressed. */
function bytes(description: string): JsonObject {
  return { type: 'string', contentMediaType: 'application/json', description };
}

const RESPONSE_REF_PREFIX = '#/components/responses/';
const responseRef = (name: SharedResponse) => ({ $ref: `${RESPONSE_REF_PREFIX}${name}` });

type SharedResponse =
  | 'TooManyRequests'
  | 'ServerError'
  | 'ServiceUnavailable'
  | 'PayloadTooLarge'
  | 'UnsupportedContentEncoding'
  | 'UserTokenRequired'
  | 'SystemNotFound';

/** Answers several operations share, written once under `components.responses`. */
function sharedResponses(): Record<SharedResponse, JsonObject> {
  return {
    TooManyRequests: {
      description:
        "API Gateway's throttle: the route's rate or burst limit was reached (the stage's " +
        "`throttleRateLimit`, `throttleBurstLimit`, or the costly routes' own `engineThrottle…`, " +
        '`connectThrottle…` in docs/deploy.md). Not sent by the local server. Retry with backoff.',
      content: {
        'application/json': {
          schema: ref(GATEWAY_MESSAGE),
          examples: { throttled: example('The stage throttle', { message: 'Too Many Requests' }) },
        },
      },
    },
    ServerError: serverError(
      "`INTERNAL_ERROR`: the service failed unexpectedly (logged, never described). Or API Gateway's " +
        '`{"message": "Internal Server Error"}` when the function failed without answering.',
      {
        INTERNAL_ERROR: example('unexpected failure', errorBody(classifyFailure(new Error('example')).error)),
      },
    ),
    ServiceUnavailable: {
      description:
        'The service cannot answer now: its table is throttled or failing after retries ' +
        "(`SERVICE_UNAVAILABLE`, with `Retry-After`), or API Gateway's own `Service Unavailable`. Retry later.",
      headers: {
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string' } },
      },
      content: {
        'application/json': {
          schema: { oneOf: [ref('ErrorBody'), ref(GATEWAY_MESSAGE)] },
          examples: {
            SERVICE_UNAVAILABLE: example('storage throttled', errorBody(serviceUnavailable())),
          },
        },
      },
    },
    PayloadTooLarge: payloadTooLarge(
      'The body is larger than the limit, as sent or decoded (`LIMIT_EXCEEDED`).',
      {},
    ),
    UnsupportedContentEncoding: errorResponse(
      "The body's `Content-Encoding` is not one the service can undo (gzip, br and deflate are); the " +
        'response says which in `Accept-Encoding`.',
      {
        UNSUPPORTED_CONTENT_ENCODING: example(
          'body compressed with zstd',
          bodyError('(zstd bytes)', { contentEncoding: 'zstd' }),
        ),
      },
      {
        'Accept-Encoding': { description: 'The codings a request body may use.', schema: { type: 'string' } },
      },
    ),
    UserTokenRequired: errorResponse(
      'No `Authorization: Bearer <USER_ACCESS_TOKEN>` (`MISSING_TOKEN`), or a token that is not a valid access ' +
        'token of this service: expired, not yet valid, another issuer or client, an id token, a bad signature ' +
        '(`INVALID_TOKEN`).',
      {
        MISSING_TOKEN: example('no token', errorBody(missingToken(false))),
        INVALID_TOKEN: example('expired token', errorBody(invalidToken())),
      },
      {
        'WWW-Authenticate': {
          description: '`Bearer`, with `error="invalid_token"` for an invalid token.',
          schema: { type: 'string' },
        },
      },
    ),
    SystemNotFound: errorResponse(
      "You have no system with this id (`SYSTEM_NOT_FOUND`); another user's system looks the same.",
      {},
    ),
  };
}

/** The 409 of a route that adds to an owner's quota. */
function quotaError(...quotas: Array<Parameters<typeof quotaExceeded>[0]>): JsonObject {
  const defaults = { systems: 100, keys: 20, bytes: 1024 ** 3 };
  return errorResponse(
    'One more than your quota (`QUOTA_EXCEEDED`): the message names the limit and how to make room.',
    Object.fromEntries(
      quotas.map((quota) => [
        `QUOTA_EXCEEDED_${quota}`,
        example(`${quota} quota`, errorBody(quotaExceeded(quota, defaults[quota]))),
      ]),
    ),
  );
}

/** The answers every operation can get, from the service or from API Gateway in front of it. */
function commonResponses(): JsonObject {
  return {
    '429': responseRef('TooManyRequests'),
    '500': responseRef('ServerError'),
    '503': responseRef('ServiceUnavailable'),
  };
}

/** A 413: the service's limit, or API Gateway's own for a body over 10 MB. */
function payloadTooLarge(limitDescription: string, examples: JsonObject): JsonObject {
  return {
    description: `${limitDescription} API Gateway itself refuses a body over 10 MB with its own \`Request Entity Too Large\`.`,
    content: {
      'application/json': { schema: { oneOf: [ref('ErrorBody'), ref(GATEWAY_MESSAGE)] }, examples },
    },
  };
}

/** A 500: the service's error body, or API Gateway's when the function failed without answering. */
function serverError(description: string, examples: JsonObject): JsonObject {
  return {
    description,
    content: {
      'application/json': { schema: { oneOf: [ref('ErrorBody'), ref(GATEWAY_MESSAGE)] }, examples },
    },
  };
}

/** The answers of every operation with a JSON body: too large (service or gateway), an unknown coding. */
function bodyResponses(limit?: { description: string; examples: JsonObject }): JsonObject {
  return {
    '413':
      limit === undefined
        ? responseRef('PayloadTooLarge')
        : payloadTooLarge(limit.description, limit.examples),
    '415': responseRef('UnsupportedContentEncoding'),
  };
}

/**
 * An operation that takes a JSON body: the body in every accepted form, `Content-Encoding`, and
 * the body's own error answers besides the operation's.
 */
function withJsonBody(
  operation: JsonObject & { responses: JsonObject },
  body: { schema: JsonObject; examples?: JsonObject; limit?: { description: string; examples: JsonObject } },
): JsonObject {
  const { responses, parameters, ...rest } = operation;
  return {
    ...rest,
    parameters: [...((parameters as unknown[] | undefined) ?? []), CONTENT_ENCODING_PARAMETER],
    requestBody: jsonRequestBody(body.schema, body.examples),
    responses: {
      ...bodyResponses(body.limit),
      ...responses,
    },
  };
}

/** The request bodies checked by zod schemas that strip unknown keys (and what they hold). */
const REQUEST_SCHEMAS = [
  'ConnectRequest',
  'CreateKeyRequest',
  'PatchSystemRequest',
  'RefreshRequest',
  'RegisterSystemRequest',
  'SystemSettings',
];

/** Removes every `additionalProperties: false` inside a schema. */
function allowExtraProperties(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) allowExtraProperties(item);
  } else if (typeof schema === 'object' && schema !== null) {
    const object = schema as JsonObject;
    if (object.additionalProperties === false) delete object.additionalProperties;
    for (const value of Object.values(object)) allowExtraProperties(value);
  }
}

/** The named schemas, as JSON Schema 2020-12 (OpenAPI 3.1's dialect), sorted by name. */
function componentSchemas(): JsonObject {
  const { schemas } = z.toJSONSchema(apiSchemaRegistry, {
    target: 'draft-2020-12',
    uri: (id) => `${SCHEMA_REF_PREFIX}${id}`,
  });
  // Requests are described as the service takes them: their schemas drop unknown keys rather
  // than refuse them, so the document allows them there. Answers stay closed: a field the
  // service sends that the document does not list is a difference the validator test catches.
  for (const name of REQUEST_SCHEMAS) allowExtraProperties(schemas[name]);
  const all: JsonObject = { ...schemas, [GATEWAY_MESSAGE]: GATEWAY_MESSAGE_SCHEMA };
  const sorted: JsonObject = {};
  for (const name of Object.keys(all).sort()) {
    // Each schema would otherwise carry its own `$schema` and an `$id` equal to its location;
    // inside an OpenAPI document both are noise.
    const { $schema: _dialect, $id: _id, ...schema } = all[name] as JsonObject;
    sorted[name] = schema;
  }
  return sorted;
}

/** The error body `run` really produces: examples come from the code that throws, never from copies. */
function thrownError(run: () => unknown): ErrorBody {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return errorBody(error);
    throw error;
  }
  throw new Error('the example request was accepted');
}

/** The error body `parseEngineRequest` really produces for `body`. */
function parserError(body: unknown, limits: Limits = DEFAULT_LIMITS): ErrorBody {
  return thrownError(() => parseEngineRequest(body, limits));
}

/** The error body the request-body reader really produces for these bytes and headers. */
function bodyError(body: string, options: { maxBytes?: number; contentEncoding?: string } = {}): ErrorBody {
  return thrownError(() =>
    parseJsonRequestBody(body, {
      maxBytes: options.maxBytes ?? DEFAULT_LIMITS.maxBodyBytes,
      maxDecodedBytes: DEFAULT_LIMITS.maxDecodedBodyBytes,
      contentEncoding: options.contentEncoding,
    }),
  );
}

/** The 200 body the service really gives for `body`, parsed. */
function answerTo(body: unknown): unknown {
  return JSON.parse(renderEngineResponse(parseEngineRequest(body, DEFAULT_LIMITS)));
}

/** What if the front end's arrivals double? The open worked example, scaled by 2, compared. */
const WHAT_IF_ARRIVALS = { mode: 'analyze', ...OPEN_WORKED_EXAMPLE, scenario: { scale: 2 }, compare: true };

function example(summary: string, value: unknown) {
  return { summary, value };
}

function errorResponse(description: string, examples: JsonObject, headers?: JsonObject): JsonObject {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: ref('ErrorBody'), examples } },
  };
}

function engineResponses(): JsonObject {
  return {
    '200': {
      description:
        'The result for the mode. The same request body always gives a byte-identical body. The body ' +
        'is compressed (`Content-Encoding: gzip` or `br`) when the `Accept-Encoding` header allows it.',
      content: {
        'application/json': {
          schema: { oneOf: [ref('AnalyzeResponse'), ref('TickResponse'), ref('TicksResponse')] },
          examples: {
            analyze: example('The worked example, mode analyze', {
              mode: 'analyze',
              engine: analyze(WORKED_EXAMPLE),
            }),
            tick: example('The worked example, mode tick', { mode: 'tick', snapshot: tick(WORKED_EXAMPLE) }),
            ticks: example('The worked example, mode ticks with ticks 3', {
              mode: 'ticks',
              ticks: 3,
              snapshots: ticks(WORKED_EXAMPLE, 3),
            }),
            whatIf: example(
              "A scenario with compare: the open worked example with the front end's arrivals doubled",
              answerTo(WHAT_IF_ARRIVALS),
            ),
          },
        },
      },
    },
    '400': errorResponse('`mode` or `ticks` is invalid (checks 5 and 6).', {
      INVALID_MODE: example(
        'mode not one of analyze, tick, ticks',
        parserError({ mode: 'simulate', ...WORKED_EXAMPLE }),
      ),
      INVALID_MODE_missing: example('mode missing', parserError({ ...WORKED_EXAMPLE })),
      INVALID_TICKS: example(
        'ticks out of range',
        parserError({ mode: 'ticks', ticks: 0, ...WORKED_EXAMPLE }),
      ),
    }),
    '401': errorResponse(
      'No `Authorization` header, or not of the form `Bearer <API key>` (check 1).',
      {
        MISSING_API_KEY: example('no key', errorBody(missingApiKey(false))),
      },
      {
        'WWW-Authenticate': { description: 'Always `Bearer`.', schema: { type: 'string', const: 'Bearer' } },
      },
    ),
    '403': errorResponse('The API key is unknown, revoked or inactive (check 2).', {
      INVALID_API_KEY: example('unknown key', errorBody(invalidApiKey())),
    }),
    '404': errorResponse(
      '`systemId` names none of the systems registered by the API key owner (`SYSTEM_NOT_FOUND`).',
      {
        SYSTEM_NOT_FOUND: example(
          'unknown system',
          errorBody(
            new ApiError('SYSTEM_NOT_FOUND', SYSTEM_NOT_FOUND_MESSAGE, {
              details: [{ path: 'systemId', message: SYSTEM_NOT_FOUND_DETAIL }],
            }),
          ),
        ),
      },
    ),
    '500': serverError(
      '`PAYLOAD_ERROR`: the body is not JSON or not a JSON object (check 4), no structure was found, or ' +
        'a node or dependency is invalid (check 7); the message names the element. `ENGINE_ERROR`: the ' +
        'engine failed (check 9). `INTERNAL_ERROR`: anything else unexpected. API Gateway answers its own ' +
        '`{"message": "Internal Server Error"}` when the function failed without answering.',
      {
        PAYLOAD_ERROR_not_json: example('body is not JSON', bodyError('{"mode": "analyze",}')),
        PAYLOAD_ERROR_not_object: example('body is a JSON array', parserError([WORKED_EXAMPLE])),
        PAYLOAD_ERROR_no_structure: example(
          'no nodes anywhere',
          parserError({ mode: 'analyze', payload: {} }),
        ),
        PAYLOAD_ERROR_element: example(
          'dependency to a node that does not exist',
          parserError({
            mode: 'analyze',
            nodes: WORKED_EXAMPLE.nodes,
            dependencies: [...WORKED_EXAMPLE.dependencies, { from: 'C', to: 'Z' }],
          }),
        ),
        PAYLOAD_ERROR_scenario: example(
          'a scenario field out of range',
          parserError({ mode: 'analyze', ...WORKED_EXAMPLE, scenario: { nodes: { B: { capacity: 'x' } } } }),
        ),
        PAYLOAD_ERROR_scenario_dependency: example(
          'a scenario naming a dependency the structure does not have',
          parserError({
            mode: 'analyze',
            ...WORKED_EXAMPLE,
            scenario: { dependencies: [{ from: 'C', to: 'A', cut: true }] },
          }),
        ),
        PAYLOAD_ERROR_compare: example(
          'compare without a scenario',
          parserError({ mode: 'analyze', ...WORKED_EXAMPLE, compare: true }),
        ),
        ENGINE_ERROR: example(
          'engine failure',
          errorBody(new ApiError('ENGINE_ERROR', ENGINE_ERROR_MESSAGE)),
        ),
        INTERNAL_ERROR: example('unexpected failure', errorBody(classifyFailure(new Error('example')).error)),
      },
    ),
  };
}

/** The 413 examples of the engine route: each limit, worded by the code that enforces it. */
function engineLimitExamples(): JsonObject {
  const manyNodes = { nodes: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], dependencies: [] };
  const twoNodes: Limits = { ...DEFAULT_LIMITS, maxNodes: 2 };
  const thousandElements: Limits = { ...DEFAULT_LIMITS, maxResponseElements: 1000 };
  return {
    LIMIT_EXCEEDED_body: example(
      'body larger than the request limit (on a deployment with MAX_BODY_BYTES=16)',
      bodyError(JSON.stringify({ mode: 'analyze', ...WORKED_EXAMPLE }), { maxBytes: 16 }),
    ),
    LIMIT_EXCEEDED_nodes: example(
      'too many nodes (on a deployment with MAX_NODES=2)',
      parserError({ mode: 'analyze', ...manyNodes }, twoNodes),
    ),
    LIMIT_EXCEEDED_ticks: example(
      'timeline too large (on a deployment with MAX_RESPONSE_ELEMENTS=1000)',
      parserError({ mode: 'ticks', ticks: 1000, ...WORKED_EXAMPLE }, thousandElements),
    ),
    LIMIT_EXCEEDED_answer: example(
      'an answer that could not fit uncompressed, refused before the run (a client sending no Accept-Encoding, on a deployment with MAX_RESPONSE_BYTES=16384)',
      errorBody(
        new ApiError(
          'LIMIT_EXCEEDED',
          answerCannotFit(
            parseEngineRequest({ mode: 'ticks', ticks: 1000, ...WORKED_EXAMPLE }, DEFAULT_LIMITS),
            [],
            { maxResponseBytes: 16 * 1024 },
          )!,
        ),
      ),
    ),
    LIMIT_EXCEEDED_time: example(
      'a run that could not finish before the function times out (stopped in time to say so)',
      errorBody(new ApiError('LIMIT_EXCEEDED', stoppedMessage(15_000, { mode: 'ticks' }))),
    ),
  };
}

/**
 * Every GET operation also answers HEAD (the route table derives one from the other): the same
 * parameters, security and statuses with their headers, never a body.
 */
function withHeadOperations(paths: Record<string, JsonObject>): Record<string, JsonObject> {
  const shared = sharedResponses();
  const result: Record<string, JsonObject> = {};
  for (const [path, operations] of Object.entries(paths)) {
    const get = operations.get as (JsonObject & { responses: Record<string, JsonObject> }) | undefined;
    if (get === undefined) {
      result[path] = operations;
      continue;
    }
    const responses: Record<string, JsonObject> = {};
    for (const [status, response] of Object.entries(get.responses)) {
      // A shared answer is named, not repeated: its headers are kept, its body left out.
      const ref =
        typeof response.$ref === 'string' ? response.$ref.slice(RESPONSE_REF_PREFIX.length) : undefined;
      const {
        content: _body,
        description,
        ...headers
      } = ref === undefined ? response : shared[ref as SharedResponse];
      responses[status] = {
        description:
          ref === undefined
            ? `${String(description)} As for GET, without the body.`
            : `As for GET (\`${ref}\`), without the body.`,
        ...headers,
      };
    }
    result[path] = {
      ...operations,
      head: {
        operationId: `${String(get.operationId)}Head`,
        summary: `The status and headers of GET: ${String(get.summary).charAt(0).toLowerCase()}${String(get.summary).slice(1)}`,
        security: get.security,
        ...(get.parameters === undefined ? {} : { parameters: get.parameters }),
        responses,
      },
    };
  }
  return result;
}

/** Adds the answers every operation can get (429, 500, 503) to each, keeping its own 500. */
function withCommonResponses(paths: Record<string, JsonObject>): Record<string, JsonObject> {
  const result: Record<string, JsonObject> = {};
  for (const [path, operations] of Object.entries(paths)) {
    result[path] = Object.fromEntries(
      Object.entries(operations).map(([method, operation]) => {
        const { responses, ...rest } = operation as JsonObject & { responses: JsonObject };
        return [method, { ...rest, responses: { ...commonResponses(), ...responses } }];
      }),
    );
  }
  return result;
}

/** The 401s of every user-token route, worded by the code that throws them. */
function userTokenErrors(): JsonObject {
  return { '401': responseRef('UserTokenRequired') };
}

function systemPaths(): JsonObject {
  const idParameter = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
  const notFound = responseRef('SystemNotFound');
  return {
    '/api/connect': {
      post: withJsonBody(
        {
          operationId: 'connectSystem',
          summary: 'Register an external API as a system: fetch its nodes and dependencies and store them',
          security: [{ userToken: [] }],
          responses: {
            '201': { description: 'The system, registered for you.', content: json('ConnectedSystem') },
            '200': {
              description: 'A dry run (`dryRun: true`): what a registration would store, nothing stored.',
              content: json('ConnectDryRun'),
            },
            '400': errorResponse(
              '`name`, `url` or `auth` invalid (`INVALID_REQUEST`), or a URL the service may not fetch: not http(s), ' +
                'userinfo, a refused port, or a host that is or resolves to a non-public address (`URL_NOT_ALLOWED`).',
              {},
            ),
            '422': errorResponse(
              'The external API answered, but not with a graph the service can read (`UPSTREAM_INVALID`): not ' +
                'JSON, no format fits (the formats tried are listed), or an invalid element, named by its path.',
              {},
            ),
            '409': quotaError('systems', 'bytes'),
            '502': errorResponse(
              'The external API could not be used (`UPSTREAM_ERROR`): unreachable, slower than 10 s, a non-2xx ' +
                'answer, more than 64 MiB decoded, or more than 3 redirects.',
              {},
            ),
            ...userTokenErrors(),
          },
        },
        { schema: ref('ConnectRequest') },
      ),
    },
    '/api/systems': {
      post: withJsonBody(
        {
          operationId: 'registerSystem',
          summary: 'Register a system from a document you send (any format connect reads)',
          security: [{ userToken: [] }],
          responses: {
            '201': { description: 'The system, registered for you.', content: json('ConnectedSystem') },
            '400': errorResponse('`name`, `format`, `url` or `document` invalid (`INVALID_REQUEST`).', {}),
            '422': errorResponse(
              'The document is not a graph the service can read (`UPSTREAM_INVALID`), as for connect.',
              {},
            ),
            '409': quotaError('systems', 'bytes'),
            ...userTokenErrors(),
          },
        },
        { schema: ref('RegisterSystemRequest') },
      ),
      get: {
        operationId: 'listSystems',
        summary: 'Your systems, newest first, a page at a time',
        security: [{ userToken: [] }],
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
          { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'From the previous page.' },
        ],
        responses: {
          '200': { description: 'A page of your systems.', content: json('SystemList') },
          '400': errorResponse('A bad `limit` or `cursor` (`INVALID_REQUEST`).', {}),
          ...userTokenErrors(),
        },
      },
    },
    '/api/systems/{id}/refresh': {
      post: withJsonBody(
        {
          operationId: 'refreshSystem',
          summary:
            "Fetch a system's URL again and replace its structure, only when the new one is whole and valid",
          security: [{ userToken: [] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description:
                'The system, its structure replaced (`version` one more, `refreshedAt` now), with the settings ' +
                'as the head was when the refresh replaced the structure, and their `ETag`.',
              content: json('ConnectedSystem'),
              headers: { ETag: settingsETagHeader },
            },
            '400': errorResponse(
              '`auth` invalid, a system registered from a document (no URL to fetch), or a URL the service may ' +
                'not fetch (`INVALID_REQUEST`, `URL_NOT_ALLOWED`).',
              {},
            ),
            '404': notFound,
            '409': errorResponse(
              'The system was deleted or refreshed meanwhile (`SYSTEM_CHANGED`), or the new structure would take ' +
                'you past your stored-bytes quota (`QUOTA_EXCEEDED`); nothing was replaced.',
              { QUOTA_EXCEEDED_bytes: example('bytes quota', errorBody(quotaExceeded('bytes', 1024 ** 3))) },
            ),
            '422': errorResponse(
              'The answer is not a graph the service can read (`UPSTREAM_INVALID`); nothing changed.',
              {},
            ),
            '502': errorResponse(
              'The external API could not be used (`UPSTREAM_ERROR`); nothing changed.',
              {},
            ),
            ...userTokenErrors(),
          },
        },
        { schema: ref('RefreshRequest') },
      ),
    },
    '/api/systems/{id}': {
      get: {
        operationId: 'getSystem',
        summary: 'One of your systems, with its structure',
        security: [{ userToken: [] }],
        parameters: idParameter,
        responses: {
          '200': {
            description:
              'The system and its structure, whole: compressed (`Content-Encoding: gzip` or `br`) when the ' +
              '`Accept-Encoding` header allows it, as a full-size system (some 20 MB of JSON) needs.',
            headers: { ETag: settingsETagHeader },
            content: json('SystemWithStructure'),
          },
          '404': notFound,
          '413': errorResponse(
            'The system is larger than the response limit (6 MiB) as the client takes it: uncompressed ' +
              'without `Accept-Encoding`, or even compressed (`LIMIT_EXCEEDED`).',
            {
              LIMIT_EXCEEDED: example(
                'no Accept-Encoding, a full-size system',
                errorBody(
                  new ApiError(
                    'LIMIT_EXCEEDED',
                    `The result is larger than the response limit of 6291456 bytes. Send \`Accept-Encoding: br, gzip\` to receive it compressed, or ${WHOLE_SYSTEM_ADVICE}.`,
                  ),
                ),
              ),
            },
          ),
          ...userTokenErrors(),
        },
      },
      patch: withJsonBody(
        {
          operationId: 'updateSystemSettings',
          summary:
            "Set a system's capacities and arrivals (replacing the ones before), applied on every engine run",
          security: [{ userToken: [] }],
          description:
            'Writes the settings only: a refresh running meanwhile keeps them, and they keep its structure; ' +
            'they are written only onto the structure they were checked against. ' +
            'With `If-Match` (the `ETag` a GET or PATCH answered), the write applies only while the settings ' +
            'are still those, else 412; with `If-None-Match`, only while they are none of the tags it lists ' +
            '(`*`: never), else 412; without either the last PATCH wins.',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            {
              name: 'If-Match',
              in: 'header',
              required: false,
              description:
                "The settings' `ETag` as last read: write only if they are still those; `*`: write whatever settings the system has now (404 once it is deleted).",
              schema: { type: 'string' },
            },
            {
              name: 'If-None-Match',
              in: 'header',
              required: false,
              description:
                '`ETag`s the settings must not be (compared weakly): write only if they are none of them; `*`: never (any settings match it, none included: they have a tag too).',
              schema: { type: 'string' },
            },
          ],
          responses: {
            '200': {
              description: 'The system with its new settings.',
              headers: { ETag: settingsETagHeader },
              content: json('System'),
            },
            '400': errorResponse(
              'A bad setting, an unknown field, one naming a node the structure does not hold, one the ' +
                'structure contradicts, or settings with which runs of the system cannot answer (a service ' +
                'time whose p99 is past a double; found by running the system with them) ' +
                '(`INVALID_REQUEST`, naming the path, e.g. `settings.nodes.<id>.serviceTime`, or `settings`).',
              {},
            ),
            '404': notFound,
            '409': errorResponse(
              'Refreshes kept replacing the structure between the check of the settings and their write ' +
                '(`SYSTEM_CHANGED`); nothing was written: try again.',
              {},
            ),
            '412': errorResponse(
              'The settings changed since the `ETag` in `If-Match` was read, or are one `If-None-Match` lists, ' +
                'or other PATCHes kept changing them (three times) between the read and the write of one that ' +
                'waits for the settings it read (`If-None-Match`, or entries a refresh kept sent back) ' +
                '(`PRECONDITION_FAILED`); nothing was written.',
              {},
            ),
            ...userTokenErrors(),
          },
        },
        { schema: ref('PatchSystemRequest') },
      ),
      delete: {
        operationId: 'deleteSystem',
        summary: 'Delete one of your systems',
        security: [{ userToken: [] }],
        parameters: idParameter,
        responses: { '204': { description: 'Deleted.' }, '404': notFound, ...userTokenErrors() },
      },
    },
  };
}

/** The ETag of a system's settings, which a PATCH may send back in `If-Match`. */
const settingsETagHeader = {
  description:
    "The settings' entity tag: it changes with every settings PATCH, never with a refresh. Send it back in `If-Match`.",
  schema: { type: 'string' },
};

function keyPaths(): JsonObject {
  return {
    '/api/keys': {
      post: withJsonBody(
        {
          operationId: 'createKey',
          summary: 'Create an API key that acts for you; the key is shown once',
          security: [{ userToken: [] }],
          responses: {
            '201': { description: 'The new key, shown this once.', content: json('CreatedApiKey') },
            '400': errorResponse('`name` missing or invalid (`INVALID_REQUEST`).', {}),
            '409': quotaError('keys'),
            ...userTokenErrors(),
          },
        },
        { schema: ref('CreateKeyRequest') },
      ),
      get: {
        operationId: 'listKeys',
        summary: 'Your API keys, oldest first (never the keys themselves)',
        security: [{ userToken: [] }],
        responses: {
          '200': { description: 'Your keys.', content: json('ApiKeyList') },
          ...userTokenErrors(),
        },
      },
    },
    '/api/keys/{id}': {
      delete: {
        operationId: 'revokeKey',
        summary: 'Revoke one of your API keys',
        security: [{ userToken: [] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '204': { description: 'Revoked (revoking twice is fine). Honoured everywhere within a minute.' },
          '404': errorResponse(
            "You have no key with this id (`KEY_NOT_FOUND`); another user's key looks the same.",
            {},
          ),
          ...userTokenErrors(),
        },
      },
    },
  };
}

function buildOpenApiDocument(): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'System Behavior Engine API',
      version: API_VERSION,
      description:
        'A deterministic engine over nodes and directed dependencies: flow, pressure, blockages, events, ' +
        'origin and trace. Checks run in a fixed order and the first failure decides the response: ' +
        '401 → 403 → 413 (body size) → 415 (unknown Content-Encoding) → 500 (not a JSON object) → 400 (mode) → 400 (ticks) → 500 (structure) ' +
        '→ 413 (counts and result size) → 500 (engine). See docs/api.md.',
      license: {
        name: 'Proprietary: all rights reserved, no license granted',
        identifier: 'LicenseRef-Proprietary',
      },
    },
    servers: [
      {
        url: LOCAL_SERVER_URL,
        description:
          'The local server (`npm start`; `PORT` changes the port). A deployed stack serves the same paths at ' +
          'its `ApiUrl` output (`https://<api-id>.execute-api.<region>.amazonaws.com/`), at its `ExplorerUrl` ' +
          '(CloudFront, under `/api/*`), or at `https://<domainName>/`, also under `/api/*`, when deployed with a ' +
          'custom domain (docs/deploy.md).',
      },
    ],
    paths: withHeadOperations(
      withCommonResponses({
        '/api/engine': {
          post: withJsonBody(
            {
              operationId: 'runEngine',
              summary: 'Analyze a structure, or run it for one or more steps',
              security: [{ apiKey: [] }],
              responses: engineResponses(),
            },
            {
              // Any of the three, read in the contract's order of precedence, so `anyOf`: a direct
              // body may also hold a container or a `systemId`, which are then ignored.
              schema: { anyOf: [ref('DirectRequest'), ref('NestedRequest'), ref('SystemRequest')] },
              examples: {
                analyze: example('The worked example, direct format', { mode: 'analyze', ...WORKED_EXAMPLE }),
                tick: example('Nested in `graph`, mode inside the container', {
                  graph: { mode: 'tick', ...WORKED_EXAMPLE },
                }),
                ticks: example('Nested in `payload`, ticks beside it', {
                  mode: 'ticks',
                  ticks: 3,
                  payload: WORKED_EXAMPLE,
                }),
                whatIfCapacity: example("What if B's capacity halves? A scenario on the worked example", {
                  mode: 'analyze',
                  ...WORKED_EXAMPLE,
                  scenario: { nodes: { B: { capacity: 2 } } },
                }),
                whatIfArrivals: example(
                  "What if the front end's arrivals double? Compared with the structure as it is",
                  WHAT_IF_ARRIVALS,
                ),
                whatIfStored: example('A stored system with a node down and a dependency cut, compared', {
                  mode: 'tick',
                  systemId: '01JABCDEFGHJKMNPQRSTVWXYZ0',
                  scenario: {
                    nodes: { db: { down: true } },
                    dependencies: [{ from: 'api', to: 'cache', cut: true }],
                  },
                  compare: true,
                }),
              },
              limit: {
                description:
                  'The body is larger than the request limit (check 3), the structure has more nodes or ' +
                  'dependencies than the limits, a `ticks` request would return more snapshot elements than ' +
                  'allowed, or the result is too large to return even compressed (check 8).',
                examples: engineLimitExamples(),
              },
            },
          ),
        },
        ...systemPaths(),
        ...keyPaths(),
        '/api/openapi.json': {
          get: {
            operationId: 'getOpenApiDocument',
            summary: 'This document',
            security: [],
            responses: {
              '200': {
                description: 'The OpenAPI 3.1 document of this API.',
                content: { 'application/json': { schema: { type: 'object' } } },
              },
            },
          },
        },
      }),
    ),
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key',
          description: 'An API key issued to you, sent as `Authorization: Bearer <API key>`.',
        },
        userToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "A user access token of the service's Cognito user pool (RS256, `token_use: access`), sent as " +
            '`Authorization: Bearer <USER_ACCESS_TOKEN>`. Its `sub` owns what the user creates.',
        },
      },
      responses: sharedResponses(),
      schemas: componentSchemas(),
    },
  };
}

/** The document as written to openapi.json: 2-space indent, trailing newline. */
export function serializeOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
