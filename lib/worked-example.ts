/**
 * The engine model's worked example: A (load 10) feeds B (capacity 4) and C, and B feeds C.
 * Its numbers are in docs/engine.md; the OpenAPI examples, the local server's curl and the
 * tests all use this one copy.
 */
export const WORKED_EXAMPLE = Object.freeze({
  nodes: Object.freeze([
    Object.freeze({ id: 'A', load: 10 }),
    Object.freeze({ id: 'B', load: 0, capacity: 4 }),
    Object.freeze({ id: 'C', load: 0 }),
  ]),
  dependencies: Object.freeze([
    Object.freeze({ from: 'A', to: 'B' }),
    Object.freeze({ from: 'A', to: 'C' }),
    Object.freeze({ from: 'B', to: 'C' }),
  ]),
});
