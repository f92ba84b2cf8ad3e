/** The most servers a node may have. */
export const MAX_SERVERS = 10_000;

/**
 * Whether `value` is a number of servers a node may have: a whole number from 1 to `MAX_SERVERS`.
 * The engine checks structures and scenarios with it, the explorer its servers field.
 */
export function isServerCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_SERVERS;
}
