/**
 * The engine's guarantee that every number it returns is finite. Inputs are bounded so that
 * no result can overflow (see `MAX_TOTAL_LOAD`); this is the check that the bound holds. A
 * non-finite number is an engine bug: JSON would print it as `null` and the caller would get
 * a 200 with a hole in it, so it is thrown instead and reported as an engine failure.
 */

/**
 * A broken guarantee inside the engine: never the caller's fault, always worth a report.
 * @internal tests check that a broken invariant throws this type.
 */
export class EngineInvariantError extends Error {
  override readonly name = 'EngineInvariantError';
}

/**
 * Throws naming `<list>[i].<field>` for the first value of `values` that is not finite.
 * `x * 0` is 0 for every finite `x` and NaN otherwise, so one branch-free pass decides
 * whether the slower search for the culprit is needed.
 */
export function assertFinite(values: ArrayLike<number>, list: string, field: string): void {
  let poison = 0;
  // Stryker disable next-line EqualityOperator,AssignmentOperator,ArithmeticOperator: the quick pass only decides whether to search; a wrong "search" finds nothing and returns
  for (let i = 0; i < values.length; i++) poison += values[i]! * 0;
  // Stryker disable next-line ConditionalExpression: the same
  if (poison === 0) return;
  // Stryker disable next-line EqualityOperator: the search throws at the first non-finite value, always before the end
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) throw nonFinite(`${list}[${i}].${field}`, values[i]!);
  }
}

/** Throws naming `where` when `value` is not finite. */
export function assertFiniteNumber(value: number, where: string): void {
  if (!Number.isFinite(value)) throw nonFinite(where, value);
}

function nonFinite(where: string, value: number): EngineInvariantError {
  return new EngineInvariantError(`the engine computed a non-finite number: ${where} is ${value}`);
}
