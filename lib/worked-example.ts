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

/**
 * The open worked example: a front end F takes 10 requests a step and fans each out into one
 * call on A and two on B (capacity 15); both call the database D, whose only way out is its
 * exit. Its numbers, and those of the scenarios run on it, are in docs/engine.md.
 */
export const OPEN_WORKED_EXAMPLE = Object.freeze({
  nodes: Object.freeze([
    Object.freeze({ id: 'F', arrival: 10, fanout: true }),
    Object.freeze({ id: 'A' }),
    Object.freeze({ id: 'B', capacity: 15 }),
    Object.freeze({ id: 'D', exit: 1 }),
  ]),
  dependencies: Object.freeze([
    Object.freeze({ from: 'F', to: 'A' }),
    Object.freeze({ from: 'F', to: 'B', weight: 2 }),
    Object.freeze({ from: 'A', to: 'D' }),
    Object.freeze({ from: 'B', to: 'D' }),
  ]),
});
