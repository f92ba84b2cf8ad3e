/**
 * The Jaeger query service's answer envelope, `{ data, total, limit, offset, errors }`, as both
 * formats it carries (dependency links, traces) read it. `errors` holds `{ code, msg }` for what
 * the query could not read: its storage down, a trace id it does not have.
 *
 * - An error and nothing read (`data` null, missing or empty) is a failed answer: refused with the
 *   source's own error at `errors[0]`, never read as an empty system, so a refresh that meets an
 *   outage leaves the structure it has (a refresh replaces it only with one whole and valid).
 * - An error beside what was read is a partial answer: read, with a warning naming the error.
 */
import { describeValue, isRecord, quote } from './text';
import { FormatError } from './types';

const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['data', 'total', 'limit', 'offset', 'errors']);

/** Whether every key of the object is one of the envelope's. */
export function onlyEnvelopeKeys(document: Record<string, unknown>): boolean {
  return Object.keys(document).every((key) => ENVELOPE_KEYS.has(key));
}

/** The envelope's errors, when it reports any (Jaeger sends `errors: null` when it has none). */
function reportedErrors(document: unknown): readonly unknown[] | undefined {
  if (!isRecord(document) || !Array.isArray(document.errors) || document.errors.length === 0)
    return undefined;
  return document.errors;
}

/** An answer that reports an error and holds nothing else: `{ data: null, errors: [{ code, msg }] }`. */
export function isFailedAnswer(document: Record<string, unknown>): boolean {
  return (
    (document.data === null || document.data === undefined) &&
    reportedErrors(document) !== undefined &&
    onlyEnvelopeKeys(document)
  );
}

/**
 * Refuses an answer that reports an error where nothing was read (`read` elements, 0 for none or
 * a `data` that holds none); otherwise the warning for an error beside what was read, if any.
 */
export function envelopeErrors(document: unknown, read: number, what: string): string[] {
  const errors = reportedErrors(document);
  if (errors === undefined) return [];
  if (read === 0) throw new FormatError('errors[0]', `the source answered with ${sourceError(errors)}`, true);
  return [`errors[0]: the source reported ${sourceError(errors)} beside its ${what}`];
}

/** Jaeger's first error, `{ code, msg }`, in words: `an error (code 500): "no storage"`. */
function sourceError(errors: readonly unknown[]): string {
  const first = errors[0];
  const message = isRecord(first) && typeof first.msg === 'string' ? quote(first.msg) : describeValue(first);
  const code = isRecord(first) && typeof first.code === 'number' ? ` (code ${first.code})` : '';
  return `an error${code}: ${message}`;
}
