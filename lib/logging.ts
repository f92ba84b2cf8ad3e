import { Logger } from '@aws-lambda-powertools/logger';
import { type Env, optionalEnv } from './config/env';

/** The `service` of every log line unless `POWERTOOLS_SERVICE_NAME` names another. */
export const SERVICE_NAME = 'system-behavior-engine';

const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Attribute names whose values are never written, whatever code passes them in. The request
 * path never hands these to the logger; this is the second line of defence, not the first.
 */
const SECRET_ATTRIBUTE =
  /^(authorization|cookie|set-cookie|x-api-key|api[-_]?key|token|access[-_]?token|secret|password)$/i;

const REDACTED = '[redacted]';

/** `JSON.stringify` replacer that blanks secret-named attributes at any depth. */
function redactSecrets(key: string, value: unknown): unknown {
  return key !== '' && SECRET_ATTRIBUTE.test(key) && value !== undefined ? REDACTED : value;
}

export interface LoggerOptions {
  /** Reads `LOG_LEVEL` (TRACE … CRITICAL, SILENT; any case; default INFO) and `POWERTOOLS_SERVICE_NAME`. */
  env?: Env;
  serviceName?: string;
}

/**
 * Builds the process's one structured (JSON lines) logger; handlers and middlewares get it
 * injected. An unknown LOG_LEVEL throws at cold start instead of being silently ignored.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  return new Logger({
    serviceName: options.serviceName ?? optionalEnv(env, 'POWERTOOLS_SERVICE_NAME') ?? SERVICE_NAME,
    logLevel: readLogLevel(env),
    jsonReplacerFn: redactSecrets,
  });
}

function readLogLevel(env: Env): LogLevel {
  const raw = optionalEnv(env, 'LOG_LEVEL');
  if (raw === undefined) return 'INFO';
  const level = raw.toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (any case)`);
  }
  return level as LogLevel;
}
