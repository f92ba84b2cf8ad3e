import { structureFromUpstream } from '../../lib/api/connect-request';
import { locateStructure, parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import { ApiError, classifyFailure, errorBody } from '../../lib/api/errors';
import { parseJsonText } from '../../lib/api/json-text';
import { readLimits } from '../../lib/config/limits';
import { displayNamesOf } from './names';
import type { RunAnswer, RunRequest } from './protocol';

/**
 * Runs request bodies through the service's own code (contract checks 4 to 8, the engine, the
 * response writer), so a body the API would accept gets the very bytes `POST /api/engine`
 * answers. Left out, because a page has none of them: the API key, the HTTP layer (body size on
 * the wire, content encodings) and stored systems (`systemId`).
 */
const limits = readLimits({});

/** The readable names of the structure a parsed request body holds (none when it holds none). */
function namesOf(body: unknown): Array<[string, string]> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const holder = locateStructure(body as Record<string, unknown>)?.holder;
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
  onmessage: ((event: MessageEvent<RunRequest>) => void) | null;
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

scope.onmessage = (event) => {
  const started = performance.now();
  const { kind, body } = event.data;
  const answer = kind === 'upstream' ? checkUpstream(body) : kind === 'names' ? namesOnly(body) : run(body);
  scope.postMessage({ id: event.data.id, ...answer, ms: performance.now() - started });
};
