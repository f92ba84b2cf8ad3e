/**
 * The structure breaks a rule the engine relies on. The message names the offending element
 * (`dependencies[12].to: unknown node "db"`) and is safe to return to the caller as is.
 */
export class PayloadError extends Error {
  override readonly name = 'PayloadError';
  /** Where the problem is, e.g. `nodes[3].load`; empty for the structure as a whole. */
  readonly path: string;

  constructor(path: string, problem: string) {
    super(path ? `${path}: ${problem}` : problem);
    this.path = path;
  }
}

/**
 * The result cannot be turned into JSON text: longer than a JavaScript string can be. The
 * request's limits should stop such a structure first; this is the honest answer if one slips by.
 */
export class ResultTooLargeError extends Error {
  override readonly name = 'ResultTooLargeError';
}
