/**
 * `POST /api/connect`: the body `{ name, url, auth?: { token? } }` checked by its schema (the
 * one the OpenAPI document shows), and the external API's answer turned into a structure by
 * exactly the engine's rules.
 */
import * as z from 'zod/mini';
import type { Limits } from '../config/limits';
import { PayloadError } from '../engine';
import {
  FORMAT_NAMES,
  FormatError,
  type FormatName,
  parseJsonLines,
  type ReadGraph,
  ReadOptionError,
  type ReadOptions,
  readGraph,
  type StepUnit,
} from '../formats';
import { CONTROL_CHARACTERS, credentialParameter, keyStep, URL_MAX_LENGTH } from '../text';
import { displayName, parseBody, rule, sentJsonBytes } from './body-schema';
import { BODY_SHAPES } from './body-shapes';
import { type ExtractedStructure, extractStructure } from './engine-request';
import { ApiError } from './errors';
import { named } from './schema-registry';

const TOKEN_MAX_LENGTH = 8192;
/** What fits in an `Authorization: Bearer` header without breaking it. */
const TOKEN_SHAPE = /^[\x21-\x7e]+$/;

const URL_RULE = rule(`must be an absolute http(s) URL of at most ${URL_MAX_LENGTH} characters`);
// Described by its kind only: it is a credential.
const TOKEN_RULE = rule(`must be 1-${TOKEN_MAX_LENGTH} visible ASCII characters without spaces`);
/** `auto` and every format's name: what `format` takes (the CLI's `--format` too). */
export const FORMAT_CHOICES = ['auto', ...FORMAT_NAMES] as const;
const FORMAT_RULE = rule(`must be one of ${FORMAT_CHOICES.map((name) => JSON.stringify(name)).join(', ')}`);

function formatField() {
  return z.optional(
    z
      .enum(FORMAT_CHOICES, FORMAT_RULE)
      .check(
        z.describe(
          "How to read the graph: `auto` (default) takes the first format that fits, the engine's own " +
            'first; or name one. See docs/connect.md.',
        ),
      ),
  );
}

const WINDOW_RULE = rule('must be a finite number of seconds > 0');
const SAMPLE_RATE_RULE = rule('must be a number above 0 and at most 1 (0.1: one trace in ten kept)');
/**
 * A label name: Prometheus 3 takes any UTF-8 name (an OTLP attribute kept as `service.name`), so
 * only emptiness, control characters and a length no name needs are refused.
 */
const LABEL_NAME_MAX = 128;
const LABEL_RULE = rule(`must be a label name: 1-${LABEL_NAME_MAX} characters without control characters`);
const LABELS_RULE = rule('must be an object { from, to } naming two different labels');

/**
 * What the caller knows about the document that it does not say (`ReadOptions` of lib/formats):
 * the same three fields on connect and on a registration, kept on the system so that a refresh
 * reads the new answer the same way.
 */
function readOptionFields() {
  return {
    window: z.optional(
      z.number(WINDOW_RULE).check(
        z.refine((value) => Number.isFinite(value) && value > 0, WINDOW_RULE),
        z.describe(
          "Span formats: the seconds the spans were collected over (the query's lookback, a file's " +
            'period). Arrivals are the requests that entered divided by it, and one step is one second; ' +
            'without it, the time from the first request to the last (said in a warning). Dependency ' +
            'links and an X-Ray graph without StartTime/EndTime: the seconds their counts cover (the ' +
            'lookback asked for); every count is divided by it, and one step is one second.',
        ),
      ),
    ),
    sampleRate: z.optional(
      z.number(SAMPLE_RATE_RULE).check(
        z.refine((value) => value > 0 && value <= 1, SAMPLE_RATE_RULE),
        z.describe(
          'Span formats, dependency links and prometheus: the share of traces the tracer kept (head ' +
            'sampling at 10%: 0.1). Arrivals (and dependency-link counts, Prometheus rates) are divided by ' +
            'it; weights and service times do not change. Default 1.',
        ),
      ),
    ),
    labels: z.optional(
      z
        .strictObject(
          {
            from: labelName(),
            to: labelName(),
          },
          LABELS_RULE,
        )
        .check(
          // Said of `to`, with its value: of the whole object it read "got an object".
          z.refine((labels) => labels.from !== labels.to, {
            error: 'must be another label than from: each series names a caller and a callee',
            path: ['to'],
          }),
          z.describe(
            'prometheus: the labels naming the caller (`from`) and the callee (`to`) of each series, ' +
              'when they are not `client`/`server` or `source_workload`/`destination_workload`.',
          ),
        ),
    ),
  };
}

const ReadOptionsSchema = z.strictObject(
  readOptionFields(),
  rule('must be an object { window?, sampleRate?, labels? }'),
);

/**
 * Checks read options given elsewhere than in a body (the CLI's `--window`, `--sample-rate`,
 * `--labels`) by the very rules connect applies; throws 400 `INVALID_REQUEST` naming the field.
 */
export function parseReadOptions(value: unknown): ReadOptions | undefined {
  return readOptionsOf(parseBody(ReadOptionsSchema, value));
}

function labelName() {
  return z.string(LABEL_RULE).check(
    z.minLength(1, LABEL_RULE),
    z.maxLength(LABEL_NAME_MAX, LABEL_RULE),
    z.refine((name) => !CONTROL_CHARACTERS.test(name), LABEL_RULE),
  );
}

/** The read options a request gives, `undefined` when it gives none. */
export function readOptionsOf(request: {
  window?: number | undefined;
  sampleRate?: number | undefined;
  labels?: { from: string; to: string } | undefined;
}): ReadOptions | undefined {
  const options: ReadOptions = {
    ...(request.window === undefined ? {} : { window: request.window }),
    ...(request.sampleRate === undefined ? {} : { sampleRate: request.sampleRate }),
    ...(request.labels === undefined ? {} : { labels: { from: request.labels.from, to: request.labels.to } }),
  };
  return Object.keys(options).length === 0 ? undefined : options;
}

const CAPACITY_RULE = rule('must be a finite number > 0');
const ARRIVAL_RULE = rule('must be a finite number >= 0');
const SERVERS_RULE = rule('must be a whole number from 1 to 10000');
/**
 * Most node entries one system's settings hold: they live in the system's head item, beside a
 * structure of up to 300,000 compressed bytes, and an item holds 400 KB at most.
 */
const MAX_SETTINGS_NODES = 500;
/**
 * And at most this many bytes of JSON in UTF-8, whatever the ids' lengths and scripts: 300,000 +
 * 65,536 bytes leave room in 400 KB. Bytes, not characters: DynamoDB sizes an item in UTF-8, where
 * an id in Chinese takes three bytes a character (65,536 characters of it, 192 KiB).
 */
const MAX_SETTINGS_BYTES = 65_536;

function capacity(description: string) {
  return z.optional(
    z.number(CAPACITY_RULE).check(
      z.refine((value) => Number.isFinite(value) && value > 0, CAPACITY_RULE),
      z.describe(description),
    ),
  );
}

/** @internal lib/api/schemas.ts shows it on the system records too. */
export const SettingsSchema = named(
  'SystemSettings',
  z
    .strictObject(
      {
        defaultCapacity: capacity(
          'The capacity of every node that has none of its own, except nodes marked `external: true` (clients and outside services the mapping adds).',
        ),
        nodes: z.optional(
          z
            .record(
              z.string(),
              z.strictObject(
                {
                  capacity: capacity('What the node handles per step.'),
                  arrival: z.optional(
                    z.number(ARRIVAL_RULE).check(
                      z.refine((value) => Number.isFinite(value) && value >= 0, ARRIVAL_RULE),
                      z.describe('Value entering the node from outside per step.'),
                    ),
                  ),
                  serviceTime: capacity('Mean time one request occupies one server, in steps.'),
                  servers: z.optional(
                    z.number(SERVERS_RULE).check(
                      z.refine(
                        (value) => Number.isInteger(value) && value >= 1 && value <= 10_000,
                        SERVERS_RULE,
                      ),
                      // The refinement keeps the contract's wording; the document says what it checks.
                      z.meta({
                        type: 'integer',
                        minimum: 1,
                        maximum: 10_000,
                        description:
                          'How many servers serve the node (with a service time): capacity servers / serviceTime.',
                      }),
                    ),
                  ),
                  slo: capacity('A latency target for requests entering the node, in steps.'),
                },
                rule('must be an object { capacity?, arrival?, serviceTime?, servers?, slo? }'),
              ),
              rule('must be an object keyed by node id'),
            )
            .check(
              z.refine(
                (nodes) => Object.keys(nodes).length <= MAX_SETTINGS_NODES,
                rule(`may hold at most ${MAX_SETTINGS_NODES} nodes; set defaultCapacity for the rest`),
              ),
              z.describe('Per node id: its capacity and arrival, over what the structure says.'),
            ),
        ),
      },
      rule('must be an object { defaultCapacity?, nodes? }'),
    )
    .check(
      z.refine(
        (settings) => sentJsonBytes(settings, settings.nodes) <= MAX_SETTINGS_BYTES,
        rule(`must be at most ${MAX_SETTINGS_BYTES} bytes of JSON (UTF-8)`),
      ),
      z.describe(
        'Capacities and arrivals the owner knows and no source says, applied whenever the engine runs on ' +
          'the system and kept across refreshes.',
      ),
    ),
);

export type Settings = z.output<typeof SettingsSchema>;

/** Where a body holds settings by node id: any id is a key there, `__proto__` included. */
const SETTINGS_NODES = ['settings', 'nodes'] as const;

const PatchSystemRequestSchema = named(
  'PatchSystemRequest',
  z.strictObject({ settings: SettingsSchema }, rule(`the body must be ${BODY_SHAPES.patchSystem}`)),
);

/** Checks the body of `PATCH /api/systems/{id}`; throws 400 `INVALID_REQUEST` naming the field. */
export function parsePatchSystemRequest(body: unknown): { settings: Settings } {
  return parseBody(PatchSystemRequestSchema, body, { dataKeyedPaths: [SETTINGS_NODES] });
}

/**
 * The settings' node ids must name nodes of the structure: 400 naming the first that does not
 * (`settings.nodes.db`).
 */
export function checkSettingsIds(
  unknownIds: readonly string[],
  /**
   * Of an id the structure lacks, whether the stored settings keep an entry for it (a refresh
   * removed its node) and the PATCH sends it back as read, or changed (`PATCH` only).
   */
  kept: (id: string) => 'as-read' | 'changed' | undefined = () => undefined,
): void {
  const refused = unknownIds.filter((id) => kept(id) !== 'as-read');
  const [first] = refused;
  if (first === undefined) return;
  const path = `settings.nodes${keyStep(first)}`;
  const why =
    kept(first) === 'changed'
      ? ': a refresh removed the node, and its entry, kept, may be sent back as read or left out, not changed'
      : '';
  const problem = `names no node of the structure${refused.length > 1 ? ` (nor do ${refused.length - 1} more)` : ''}${why}`;
  throw new ApiError('INVALID_REQUEST', `${path} ${problem}`, { details: [{ path, message: problem }] });
}

const ConnectRequestSchema = named(
  'ConnectRequest',
  z.strictObject(
    {
      name: displayName('Display name of the system; trimmed.'),
      url: z.string(URL_RULE).check(
        z.minLength(1, URL_RULE),
        z.maxLength(URL_MAX_LENGTH, URL_RULE),
        z.refine((url) => URL.canParse(url), URL_RULE),
        z.describe('http(s) URL of the external API; it must answer JSON (or JSON Lines).'),
      ),
      format: formatField(),
      ...readOptionFields(),
      settings: z.optional(SettingsSchema),
      dryRun: z.optional(
        z
          .boolean(rule('must be true or false'))
          .check(
            z.describe(
              'true: fetch and read the answer exactly as a registration would, and answer what it found ' +
                "(format, sizes, entry points, warnings, the engine's summary) without storing anything.",
            ),
          ),
      ),
      auth: z.optional(
        z
          .strictObject(
            {
              token: z.optional(
                z
                  .string(TOKEN_RULE)
                  .check(
                    z.maxLength(TOKEN_MAX_LENGTH, TOKEN_RULE),
                    z.regex(TOKEN_SHAPE, TOKEN_RULE),
                    z.describe('Sent as `Authorization: Bearer <token>` to the URL only.'),
                  ),
              ),
            },
            rule('must be an object { token? }'),
          )
          .check(z.describe('The external API credential: used for this one fetch, never stored or logged.')),
      ),
    },
    rule(`the body must be ${BODY_SHAPES.connect}`),
  ),
);

export type ConnectRequest = z.output<typeof ConnectRequestSchema>;

/** Checks the connect body; throws 400 `INVALID_REQUEST` naming the field. The token is never repeated. */
export function parseConnectRequest(body: unknown): ConnectRequest {
  return parseBody(ConnectRequestSchema, body, {
    // `auth` itself too: a token sent as `auth` (not `{ token }`) was repeated in the 400.
    secretPaths: ['auth', 'auth.token'],
    urlPaths: ['url'],
    dataKeyedPaths: [SETTINGS_NODES],
  });
}

const RegisterSystemRequestSchema = named(
  'RegisterSystemRequest',
  z.strictObject(
    {
      name: displayName('Display name of the system; trimmed.'),
      format: formatField(),
      ...readOptionFields(),
      settings: z.optional(SettingsSchema),
      url: z.optional(
        z.string(URL_RULE).check(
          z.minLength(1, URL_RULE),
          z.maxLength(URL_MAX_LENGTH, URL_RULE),
          // Kept on the record and shown as a link: nothing but a web address (no javascript:, file:).
          z.refine((url) => /^https?:$/.test(URL.parse(url)?.protocol ?? ''), URL_RULE),
          // Kept in plain text and shown on every read: a password in it would be too (connect
          // refuses such a URL, and a refresh would).
          z.refine((url) => {
            const parsed = URL.parse(url);
            return parsed === null || (parsed.username === '' && parsed.password === '');
          }, rule('must not contain a user name or password: the record keeps the URL and shows it')),
          z.refine((url) => {
            const parsed = URL.parse(url);
            return parsed === null || credentialParameter(parsed) === undefined;
          }, rule(
            'must not carry a credential in its query or fragment (access_token, api_key, …): the record keeps the URL and shows it',
          )),
          // `http://u:123/pw@host`: the parser reads a host u, a port and a path, but it is written
          // as a user name and password, and errors mask it as one (before the last `@`); kept,
          // it would be shown on every read.
          z.refine(
            (url) => !/@/.test(url.split(/[?#]/, 1)[0]!),
            rule(
              'must not hold an @ before its query: it reads as a user name and password, which the record would keep and show',
            ),
          ),
          z.describe('Where the document came from, kept on the record for you; optional (an http(s) URL).'),
        ),
      ),
      document: z.unknown().check(
        z.refine(
          (document) => document !== undefined,
          rule('is required: the graph, in any format connect reads'),
        ),
        z.describe("The graph: the engine's own format or any format connect reads (docs/connect.md)."),
      ),
    },
    rule(`the body must be ${BODY_SHAPES.registerSystem}`),
  ),
);

export type RegisterSystemRequest = z.output<typeof RegisterSystemRequestSchema>;

/** Checks the body of `POST /api/systems`; throws 400 `INVALID_REQUEST` naming the field. */
export function parseRegisterSystemRequest(body: unknown): RegisterSystemRequest {
  return parseBody(RegisterSystemRequestSchema, body, {
    dataKeyedPaths: [SETTINGS_NODES],
    urlPaths: ['url'],
  });
}

const RefreshRequestSchema = named(
  'RefreshRequest',
  z.strictObject(
    {
      auth: z.optional(
        z
          .strictObject(
            {
              token: z.optional(
                z
                  .string(TOKEN_RULE)
                  .check(
                    z.maxLength(TOKEN_MAX_LENGTH, TOKEN_RULE),
                    z.regex(TOKEN_SHAPE, TOKEN_RULE),
                    z.describe('Sent as `Authorization: Bearer <token>` to the URL only.'),
                  ),
              ),
            },
            rule('must be an object { token? }'),
          )
          .check(
            z.describe('The external API credential again: it is never stored, so a refresh needs it anew.'),
          ),
      ),
    },
    rule(`the body must be ${BODY_SHAPES.refresh}`),
  ),
);

export type RefreshRequest = z.output<typeof RefreshRequestSchema>;

/** Checks the body of a refresh; throws 400 `INVALID_REQUEST` naming the field, never repeating the token. */
export function parseRefreshRequest(body: unknown): RefreshRequest {
  return parseBody(RefreshRequestSchema, body, { secretPaths: ['auth', 'auth.token'] });
}

/**
 * The values of a JSON Lines answer (one JSON value per line, as the OpenTelemetry Collector's file
 * exporter writes; the fetch hands such a body over as text), in order: the document the formats
 * read, an array. A line that is not JSON is 422 `UPSTREAM_INVALID` naming it (`line 3`).
 */
export function documentFromJsonLines(text: string, source = "The external API's answer"): unknown[] {
  try {
    return parseJsonLines(text);
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    throw new ApiError(
      'UPSTREAM_INVALID',
      `${source} is JSON Lines (a JSON object or array on each line), but ${error.message}`,
      { details: [{ path: error.path, message: error.message }] },
    );
  }
}

/** The structure read from an external API's answer, and how it was read. */
export interface UpstreamStructure extends ExtractedStructure {
  format: FormatName;
  unit: StepUnit;
  warnings: string[];
}

/**
 * The structure in the external API's answer, read in `format` (`auto`: the first format that
 * fits, the engine's own first; `lib/formats`) and then checked by the engine's own rules (the
 * same validation and limits); anything else is 422 `UPSTREAM_INVALID` naming the element (by
 * its path in the answer when the format finds it), so a structure connect accepts is one the
 * engine accepts.
 */
export function structureFromUpstream(
  answer: unknown,
  limits: Pick<Limits, 'maxNodes' | 'maxDependencies'>,
  format: FormatName | 'auto' = 'auto',
  /** How the messages name what was read: the fetched answer, or a document sent in the request. */
  source = "The external API's answer",
  /** What the caller knows of the document that it does not say (a window, a sampling rate). */
  options?: ReadOptions,
): UpstreamStructure {
  let graph: ReadGraph;
  try {
    graph = readGraph(answer, format, options);
  } catch (error) {
    if (error instanceof ReadOptionError) {
      throw new ApiError('INVALID_REQUEST', error.message, {
        details: [{ path: error.option, message: error.problem }],
      });
    }
    if (!(error instanceof FormatError)) throw error;
    throw new ApiError(
      'UPSTREAM_INVALID',
      `${source} is not a graph the service can read: ${error.message}`,
      {
        details: [{ path: error.path, message: error.message }],
      },
    );
  }
  // The engine's own format keeps the answer as it came (containers, extras), as before formats.
  const structure =
    graph.format === 'native' ? answer : { nodes: graph.nodes, dependencies: graph.dependencies };
  try {
    return {
      ...extractStructure(structure, limits),
      format: graph.format,
      unit: graph.unit,
      warnings: graph.warnings,
    };
  } catch (error) {
    if (!(error instanceof PayloadError)) throw error;
    throw new ApiError(
      'UPSTREAM_INVALID',
      `${source} is not a structure the engine accepts: ${error.message}`,
      {
        details: [{ path: error.path, message: error.message }],
      },
    );
  }
}
