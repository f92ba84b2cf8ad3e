/**
 * Contract check 4 on a body that is already text: UTF-8 as API Gateway hands it over, and
 * JSON. Free of Node's modules, so the explorer's Web Worker answers a pasted body with exactly
 * the API's words.
 */
import { ApiError } from './errors';
import { locateJsonSyntaxError } from './json-syntax';

export const EMPTY_MESSAGE =
  'The request body is empty; send a JSON object such as {"mode":"analyze","nodes":[...],"dependencies":[...]}.';

export const UTF8_MESSAGE =
  'The request body is not valid UTF-8; send JSON text encoded as UTF-8. (API Gateway hands ' +
  'invalid bytes in a text body to the service as U+FFFD, so a raw U+FFFD character is refused ' +
  'too; write a real one as the escape \\ufffd.)';

/** A text body as the API parses an uncompressed one: not empty, no U+FFFD, JSON. */
export function parseJsonText(text: string): unknown {
  if (text.length === 0) throw new ApiError('PAYLOAD_ERROR', EMPTY_MESSAGE);
  return parseJson(checkedText(stripByteOrderMark(text)));
}

/**
 * One rule for every body, however it arrived: API Gateway decodes a text body before the
 * function sees it and replaces each invalid byte with U+FFFD, so a raw U+FFFD is
 * indistinguishable from a broken byte and is refused like one.
 */
export function checkedText(text: string): string {
  if (text.includes('\ufffd')) throw new ApiError('PAYLOAD_ERROR', UTF8_MESSAGE);
  return text;
}

export function stripByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // V8's messages quote the offending input, and the body may hold anything (even a pasted
    // secret), so the position is worked out here and nothing of the body is repeated.
    const syntaxError = locateJsonSyntaxError(text);
    const where =
      syntaxError === undefined
        ? ''
        : `: ${syntaxError.problem} at line ${syntaxError.line}, column ${syntaxError.column}`;
    throw new ApiError('PAYLOAD_ERROR', `The request body is not valid JSON${where}.`);
  }
}
