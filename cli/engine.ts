/**
 * `sbe-engine <analyze|tick|ticks> [file|-] [--ticks n] [--scenario file] [--compare] [--format
 * name] [--window s] [--sample-rate r] [--labels from,to] [--settings file] [--max-body bytes]`:
 * runs the engine on a request body, or on a graph in any format connect reads (traces, a
 * Prometheus answer, a tracing tool's graph), from a file or stdin, plain or gzip-compressed, and
 * prints exactly the JSON body `POST /api/engine` would return: for a graph, the body a run by
 * `systemId` gets once the graph is registered.
 *
 * The CLI is not a gateway: the API's limit on the bytes of a body (Lambda's 6 MiB) does not
 * apply, only the engine's limits (nodes, dependencies, ticks) and the size a decompressed body
 * may reach; `--max-body` sets a byte limit of one's own.
 */

import { constants as bufferConstants, isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import {
  checkSettingsIds,
  documentFromJsonLines,
  FORMAT_CHOICES,
  parsePatchSystemRequest,
  parseReadOptions,
  type Settings,
  structureFromUpstream,
} from '../lib/api/connect-request';
import { locateStructure, problemOf } from '../lib/api/engine-request';
import { ApiError, classifyFailure, errorBody } from '../lib/api/errors';
import { locateJsonSyntaxError } from '../lib/api/json-syntax';
import { parseJsonRequestBody } from '../lib/api/request-body';
import { MODES, type Mode } from '../lib/api/request-shape';
import { blameSettings, compileWithSettings } from '../lib/api/settings-fit';
import { applySettings } from '../lib/api/system-settings';
import { createRunEngine } from '../lib/app/run-engine';
import type { Env } from '../lib/config/env';
import type { Limits } from '../lib/config/limits';
import { maxEngineBodyContainers, readLimits } from '../lib/config/limits';
import { PayloadError } from '../lib/engine';
import { detectedFormats, type FormatName, type ReadOptions } from '../lib/formats';
import { plural } from '../lib/formats/text';
import { isMainModule } from '../lib/main-module';
import { unknownSettingsIds } from '../lib/systems';
import { documentContainerCap, isRecord, looksLikeJsonLines } from '../lib/text';
import { endOnOutputError, type TextOutput, UsageError, usageErrorFrom, usageErrorLine } from './common';

export const USAGE = `Usage: sbe-engine [analyze|tick|ticks] [file|-] [--ticks n] [--scenario file] [--compare]
                  [--format name] [--window s] [--sample-rate r] [--labels from,to] [--settings file]
                  [--max-body bytes]

Runs the engine locally on a request body, or on a graph in any format POST /api/connect
reads (OTLP, Jaeger or Zipkin traces, a Prometheus query's answer, Jaeger and Zipkin
dependency links, Kiali, X-Ray, ...), and prints the response JSON exactly as POST /api/engine
would return it (followed by a newline). No server and no database are involved.

  [mode]       analyze, tick or ticks; overrides any "mode" in the body (without
               it, the body's own "mode" is used; a first argument with a "." or "/"
               in it, or "-", is then the file)
  [file|-]     the request body, direct ({ nodes, dependencies }) or nested
               ({ payload|system|record|data|graph: { nodes, dependencies } }), or a graph
               in another format, JSON or JSON Lines (one value per line, as the
               OpenTelemetry Collector's file exporter writes); "-" or nothing reads stdin.
               Any size: no byte limit applies by default (see --max-body), plain or
               gzipped. Gzip is detected by its first bytes (1f 8b) and undone; brotli and
               deflate carry no such signature and are not detected: decompress them first
  --ticks n    steps to run in mode ticks (1-1000); overrides any "ticks" in the body
  --scenario file
               a JSON file holding a scenario { scale?, nodes?, dependencies? } to run
               the structure under (what if), "-" for stdin; overrides any "scenario"
               in the body
  --compare    add the baseline (the structure without the scenario) and the changes
  --format name
               how to read the file: auto (default: the engine's own format when it
               fits, else the one format whose shape it has) or a format's name:
               ${FORMAT_CHOICES.slice(1).join(', ')}
  --window s   span formats: the seconds the spans were collected over; arrivals are
               the requests that entered divided by it (without it: the time from the
               first request to the last, said in a warning); dependency links and an
               X-Ray graph without its times: the seconds their counts cover (counts
               are divided by it, one step is one second)
  --sample-rate r
               span formats, dependency links and prometheus: the share of traces kept
               (0 < r <= 1); arrivals (counts, Prometheus rates) are divided by it
  --labels from,to
               prometheus: the labels naming each series' caller and callee, when they
               are not client,server or source_workload,destination_workload
  --settings file
               a JSON file of settings, as a registered system keeps them:
               { defaultCapacity?, nodes?: { <id>: { capacity?, arrival?, serviceTime?,
               servers?, slo? } } }, applied to the structure before the engine runs
  --max-body bytes
               refuse a body larger than this many bytes, as read and once decompressed.
               Without it there is no byte limit: the CLI runs locally, so the API's
               6 MiB (MAX_BODY_BYTES, Lambda's payload limit) does not apply; the limits
               that do are the engine's (MAX_NODES, MAX_DEPENDENCIES)
  -h, --help   show this text

A graph in another format is read, mapped and checked exactly as POST /api/connect does; what
the reading has to say (the format, what one step stands for, its warnings) goes to stderr.
Errors in the request are printed to stderr as the API's { "error": { "code", "message" } }
body, with exit status 1; a mistake on the command line as one "error: ..." line, exit 2. An
answer that cannot be written ends the CLI as it ends Unix tools: silently with status 141 when
the reader has gone (| head), with one "error: ..." line and status 1 otherwise (a full disk). The
engine's limits apply, read from the same environment variables as the API's (MAX_NODES,
MAX_DEPENDENCIES, MAX_TICKS, MAX_RESPONSE_ELEMENTS; a malformed one is a command-line mistake,
named: exit 2); MAX_BODY_BYTES and MAX_DECODED_BODY_BYTES, limits of the gateway, do not.

Examples:
  sbe-engine analyze example.json
  cat example.json | sbe-engine ticks --ticks 3
  sbe-engine analyze example.json --scenario halve-b.json --compare
  sbe-engine analyze traces.jsonl --window 300 --settings servers.json
  sbe-engine analyze rates.json --format prometheus
  sbe-engine analyze big-structure.json.gz
`;

export interface EngineCliIo {
  stdout: TextOutput;
  stderr: TextOutput;
  /** Read when no file (or `-`) is given. */
  stdin: AsyncIterable<Uint8Array | string> & { isTTY?: boolean };
  /** Where the limits are read from. Default `process.env`. */
  env?: Env;
}

/** The whole CLI minus process wiring. Returns the exit status; never throws. */
export async function runEngineCli(argv: readonly string[], io: EngineCliIo): Promise<number> {
  try {
    const command = parseCommandLine(argv);
    if (command === 'help') {
      io.stdout.write(USAGE);
      return 0;
    }
    const limits = limitsOf(io.env ?? process.env);
    const scenario =
      command.scenarioFile === undefined
        ? undefined
        : await readJsonFile(command.scenarioFile, io.stdin, command.maxBody, 'the scenario', 'is');
    const settings =
      command.settingsFile === undefined
        ? undefined
        : await readSettingsFile(command.settingsFile, io.stdin, command.maxBody);
    const bytes = await readBody(command, io.stdin);
    const document = readDocument(bytes, command.format, limits);
    // What the reading had to say, written once the engine has answered (an error alone is the
    // API's error body on stderr).
    const notes: string[] = [];
    const body = engineBody(document, command, limits, settings, notes);
    // The API's own use case, without stored systems: a body is read as it stands.
    const answer = await createRunEngine({ limits })({
      body: withCommandLine(body, command, scenario),
    }).catch((error: unknown) => {
      throw settings === undefined ? error : blamedOnSettings(error, body, settings);
    });
    for (const note of notes) io.stderr.write(`${note}\n`);
    io.stdout.write(`${answer.json}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(usageErrorLine(error, 'sbe-engine --help'));
      return 2;
    }
    const { error: answer } = classifyFailure(error);
    io.stderr.write(`${JSON.stringify(errorBody(answer))}\n`);
    return 1;
  }
}

/**
 * The limits from the environment; a malformed one is a usage error naming its variable. The
 * gateway's and the response's (MAX_BODY_BYTES, MAX_DECODED_BODY_BYTES, MAX_RESPONSE_BYTES) do not
 * apply here, so they are not read: a value the API would refuse stops no run of the CLI.
 */
function limitsOf(env: Env): ReturnType<typeof readLimits> {
  const {
    MAX_BODY_BYTES: _body,
    MAX_DECODED_BODY_BYTES: _decoded,
    MAX_RESPONSE_BYTES: _response,
    ...read
  } = env;
  try {
    return readLimits(read);
  } catch (error) {
    // readLimits' messages name the variable and what it takes (`MAX_NODES must be an integer
    // from 1 to 1000000; got "abc"`); they end without a full stop, as usage errors do.
    throw new UsageError(error instanceof Error ? error.message.replace(/\.$/, '') : String(error));
  }
}

interface EngineCommand {
  /** `undefined`: the body's own mode. */
  mode: string | undefined;
  file: string | undefined;
  ticks: unknown;
  scenarioFile: string | undefined;
  compare: boolean;
  format: FormatName | 'auto';
  /** What the document does not say (`--window`, `--sample-rate`, `--labels`), checked. */
  readOptions: ReadOptions | undefined;
  settingsFile: string | undefined;
  /** `--max-body`: the largest body, in bytes, as read and once decompressed; none when absent. */
  maxBody: number | undefined;
}

function parseCommandLine(argv: readonly string[]): EngineCommand | 'help' {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    throw usageErrorFrom(error);
  }
  if (parsed.values.help) return 'help';
  // The mode may be left to the body: a first argument that reads as a path (`-`, or with a
  // dot or slash in it) and is no mode is the file. Anything else is the mode, so a mistyped
  // one is reported as the API reports it.
  const positionals = [...parsed.positionals];
  const first = positionals[0];
  const isPath =
    first !== undefined && !MODES.includes(first as Mode) && (first === '-' || /[./\\]/.test(first));
  const mode = first === undefined || isPath ? undefined : positionals.shift();
  const [file, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const rawTicks = parsed.values.ticks;
  if (rawTicks !== undefined && mode !== undefined && mode !== 'ticks') {
    throw new UsageError('--ticks applies only to mode ticks');
  }
  // A number when it reads as one; otherwise the text itself, so the request check reports it
  // exactly as the API would report a bad "ticks".
  const ticks =
    rawTicks !== undefined && /^-?\d+(\.\d+)?$/.test(rawTicks.trim()) ? Number(rawTicks) : rawTicks;
  const scenarioFile = parsed.values.scenario;
  const settingsFile = parsed.values.settings;
  if (scenarioFile === '-' && settingsFile === '-')
    throw new UsageError('stdin can hold the scenario or the settings, not both; give one as a file');
  for (const [flag, value] of [
    ['scenario', scenarioFile],
    ['settings', settingsFile],
  ] as const) {
    if (value === '-' && (file === undefined || file === '-')) {
      throw new UsageError(`stdin can hold the body or the ${flag}, not both; give the body as a file`);
    }
  }
  const format = parsed.values.format ?? 'auto';
  if (!(FORMAT_CHOICES as readonly string[]).includes(format))
    throw new UsageError(
      `--format must be one of ${FORMAT_CHOICES.map((name) => `"${name}"`).join(', ')}, got "${format.slice(0, 40)}"`,
    );
  return {
    mode,
    file: file === '-' ? undefined : file,
    ticks,
    scenarioFile,
    compare: parsed.values.compare === true,
    format: format as FormatName | 'auto',
    readOptions: readOptionsOf(parsed.values),
    settingsFile,
    maxBody: maxBodyOf(parsed.values['max-body']),
  };
}

/** `--max-body`: a whole number of bytes, at most the longest text Node can read as JSON. */
function maxBodyOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const bytes = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!(bytes >= 1 && bytes <= LONGEST_TEXT))
    throw new UsageError(
      `--max-body must be a whole number of bytes from 1 to ${LONGEST_TEXT}, got "${text.slice(0, 40)}"`,
    );
  return bytes;
}

/** The command line's names of the read options, by the API's. */
const OPTION_FLAGS: Record<string, string> = {
  window: '--window',
  sampleRate: '--sample-rate',
  labels: '--labels',
};

/**
 * `--window`, `--sample-rate` and `--labels`, checked by connect's own rules; a bad one is a
 * command-line mistake named by its flag (`--window must be a finite number of seconds > 0, got
 * the string "5m"`).
 */
function readOptionsOf(values: {
  window?: string;
  'sample-rate'?: string;
  labels?: string;
}): ReadOptions | undefined {
  const given: Record<string, unknown> = {};
  if (values.window !== undefined) given.window = numberOrText(values.window);
  if (values['sample-rate'] !== undefined) given.sampleRate = numberOrText(values['sample-rate']);
  if (values.labels !== undefined) {
    const names = values.labels.split(',').map((name) => name.trim());
    if (names.length !== 2)
      throw new UsageError('--labels takes two label names, from,to (source_app,destination_app)');
    given.labels = { from: names[0], to: names[1] };
  }
  try {
    return parseReadOptions(given);
  } catch (error) {
    throw flagError(error) ?? error;
  }
}

/**
 * A refusal of a read option (`window: …`, as connect says it) as the command-line mistake it is,
 * named by its flag (`--window 5e-324 makes the services' arrivals add up to …`); `undefined` for
 * any other error.
 */
function flagError(error: unknown): UsageError | undefined {
  if (!(error instanceof ApiError) || error.code !== 'INVALID_REQUEST') return undefined;
  const path = error.details?.[0]?.path ?? '';
  const flag = OPTION_FLAGS[path.split('.')[0]!];
  if (flag === undefined) return undefined;
  return new UsageError(
    `${flag}${path.includes('.') ? ` (${path.split('.').slice(1).join('.')})` : ''} ${error.details?.[0]?.message ?? error.message}`,
  );
}

/** Compressions whose files start with bytes of their own, which are not read but named. */
const SIGNATURES = [
  { name: 'xz', tool: 'xz', magic: Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]) },
  { name: 'zstd', tool: 'zstd', magic: Buffer.from([0x28, 0xb5, 0x2f, 0xfd]) },
  { name: 'bzip2', tool: 'bzip2', magic: Buffer.from('BZh', 'latin1') },
] as const;

/** Why a file that is not UTF-8 cannot be read, with what it likely is. */
function notUtf8(bytes: Buffer): string {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  const compressed = SIGNATURES.find(({ magic }) => bytes.subarray(0, magic.length).equals(magic));
  const likely = utf16
    ? ' It starts with a UTF-16 byte order mark: convert it first (`iconv -f UTF-16 -t UTF-8`).'
    : compressed !== undefined
      ? ` It starts as ${compressed.name} does: decompress it first (\`${compressed.tool} -dc file | sbe-engine …\`); only gzip is read as it is.`
      : ' If it is compressed with brotli or deflate, decompress it first (`brotli -dc file.br | sbe-engine …`): only gzip is recognized, by its first bytes.';
  return `The input is not UTF-8 text: the CLI reads JSON (or JSON Lines) in UTF-8, or gzip of it.${likely}`;
}

/** A number where the text reads as one (the check then says what is wrong with it), else the text. */
function numberOrText(text: string): number | string {
  return /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(text.trim()) ? Number(text) : text;
}

/**
 * The file's JSON value; a file that is not one JSON document but JSON Lines (the Collector's
 * file exporter) is read line by line, and a line that is not JSON is named (422, as connect
 * names it). Its size was checked as it was read (`readBody`): the API's byte limit is not the
 * CLI's, so none is checked here.
 */
function readDocument(bytes: Buffer, format: EngineCommand['format'], limits: Limits): unknown {
  // The API's message on bytes that are not UTF-8 speaks of API Gateway; a file's reader is told
  // what the CLI reads, and what the file may be instead.
  if (!isUtf8(bytes)) throw new ApiError('PAYLOAD_ERROR', notUtf8(bytes));
  // No byte limit, but the objects and arrays are counted before parsing, as the API and connect
  // count them: 285 KB of gzip inflate to 300 MB of `[{},{},…]`, whose parse filled the heap
  // and ended in V8's fatal error. The larger of the engine body's cap and a document's of this
  // length: a dense engine body of short ids holds more per character than any document.
  const engineContainers = maxEngineBodyContainers(limits);
  try {
    return parseJsonRequestBody(bytes, {
      maxBytes: Number.POSITIVE_INFINITY,
      maxDecodedBytes: Number.POSITIVE_INFINITY,
      maxContainers: (length) => Math.max(engineContainers, documentContainerCap(length)),
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'PAYLOAD_ERROR') throw error;
    const text = bytes.toString('utf8');
    if (!looksLikeJsonLines(text)) throw error;
    const documents = documentFromJsonLines(text, 'The file');
    // Span exports are read line by line; a request body is one document. Several one after
    // another (two files concatenated, a gzip of two members) were taken for an array sent. A
    // format named with --format says itself which element it could not read.
    if ((format === 'auto' || format === 'native') && detectedFormats(documents).length === 0) {
      throw new ApiError(
        'PAYLOAD_ERROR',
        `The file holds ${documents.length} JSON documents one after another, and none is a span export (the only documents read line by line): send one request body, or one graph, per run.`,
      );
    }
    return documents;
  }
}

/**
 * The body the engine runs on. A request body (the engine's own format, direct or nested) stands
 * as it is, unless `--format` names another format; a document in another format, or one no
 * format claims while `--format` is `auto`, is read as connect reads it (`structureFromUpstream`:
 * the format's mapping, then the engine's checks and limits), and what the reading says goes to
 * `notes` (for stderr). A document no format claims is left to the engine's own checks, whose error names
 * what it takes. Settings apply to the structure either way.
 */
function engineBody(
  document: unknown,
  command: EngineCommand,
  limits: Limits,
  settings: Settings | undefined,
  notes: string[],
): unknown {
  const claims = command.format === 'auto' ? detectedFormats(document) : [];
  // As connect detects it: the engine's own format needs both arrays, so a graph that another
  // format claims (node-link's `links`, Cytoscape.js's `edges`) is that format's, although its
  // `nodes` array is where the engine's request rules would look.
  // A document with a `mode` of its own is a request body all the same (one missing its
  // `dependencies` is told so), whatever else it carries.
  const hasMode = isRecord(document) && Object.hasOwn(document, 'mode');
  const claimedByAnother = !hasMode && claims.length > 0 && !claims.includes('native');
  const native = command.format === 'native' || (command.format === 'auto' && !claimedByAnother);
  const location = isRecord(document) && native ? locateStructure(document) : undefined;
  // An array is never the engine's own body: one no format claims is read as connect reads it,
  // whose error says which format's shape it comes nearest (Zipkin spans with numeric ids, say).
  const unclaimed = command.format === 'auto' && !Array.isArray(document) && claims.length === 0;
  if (location !== undefined || unclaimed) {
    if (command.readOptions !== undefined) {
      const flags = Object.keys(command.readOptions).map((name) => OPTION_FLAGS[name]);
      notes.push(
        `warning: ${flags.join(' and ')} ${flags.length === 1 ? 'is' : 'are'} not read for the engine's own format (its numbers are as sent): ignored`,
      );
    }
    if (settings === undefined || location === undefined) return document;
    const { holder, container } = location;
    if (!Array.isArray(holder.nodes) || !Array.isArray(holder.dependencies)) return document;
    const structure = withSettings({ nodes: holder.nodes, dependencies: holder.dependencies }, settings);
    const body = document as Record<string, unknown>;
    return container === undefined
      ? { ...body, ...structure }
      : { ...body, [container]: { ...holder, ...structure } };
  }
  if (command.mode === undefined)
    throw new UsageError(
      'give a mode, analyze, tick or ticks: a graph in another format has none of its own',
    );
  let read: ReturnType<typeof structureFromUpstream>;
  try {
    read = structureFromUpstream(document, limits, command.format, 'The document', command.readOptions);
  } catch (error) {
    // What only the document shows of an option (a window so short its rates pass every bound).
    throw flagError(error) ?? error;
  }
  notes.push(
    `read as ${read.format}: ${plural(read.compiled.nodeCount, 'node')}, ${plural(read.compiled.dependencyCount, 'dependency', 'dependencies')}, one step is ${UNIT_WORDS[read.unit]}`,
    ...read.warnings.map((warning) => `warning: ${warning}`),
  );
  return settings === undefined ? read.structure : withSettings(read.structure, settings);
}

const UNIT_WORDS: Record<string, string> = {
  second: 'one second',
  window: "the source's whole window",
  none: 'nothing (no traffic in the source)',
  'as-sent': 'what the numbers say',
};

/**
 * A problem the run finds in a structure with `--settings` applied, said of the setting that
 * caused it, as a run of a registered system says it (`settings.nodes.db.serviceTime: makes the
 * node's p99 …`, not the node it landed on); any other error as it is.
 */
function blamedOnSettings(error: unknown, body: unknown, settings: Settings): unknown {
  const detail = error instanceof ApiError && error.code === 'PAYLOAD_ERROR' ? error.details?.[0] : undefined;
  const location = isRecord(body) ? locateStructure(body) : undefined;
  if (detail === undefined || location === undefined || !Array.isArray(location.holder.nodes)) return error;
  const prefix = location.container === undefined ? '' : `${location.container}.`;
  if (!detail.path.startsWith(prefix)) return error;
  const found = new PayloadError(detail.path.slice(prefix.length), detail.message);
  const blamed = blameSettings({ nodes: location.holder.nodes }, settings, found);
  if (blamed === undefined) return error;
  return new ApiError('PAYLOAD_ERROR', blamed.message, {
    details: [{ path: blamed.path, message: problemOf(blamed) }],
  });
}

/**
 * The settings applied, as a run on a registered system applies them: their ids must be nodes,
 * and the structure must compile with them as `PATCH /api/systems/{id}` compiles it (400 naming
 * the setting: `settings.nodes.api.capacity: 3 disagrees with …`, not the node it lands on).
 * What only a run finds, the run itself says (`blamedOnSettings`), not a second run first.
 */
function withSettings(
  structure: { nodes: unknown[]; dependencies: unknown[] },
  settings: Settings,
): { nodes: unknown[]; dependencies: readonly unknown[] } {
  checkSettingsIds(unknownSettingsIds(structure, settings));
  compileWithSettings(structure, settings);
  return applySettings(structure, settings);
}

function parseOptions(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      ticks: { type: 'string' },
      scenario: { type: 'string' },
      compare: { type: 'boolean' },
      format: { type: 'string' },
      window: { type: 'string' },
      'sample-rate': { type: 'string' },
      labels: { type: 'string' },
      settings: { type: 'string' },
      'max-body': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/**
 * The command line's mode (and ticks, scenario, compare) at the top level, where they take
 * precedence over the body's.
 */
function withCommandLine(body: unknown, command: EngineCommand, scenario: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return {
    ...body,
    ...(command.mode === undefined ? {} : { mode: command.mode }),
    ...(command.ticks === undefined ? {} : { ticks: command.ticks }),
    ...(command.scenarioFile === undefined ? {} : { scenario }),
    ...(command.compare ? { compare: true } : {}),
  };
}

/** The settings file, its shape checked as PATCH /api/systems/{id} checks it (400 naming the field). */
async function readSettingsFile(
  path: string,
  stdin: EngineCliIo['stdin'],
  maxBody: number | undefined,
): Promise<Settings> {
  const settings = await readJsonFile(path, stdin, maxBody, 'the settings', 'are');
  return parsePatchSystemRequest({ settings }).settings;
}

/**
 * A side file's JSON (the scenario, the settings), read as the body is: with no limit but
 * `--max-body` when given (as read, and once gzip is undone) and the longest text Node holds
 * (`MAX_DECODED_BODY_BYTES` is a gateway's, and refused a gzipped file the same file plain was
 * read from), UTF-8 that must be valid, a leading byte order mark dropped. What it holds is
 * checked with the request, as the API checks it.
 */
async function readJsonFile(
  path: string,
  stdin: EngineCliIo['stdin'],
  maxBody: number | undefined,
  what: string,
  verb: 'is' | 'are',
): Promise<unknown> {
  const where = `${what} ${path === '-' ? 'on stdin' : path}`;
  const limit = maxBody ?? LONGEST_TEXT;
  const limitText = `${limit} bytes, ${maxBody === undefined ? 'the longest text Node holds' : 'the --max-body given'}`;
  const raw = await readInput(path === '-' ? undefined : path, stdin, maxBody).catch((error: unknown) => {
    // Said of the side file, as its other problems are: "the input" reads as the body.
    if (error instanceof ApiError && error.code === 'LIMIT_EXCEEDED') {
      throw new UsageError(`${where} ${verb} larger than ${limitText}`);
    }
    throw error;
  });
  let bytes = raw;
  if (isGzip(raw)) {
    try {
      bytes = gunzipSync(raw, { maxOutputLength: limit });
    } catch (error) {
      throw new UsageError(
        (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
          ? `${where} ${verb} gzip-compressed and decompress${verb === 'is' ? 'es' : ''} to more than ${limitText}`
          : `${where} ${verb} gzip-compressed (magic bytes 1f 8b) but do${verb === 'is' ? 'es' : ''} not decompress: ${(error as Error).message}`,
      );
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new UsageError(`${where} ${verb} not valid UTF-8`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // Where it stops being JSON, in one line, as the API says it: V8's message quotes the text,
    // line breaks included, which would spread a file's content over the terminal.
    const at = locateJsonSyntaxError(text);
    throw new UsageError(
      at === undefined
        ? `${where} ${verb} not JSON: ${(error as Error).message.split('\n')[0]}`
        : `${where} ${verb} not JSON: ${at.problem} at line ${at.line}, column ${at.column}`,
    );
  }
}

/**
 * The longest text V8 holds, in characters (2^29 - 24 on 64-bit): a body of more bytes could not
 * be decoded into one JSON text, so reading stops there even without `--max-body`.
 */
const LONGEST_TEXT = bufferConstants.MAX_STRING_LENGTH;

/**
 * The body's bytes, from the file or stdin, gzip undone. No byte limit but `--max-body` (and the
 * longest text Node can hold) applies to what is read, and the same to what a gzip body
 * decompresses to: a file of any size reads the same plain or gzipped. (The API's
 * `MAX_DECODED_BODY_BYTES` is a gateway's limit, as `MAX_BODY_BYTES` is.) A few kilobytes of gzip
 * can inflate to gigabytes: zlib stops at the limit, so a gzip bomb costs at most that.
 */
async function readBody(command: EngineCommand, stdin: EngineCliIo['stdin']): Promise<Buffer> {
  const bytes = await readInput(command.file, stdin, command.maxBody);
  return isGzip(bytes) ? gunzipped(bytes, command.maxBody) : bytes;
}

/**
 * Gzip's magic bytes, 1f 8b: no JSON text starts with them (0x1f is a control character, 0x8b
 * no UTF-8 lead byte), so a plain body is never mistaken for gzip. Brotli and deflate have no
 * such signature and are not detected.
 */
function isGzip(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * The gzip body decompressed, all its members. zlib stops as soon as the output passes the
 * limit (`maxOutputLength` is checked chunk by chunk), so a gzip bomb costs at most the limit in
 * memory and is refused without being decompressed to its end.
 */
function gunzipped(bytes: Buffer, maxBody: number | undefined): Buffer {
  const limit = maxBody ?? LONGEST_TEXT;
  try {
    return gunzipSync(bytes, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ApiError(
        'LIMIT_EXCEEDED',
        maxBody === undefined
          ? `The input is gzip-compressed and decompresses to more than ${LONGEST_TEXT} bytes, the ` +
              'longest text Node can hold, so it cannot be read as JSON; split it into smaller structures.'
          : `The input is gzip-compressed and decompresses to more than --max-body ${maxBody} bytes; ` +
              'give a larger --max-body.',
      );
    }
    throw new ApiError(
      'PAYLOAD_ERROR',
      `The input looks gzip-compressed (magic bytes 1f 8b) but does not decompress: ${(error as Error).message}.`,
    );
  }
}

/**
 * All the bytes of a file, or of stdin (`path` undefined), read chunk by chunk and given up as
 * soon as they pass `maxBody` or, without it, the longest text Node can hold: an input over its
 * limit costs no more memory than the limit.
 */
async function readInput(
  path: string | undefined,
  stdin: EngineCliIo['stdin'],
  maxBody?: number,
): Promise<Buffer> {
  if (path === undefined && stdin.isTTY)
    throw new UsageError('no input: give a file, or pipe the request body on stdin');
  const limit = maxBody ?? LONGEST_TEXT;
  const source: AsyncIterable<Uint8Array | string> = path === undefined ? stdin : createReadStream(path);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
      size += bytes.byteLength;
      if (size > limit) throw inputTooLarge(maxBody);
      chunks.push(bytes);
    }
  } catch (error) {
    if (path === undefined || error instanceof ApiError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    throw new UsageError(`cannot read ${path}: ${reason}`);
  }
  return Buffer.concat(chunks, size);
}

function inputTooLarge(maxBody: number | undefined): ApiError {
  return new ApiError(
    'LIMIT_EXCEEDED',
    maxBody === undefined
      ? `The input is larger than ${LONGEST_TEXT} bytes, the longest text Node can hold, so it ` +
          'cannot be read as JSON; split it into smaller structures.'
      : `The input is larger than --max-body ${maxBody} bytes; give a larger --max-body, or leave ` +
          'it out: without it the CLI has no byte limit.',
  );
}

/** Process wiring for `bin/sbe-engine.mjs` and `tsx cli/engine.ts`. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  endOnOutputError();
  process.exitCode = await runEngineCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  });
}

if (isMainModule(import.meta.url)) void main();
