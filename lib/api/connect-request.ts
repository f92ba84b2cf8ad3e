/**
 * `POST /api/connect`: the body `{ name, url, auth?: { token? } }` checked field by field, and
 * the external API's answer turned into a structure by exactly the engine's rules.
 */
import type { Limits } from '../config/limits';
import { describeValue, isRecord, PayloadError } from '../engine';
import { CONTROL_CHARACTERS } from '../text-rules';
import { type ExtractedStructure, extractStructure } from './engine-request';
import { ApiError } from './errors';

export interface ConnectRequest {
  name: string;
  url: string;
  /** The external API's credential: used for the fetch, never stored, logged or echoed. */
  token: string | undefined;
}

const NAME_MAX = 100;
const URL_MAX = 2048;
const TOKEN_MAX = 8192;
/** What fits in an `Authorization: Bearer` header without breaking it. */
const TOKEN_SHAPE = /^[\x21-\x7e]+$/;

/** Checks the connect body; throws 400 `INVALID_REQUEST` naming the field. The token is never repeated. */
export function parseConnectRequest(body: unknown): ConnectRequest {
  if (!isRecord(body))
    invalid('', `the body must be a JSON object { name, url, auth? }, got ${describeValue(body)}`);
  const name = typeof body.name === 'string' ? body.name.trim() : undefined;
  if (name === undefined || name === '' || name.length > NAME_MAX || CONTROL_CHARACTERS.test(name)) {
    invalid(
      'name',
      `must be 1-${NAME_MAX} characters without control characters, got ${describeValue(body.name)}`,
    );
  }
  const url = body.url;
  if (typeof url !== 'string' || url.length === 0 || url.length > URL_MAX || !URL.canParse(url)) {
    invalid(
      'url',
      `must be an absolute http(s) URL of at most ${URL_MAX} characters, got ${describeValue(url)}`,
    );
  }
  let token: string | undefined;
  if (body.auth !== undefined) {
    if (!isRecord(body.auth))
      invalid('auth', `must be an object { token? }, got ${describeValue(body.auth)}`);
    const candidate = body.auth.token;
    if (candidate !== undefined) {
      if (typeof candidate !== 'string' || candidate.length > TOKEN_MAX || !TOKEN_SHAPE.test(candidate)) {
        // Described by its kind only: it is a credential.
        invalid('auth.token', `must be 1-${TOKEN_MAX} visible ASCII characters without spaces`);
      }
      token = candidate;
    }
  }
  return { name: name!, url: url as string, token };
}

/**
 * The structure in the external API's answer, by the engine's rules (direct or container
 * formats, the same validation and limits); anything else is 422 `UPSTREAM_INVALID` naming the
 * element, so a structure connect accepts is one the engine accepts.
 */
export function structureFromUpstream(answer: unknown, limits: Limits): ExtractedStructure {
  try {
    return extractStructure(answer, limits);
  } catch (error) {
    if (!(error instanceof PayloadError)) throw error;
    throw new ApiError(
      'UPSTREAM_INVALID',
      `The external API's answer is not a structure the engine accepts: ${error.message}`,
      {
        details: [{ path: error.path, message: error.message }],
      },
    );
  }
}

function invalid(path: string, problem: string): never {
  throw new ApiError('INVALID_REQUEST', path === '' ? problem : `${path} ${problem}`, {
    ...(path === '' ? {} : { details: [{ path, message: problem }] }),
  });
}
