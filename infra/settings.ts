/**
 * What a deployment may choose, read from CDK context (`cdk.json`, or `-c key=value` on the
 * command line). Every value is checked when the app starts: a wrong one stops the synth and
 * names the context key, instead of deploying something other than what was asked for.
 */
import { DEFAULT_QUOTAS, QUOTA_RANGES, type Quotas } from '../lib/config/quotas';
import { type CorsSettings, readCorsSettings } from '../lib/http/cors';

export interface DeploySettings {
  /** Suffix of the stack name, so several copies (`dev`, `prod`) can live in one account. */
  readonly stage: string | undefined;
  /**
   * A stage meant to be thrown away: the table, user pool and log groups are deleted with the
   * stack and the table has no deletion protection. Off by default: data outlives the stack.
   */
  readonly throwaway: boolean;
  /** Steady-state requests per second the API stage accepts before answering 429. */
  readonly throttleRateLimit: number;
  /** Requests the stage accepts in a burst above the steady rate. */
  readonly throttleBurstLimit: number;
  /**
   * `POST /api/engine`'s own throttle, below the stage's: each of its requests may hold a full
   * vCPU for up to 15 s, so 100 a second could keep 1,500 executions busy.
   */
  readonly engineThrottleRateLimit: number;
  readonly engineThrottleBurstLimit: number;
  /** The same for connect, registration and refresh, which fetch, read and store up to 64 MiB. */
  readonly connectThrottleRateLimit: number;
  readonly connectThrottleBurstLimit: number;
  /** Days the function and access logs are kept. */
  readonly logRetentionDays: number;
  /** The functions' `LOG_LEVEL`. */
  readonly logLevel: string;
  /** Browser origins allowed to call the API; `undefined` leaves CORS off. */
  readonly cors: CorsSettings | undefined;
  /** An SNS topic every alarm notifies; without it the stack creates its own. */
  readonly alarmTopicArn: string | undefined;
  /** An address subscribed (by email, confirmed by its owner) to the alarms' topic. */
  readonly alarmEmail: string | undefined;
  /** X-Ray tracing of both functions (the DynamoDB client and the outbound fetch); off by default. */
  readonly tracing: boolean;
  /**
   * A custom domain for the explorer's distribution, which also serves the API under `/api/*`,
   * with its certificate (in us-east-1, CloudFront's region) and optionally the Route 53 zone
   * that gets its alias records. `undefined` keeps CloudFront's own name.
   */
  readonly domain: DomainSettings | undefined;
  /** Cognito threat protection (the Plus feature plan, billed per user); off unless asked. */
  readonly advancedSecurity: boolean;
  /**
   * Concurrent executions reserved for (and capping) each function; `undefined` leaves it to the
   * account's unreserved pool. Opt-in: reserving fails the deploy on an account whose limit
   * cannot spare it (new accounts may have as few as 10).
   */
  readonly reservedConcurrency: Readonly<Record<'engine' | 'connect', number | undefined>>;
  /** What one owner may keep: the connect function's MAX_SYSTEMS/KEYS/BYTES_PER_OWNER. */
  readonly quotas: Quotas;
}

export interface DomainSettings {
  readonly domainName: string;
  readonly certificateArn: string;
  readonly hostedZoneId: string | undefined;
}

/** The keys this app reads, each with what it takes; also what `docs/deploy.md` lists. */
export const CONTEXT_KEYS = {
  stage: 'a stage name: 1-20 letters, digits or dashes, starting with a letter',
  throwaway: 'true or false',
  throttleRateLimit: 'an integer from 1 to 10000 (requests per second)',
  throttleBurstLimit: 'an integer from 1 to 5000 (requests)',
  engineThrottleRateLimit: 'an integer from 1 to 10000 (requests per second)',
  engineThrottleBurstLimit: 'an integer from 1 to 5000 (requests)',
  connectThrottleRateLimit: 'an integer from 1 to 10000 (requests per second)',
  connectThrottleBurstLimit: 'an integer from 1 to 5000 (requests)',
  logRetentionDays:
    'one of CloudWatch Logs retention periods: 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, …',
  logLevel:
    'one of TRACE, DEBUG, INFO (the ServerFaults alarm counts INFO request lines, so nothing quieter)',
  corsAllowOrigins: 'a comma-separated list of origins, or *',
  alarmTopicArn: 'the ARN of an SNS topic',
  alarmEmail: 'an email address',
  tracing: 'true or false',
  domainName: 'a fully qualified domain name such as sbe.example.com, given with certificateArn',
  certificateArn:
    'the ARN of an ACM certificate in us-east-1 (CloudFront takes certificates from there only) that covers domainName, given with domainName',
  hostedZoneId: 'a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ, given with domainName',
  advancedSecurity: 'true or false',
  engineReservedConcurrency: 'an integer from 1 to 1000 (concurrent executions)',
  connectReservedConcurrency: 'an integer from 1 to 1000 (concurrent executions)',
  maxSystemsPerOwner: `an integer from 1 to ${QUOTA_RANGES.maxSystems.max} (systems per user)`,
  maxKeysPerOwner: `an integer from 1 to ${QUOTA_RANGES.maxKeys.max} (active API keys per user)`,
  maxBytesPerOwner: `an integer from 1 to ${QUOTA_RANGES.maxBytes.max} (stored bytes per user, compressed)`,
} as const;

export type ContextKey = keyof typeof CONTEXT_KEYS;

const DEFAULT_SETTINGS = Object.freeze({
  throwaway: false,
  throttleRateLimit: 100,
  throttleBurstLimit: 200,
  engineThrottleRateLimit: 20,
  engineThrottleBurstLimit: 40,
  connectThrottleRateLimit: 10,
  connectThrottleBurstLimit: 20,
  logRetentionDays: 30,
  logLevel: 'INFO',
  advancedSecurity: false,
  tracing: false,
});

/** CloudWatch Logs accepts only these retention periods (days). */
const RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];
/** INFO or more verbose: the request lines the ServerFaults metric filter counts are written at INFO. */
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO'];
const STAGE_SHAPE = /^[A-Za-z][A-Za-z0-9-]{0,19}$/;
/** A host name of lower-case labels (letters, digits, inner dashes), the last not all digits. */
const DOMAIN_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
const CLOUDFRONT_CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]{36}$/;
const HOSTED_ZONE_ID = /^Z[A-Z0-9]{1,31}$/;
/** Deliberately plain: SNS checks the address, this only catches a value pasted into the wrong key. */
const EMAIL_ADDRESS = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/;
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

/** Reads context values: `tryGetContext` of a construct node, or a plain record in tests. */
export type ContextReader = (key: string) => unknown;

/**
 * Reads and checks the deploy settings, from CDK context only (`-c key=value` or cdk.json):
 * never from the deployer's environment, so what a stack allows (CORS origins above all) is
 * what its command line or cdk.json says, not whatever the shell that ran `cdk deploy` had
 * exported for the local server. `corsAllowOrigins` goes through the local server's parser.
 */
export function readDeploySettings(context: ContextReader): DeploySettings {
  const text = (key: ContextKey): string | undefined => {
    const value = context(key);
    if (value === undefined || value === null) return undefined;
    // `-c key=value` always gives a string; cdk.json may give a number or a boolean.
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw invalid(key);
    }
    const trimmed = String(value).trim();
    if (trimmed === '') throw invalid(key);
    return trimmed;
  };
  const flag = (key: ContextKey, fallback: boolean): boolean => {
    const value = text(key);
    if (value === undefined) return fallback;
    if (value !== 'true' && value !== 'false') throw invalid(key);
    return value === 'true';
  };
  const optionalInteger = (key: ContextKey, min: number, max: number): number | undefined => {
    const value = text(key);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || parsed < min || parsed > max) throw invalid(key);
    return parsed;
  };
  const integer = (key: ContextKey, fallback: number, min: number, max: number): number =>
    optionalInteger(key, min, max) ?? fallback;

  const stage = text('stage');
  if (stage !== undefined && !STAGE_SHAPE.test(stage)) throw invalid('stage');
  const logRetentionDays = integer('logRetentionDays', DEFAULT_SETTINGS.logRetentionDays, 1, 3653);
  if (!RETENTION_DAYS.includes(logRetentionDays)) throw invalid('logRetentionDays');
  const logLevel = (text('logLevel') ?? DEFAULT_SETTINGS.logLevel).toUpperCase();
  if (!LOG_LEVELS.includes(logLevel)) throw invalid('logLevel');
  const alarmTopicArn = text('alarmTopicArn');
  if (alarmTopicArn !== undefined && !SNS_TOPIC_ARN.test(alarmTopicArn)) throw invalid('alarmTopicArn');
  const alarmEmail = text('alarmEmail');
  if (alarmEmail !== undefined && !EMAIL_ADDRESS.test(alarmEmail)) throw invalid('alarmEmail');
  const corsAllowOrigins = text('corsAllowOrigins');
  let cors: CorsSettings | undefined;
  try {
    cors = readCorsSettings(corsAllowOrigins === undefined ? {} : { CORS_ALLOW_ORIGINS: corsAllowOrigins });
  } catch (error) {
    throw new DeploySettingsError(`context corsAllowOrigins: ${(error as Error).message}`);
  }

  return Object.freeze({
    stage,
    throwaway: flag('throwaway', DEFAULT_SETTINGS.throwaway),
    throttleRateLimit: integer('throttleRateLimit', DEFAULT_SETTINGS.throttleRateLimit, 1, 10_000),
    throttleBurstLimit: integer('throttleBurstLimit', DEFAULT_SETTINGS.throttleBurstLimit, 1, 5000),
    connectThrottleRateLimit: integer(
      'connectThrottleRateLimit',
      DEFAULT_SETTINGS.connectThrottleRateLimit,
      1,
      10_000,
    ),
    connectThrottleBurstLimit: integer(
      'connectThrottleBurstLimit',
      DEFAULT_SETTINGS.connectThrottleBurstLimit,
      1,
      5000,
    ),
    engineThrottleRateLimit: integer(
      'engineThrottleRateLimit',
      DEFAULT_SETTINGS.engineThrottleRateLimit,
      1,
      10_000,
    ),
    engineThrottleBurstLimit: integer(
      'engineThrottleBurstLimit',
      DEFAULT_SETTINGS.engineThrottleBurstLimit,
      1,
      5000,
    ),
    logRetentionDays,
    logLevel,
    cors,
    alarmTopicArn,
    alarmEmail,
    tracing: flag('tracing', DEFAULT_SETTINGS.tracing),
    domain: readDomain(text),
    advancedSecurity: flag('advancedSecurity', DEFAULT_SETTINGS.advancedSecurity),
    reservedConcurrency: Object.freeze({
      engine: optionalInteger('engineReservedConcurrency', 1, 1000),
      connect: optionalInteger('connectReservedConcurrency', 1, 1000),
    }),
    quotas: Object.freeze({
      maxSystems: integer('maxSystemsPerOwner', DEFAULT_QUOTAS.maxSystems, 1, QUOTA_RANGES.maxSystems.max),
      maxKeys: integer('maxKeysPerOwner', DEFAULT_QUOTAS.maxKeys, 1, QUOTA_RANGES.maxKeys.max),
      maxBytes: integer('maxBytesPerOwner', DEFAULT_QUOTAS.maxBytes, 1, QUOTA_RANGES.maxBytes.max),
    }),
  });
}

/** `domainName` and `certificateArn` come together; `hostedZoneId` only with them. */
function readDomain(text: (key: ContextKey) => string | undefined): DomainSettings | undefined {
  const domainName = text('domainName')?.toLowerCase();
  const certificateArn = text('certificateArn');
  const hostedZoneId = text('hostedZoneId');
  if (domainName !== undefined && !DOMAIN_NAME.test(domainName)) throw invalid('domainName');
  if (certificateArn !== undefined && !CLOUDFRONT_CERTIFICATE_ARN.test(certificateArn)) {
    throw invalid('certificateArn');
  }
  if (hostedZoneId !== undefined && !HOSTED_ZONE_ID.test(hostedZoneId)) throw invalid('hostedZoneId');
  if (domainName === undefined) {
    if (certificateArn !== undefined) throw invalid('domainName');
    if (hostedZoneId !== undefined) throw invalid('domainName');
    return undefined;
  }
  if (certificateArn === undefined) throw invalid('certificateArn');
  return Object.freeze({ domainName, certificateArn, hostedZoneId });
}

/** A context value that is not what its key takes; the app prints the message alone and stops. */
export class DeploySettingsError extends Error {
  override readonly name = 'DeploySettingsError';
}

function invalid(key: ContextKey): DeploySettingsError {
  // The value is not repeated: a context value can be pasted from the wrong place.
  return new DeploySettingsError(`context ${key} must be ${CONTEXT_KEYS[key]}`);
}

/** The stage whose stack is protected from deletion (CloudFormation termination protection). */
export const PRODUCTION_STAGE = 'prod';

/** The stack's name: one per stage. */
export function stackNameOf(settings: Pick<DeploySettings, 'stage'>): string {
  return settings.stage === undefined ? 'SystemBehaviorEngine' : `SystemBehaviorEngine-${settings.stage}`;
}
