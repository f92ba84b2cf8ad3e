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

/**
 * The node and field a problem's path names: `nodes[3].capacity` is node 3's `capacity`,
 * `nodes[3]` node 3 as a whole; `undefined` for any other path.
 */
export function nodeFieldOf(path: string): { v: number; field: string | undefined } | undefined {
  // Stryker disable next-line Regex: same answer (the engine's paths are exactly `nodes[i]` or `nodes[i].field`)
  const match = /^nodes\[(\d+)\](?:\.(\w+))?$/.exec(path);
  return match === null ? undefined : { v: Number(match[1]), field: match[2] };
}

/** The fields of one queue: a problem with one of them comes from the three together. */
const QUEUE_FIELDS = ['capacity', 'servers', 'serviceTime'];

/**
 * Which field of a change (a scenario's, a system's settings) a problem with the node's field
 * `named` is said of: `named` itself when the change sets it; for a field of the queue, else the
 * first of the queue's fields the change sets; `undefined` when neither.
 */
export function fieldToBlame(named: string, sets: (field: string) => boolean): string | undefined {
  if (sets(named)) return named;
  return QUEUE_FIELDS.includes(named) ? QUEUE_FIELDS.find(sets) : undefined;
}
