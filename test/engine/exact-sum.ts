/**
 * Exact arithmetic on doubles for tests that pin rounding: every finite double is an integer
 * multiple of 2^-1074, so scaled by 2^1074 it is a BigInt and sums of them are exact.
 */
const view = new DataView(new ArrayBuffer(8));

/** `x × 2^1074` exactly. */
export function scaled(x: number): bigint {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite double: ${x}`);
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const exponent = (bits >> 52n) & 0x7ffn;
  const fraction = bits & 0xfffffffffffffn;
  const magnitude = exponent === 0n ? fraction : (fraction | (1n << 52n)) << (exponent - 1n);
  return negative ? -magnitude : magnitude;
}

/** The exact sum of `values`, scaled by 2^1074. */
export function exactSum(values: Iterable<number>): bigint {
  let sum = 0n;
  for (const value of values) sum += scaled(value);
  return sum;
}

/** The gap between `x` (> 0) and the next larger double, scaled by 2^1074. */
export function ulp(x: number): bigint {
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return scaled(view.getFloat64(0)) - scaled(x);
}
