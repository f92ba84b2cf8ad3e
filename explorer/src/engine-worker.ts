import { structureFromUpstream } from '../../lib/api/connect-request';
import { locateStructure, parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import { ApiError, classifyFailure, errorBody } from '../../lib/api/errors';
import { parseJsonText } from '../../lib/api/json-text';
import { readLimits } from '../../lib/config/limits';
import { type CompiledStructure, latencyCurve } from '../../lib/engine';
import { bareStructureOf } from './bare-structure';
import { latencyPoints } from './latency-points';
import { displayNamesOf } from './names';
import type { LatencyRequest, RunAnswer, WorkerRequest } from './protocol';

/**
 * Runs request bodies through the service's own code (contract checks 4 to 8, the engine, the
 * response writer), so a body the API would accept gets the very bytes `POST /api/engine`
 * answers. Left out, because a page has none of them: the API key, the HTTP layer (body size on
 * the wire, content encodings) and stored systems (`systemId`).
 */
const limits = readLimits({});

/** The object holding the structure of a parsed request body, where it has one. */
function holderOf(body: unknown): Record<string, unknown> | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  return locateStructure(body as Record<string, unknown>)?.holder;
}

/** The readable names of the structure a parsed request body holds (none when it holds none). */
function namesOf(body: unknown): Array<[string, string]> {
  const holder = holderOf(body);
  return Array.isArray(holder?.nodes) ? [...displayNamesOf(holder.nodes)] : [];
}

function run(body: string): Omit<RunAnswer, 'id' | 'ms'> {
  try {
    const parsed = parseJsonText(body);
    const request = parseEngineRequest(parsed, limits);
    return { status: 200, text: renderEngineResponse(request), names: namesOf(parsed) };
  } catch (thrown) {
    const { error } = classifyFailure(thrown);
    return { status: error.status, text: JSON.stringify(errorBody(error)) };
  }
}

/** The worker's global scope, typed without the WebWorker library (it clashes with DOM's). */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: RunAnswer): void;
};

/** An external API's answer as connect reads it: the counts, or the element at fault. */
function checkUpstream(text: string): { status: number; text: string } {
  try {
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new ApiError('UPSTREAM_INVALID', "The external API's answer is not JSON.");
    }
    const { compiled } = structureFromUpstream(answer, limits);
    return {
      status: 200,
      text: JSON.stringify({ nodes: compiled.nodeCount, dependencies: compiled.dependencyCount }),
    };
  } catch (thrown) {
    const { error } = classifyFailure(thrown);
    return { status: error.status, text: JSON.stringify(errorBody(error)) };
  }
}

/** For a body the server ran: its names alone (parsed here, off the page's thread). */
function namesOnly(body: string): Omit<RunAnswer, 'id' | 'ms'> {
  try {
    return { status: 200, text: '', names: namesOf(parseJsonText(body)) };
  } catch {
    return { status: 200, text: '', names: [] };
  }
}

/** For a body that got no result: its structure as written, to draw bare (nothing when unreadable). */
function structureOnly(body: string): Omit<RunAnswer, 'id' | 'ms'> {
  try {
    const parsed = parseJsonText(body);
    const holder = holderOf(parsed);
    if (holder === undefined) return { status: 200, text: '' };
    return { status: 200, text: '', structure: bareStructureOf(holder), names: namesOf(parsed) };
  } catch {
    return { status: 200, text: '' };
  }
}

/**
 * The structure of the last body a latency chart was asked for: selecting another entry of the
 * same answer parses nothing again.
 */
let latencyStructure: { body: string; structure: CompiledStructure } | undefined;

/** The latency chart's points for one entry (see latency-points.ts), or none. */
function latencyOf(request: LatencyRequest): Omit<RunAnswer, 'id' | 'ms'> {
  try {
    if (latencyStructure?.body !== request.body) {
      const parsed = parseEngineRequest(parseJsonText(request.body), limits);
      latencyStructure = { body: request.body, structure: parsed.scenario ?? parsed.structure };
    }
    const { structure } = latencyStructure;
    const points = latencyPoints((scales) => latencyCurve(structure, request.entry, scales), request.slo);
    return { status: 200, text: '', ...(points === undefined ? {} : { latency: points }) };
  } catch (thrown) {
    const { error } = classifyFailure(thrown);
    return { status: error.status, text: JSON.stringify(errorBody(error)) };
  }
}

scope.onmessage = (event) => {
  const started = performance.now();
  const request = event.data;
  const answer =
    request.kind === 'latency'
      ? latencyOf(request)
      : request.kind === 'upstream'
        ? checkUpstream(request.body)
        : request.kind === 'names'
          ? namesOnly(request.body)
          : request.kind === 'structure'
            ? structureOnly(request.body)
            : run(request.body);
  scope.postMessage({ id: event.data.id, ...answer, ms: performance.now() - started });
};
