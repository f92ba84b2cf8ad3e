/**
 * The node and dependency fields the engine reads and checks. Random "extra" fields must avoid
 * them: an extra `slo: null` is not an extra but a bad SLO, and the engine rightly refuses it.
 */
const ENGINE_INPUT_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'load',
  'capacity',
  'arrival',
  'exit',
  'fanout',
  'serviceTime',
  'servers',
  'slo',
  'from',
  'to',
  'weight',
]);

/** Keys for random extra fields: anything the engine does not read. */
export function isExtraKey(key: string): boolean {
  return !ENGINE_INPUT_FIELDS.has(key);
}
