/**
 * The one way this project reads environment variables. They are read at cold start (or when
 * a CLI or the local server starts): a value that is set but wrong throws there, naming the
 * variable, instead of quietly falling back to a default and surfacing later as a baffling
 * limit. Every variable follows the same rule: unset means the default; set but empty (or only
 * whitespace) is an error; surrounding whitespace is ignored.
 */

/** `process.env`, or any plain record of the same shape (tests pass their own). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A variable the AWS SDK reads itself (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, …). It follows the
 * SDK's rule, not ours: empty counts as unset, so this project and the SDK never disagree.
 */
export function awsSdkEnv(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The value as set, trimmed, or `undefined` when unset. Set-but-empty throws. */
export function optionalEnv(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  // An empty value is almost always a templating slip (`MAX_NODES=${UNSET}`); treating it as
  // unset would hide the slip behind the default.
  if (value.trim() === '') throw new Error(`${name} is set but empty; unset it to use the default`);
  return value.trim();
}

const MAX_ECHOED = 40;

/** Integer settings are not secret, so echo them (cut short) to make the mistake obvious. */
function echo(value: string): string {
  return JSON.stringify(value.length > MAX_ECHOED ? `${value.slice(0, MAX_ECHOED)}…` : value);
}

export interface IntRange {
  min: number;
  max: number;
}

/**
 * Reads an integer setting. Unset → `fallback`. Set → must be a plain decimal integer
 * (`"1000"`, `"-5"`; not `"1e3"`, `"10.0"`, `"0x10"` or `"1_000"`) within `min..max`, else throws.
 */
export function envInt(env: Env, name: string, fallback: number, range: IntRange): number {
  const raw = optionalEnv(env, name);
  if (raw === undefined) return fallback;
  const text = raw.trim();
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new Error(`${name} must be an integer from ${range.min} to ${range.max}; got ${echo(raw)}`);
  }
  if (value < range.min || value > range.max) {
    throw new Error(`${name} must be an integer from ${range.min} to ${range.max}; got ${value}`);
  }
  return value;
}

export interface StringRule {
  /** The value must be one of these. */
  allowed?: readonly string[];
  /** The value must match this. */
  pattern?: RegExp;
}

/**
 * Reads a string setting. Unset → `fallback`. Set → must satisfy `rule`, else throws.
 * The error never repeats the value: string settings can hold secrets put in the wrong place.
 */
export function envString(env: Env, name: string, fallback: string, rule: StringRule = {}): string {
  const value = optionalEnv(env, name);
  if (value === undefined) return fallback;
  if (rule.allowed && !rule.allowed.includes(value)) {
    throw new Error(`${name} must be one of ${rule.allowed.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  if (rule.pattern && !rule.pattern.test(value)) {
    throw new Error(`${name} must match ${rule.pattern}`);
  }
  return value;
}

/** Reads a setting that has no sensible default (a table name, an issuer URL); throws when unset or empty. */
export function requiredEnv(env: Env, name: string): string {
  const value = optionalEnv(env, name);
  if (value === undefined) throw new Error(`${name} is required but not set`);
  return value;
}
