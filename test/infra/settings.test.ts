import { describe, expect, it } from 'vitest';
import { DeploySettingsError, readDeploySettings, stackNameOf } from '../../infra/settings';

const read = (context: Record<string, unknown>) => readDeploySettings((key) => context[key]);

describe('readDeploySettings', () => {
  // `npx cdk deploy` with no -c at all: a kept, production-like stage.
  // The costly routes on their own: the engine at 20/40 (each of its requests may hold a vCPU for
  // 15 s), connect, registration and refresh at 10/20.
  it('keeps data, throttles at 100/200 (the engine at 20/40, connect at 10/20), keeps logs 30 days, CORS off when nothing is given', () => {
    expect(read({})).toEqual({
      stage: undefined,
      throwaway: false,
      throttleRateLimit: 100,
      throttleBurstLimit: 200,
      engineThrottleRateLimit: 20,
      engineThrottleBurstLimit: 40,
      connectThrottleRateLimit: 10,
      connectThrottleBurstLimit: 20,
      logRetentionDays: 30,
      logLevel: 'INFO',
      cors: undefined,
      alarmTopicArn: undefined,
      alarmEmail: undefined,
      tracing: false,
      domain: undefined,
      advancedSecurity: false,
      reservedConcurrency: { engine: undefined, connect: undefined },
      quotas: { maxSystems: 100, maxKeys: 20, maxBytes: 1024 ** 3 },
    });
  });

  // The per-owner quotas, read like every other number, refused outside their range.
  it('sets the per-owner quotas from context', () => {
    expect(read({ maxSystemsPerOwner: '5', maxKeysPerOwner: 3, maxBytesPerOwner: '1048576' }).quotas).toEqual(
      {
        maxSystems: 5,
        maxKeys: 3,
        maxBytes: 1048576,
      },
    );
    expect(() => read({ maxKeysPerOwner: '0' })).toThrow(DeploySettingsError);
    expect(() => read({ maxSystemsPerOwner: '1e3' })).toThrow(
      'context maxSystemsPerOwner must be an integer',
    );
  });

  // `-c` gives strings, cdk.json may give numbers and booleans: both mean the same.
  // Opt-in: an account whose concurrency limit cannot spare the reservation would fail the deploy.
  it('reserves concurrency per function only when asked', () => {
    expect(read({ engineReservedConcurrency: '50' }).reservedConcurrency).toEqual({
      engine: 50,
      connect: undefined,
    });
  });

  it('reads strings from the command line and numbers or booleans from cdk.json alike', () => {
    expect(read({ throttleRateLimit: '7', throwaway: 'true' })).toMatchObject({
      throttleRateLimit: 7,
      throwaway: true,
    });
    expect(read({ throttleRateLimit: 7, throwaway: true })).toMatchObject({
      throttleRateLimit: 7,
      throwaway: true,
    });
  });

  it.each([
    ['throwaway', 'yes', 'context throwaway must be true or false'],
    ['throttleRateLimit', '0', 'context throttleRateLimit must be an integer from 1 to 10000'],
    ['throttleRateLimit', '1e3', 'context throttleRateLimit must be an integer'],
    ['throttleBurstLimit', '5001', 'context throttleBurstLimit must be an integer from 1 to 5000'],
    ['engineThrottleRateLimit', '0', 'context engineThrottleRateLimit must be an integer from 1 to 10000'],
    ['connectThrottleRateLimit', '-1', 'context connectThrottleRateLimit must be an integer from 1 to 10000'],
    ['connectThrottleBurstLimit', '0', 'context connectThrottleBurstLimit must be an integer from 1 to 5000'],
    [
      'engineThrottleBurstLimit',
      '5001',
      'context engineThrottleBurstLimit must be an integer from 1 to 5000',
    ],
    ['logRetentionDays', '31', 'context logRetentionDays must be one of CloudWatch Logs retention periods'],
    ['logLevel', 'verbose', 'context logLevel must be one of TRACE'],
    // WARN would drop the INFO request lines the ServerFaults alarm counts: the alarm would go silent.
    ['logLevel', 'warn', 'context logLevel must be one of TRACE, DEBUG, INFO'],
    ['stage', 'prod/eu', 'context stage must be a stage name'],
    ['stage', '', 'context stage must be a stage name'],
    [
      'alarmTopicArn',
      'arn:aws:sqs:eu-west-1:123456789012:q',
      'context alarmTopicArn must be the ARN of an SNS topic',
    ],
    ['advancedSecurity', { on: true }, 'context advancedSecurity must be true or false'],
    ['tracing', 'on', 'context tracing must be true or false'],
    ['alarmEmail', 'ops at example.com', 'context alarmEmail must be an email address'],
    ['domainName', 'https://sbe.example.com', 'context domainName must be a fully qualified domain name'],
    // A certificate alone, or a zone alone, says nothing about which name to serve.
    [
      'certificateArn',
      'arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012',
      'context domainName must be a fully qualified domain name such as sbe.example.com, given with certificateArn',
    ],
    ['hostedZoneId', 'Z0123456789ABCDEFGHIJ', 'context domainName must be'],
    [
      'domainName',
      'sbe.example.com',
      'context certificateArn must be the ARN of an ACM certificate in us-east-1',
    ],
    ['engineReservedConcurrency', '0', 'context engineReservedConcurrency must be an integer from 1 to 1000'],
    ['connectReservedConcurrency', '2.5', 'context connectReservedConcurrency must be an integer'],
  ])('refuses %s=%j, naming the key', (key, value, message) => {
    expect(() => read({ [key]: value })).toThrow(message);
    expect(() => read({ [key]: value })).toThrow(DeploySettingsError);
  });

  // CloudFront takes certificates from us-east-1 only, whatever the stack's region.
  it('takes a custom domain with a us-east-1 certificate, and a zone with them', () => {
    const certificateArn =
      'arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012';
    expect(read({ domainName: 'SBE.Example.com', certificateArn }).domain).toEqual({
      domainName: 'sbe.example.com',
      certificateArn,
      hostedZoneId: undefined,
    });
    expect(
      read({ domainName: 'sbe.example.com', certificateArn, hostedZoneId: 'Z0123456789ABCDEFGHIJ' }).domain
        ?.hostedZoneId,
    ).toBe('Z0123456789ABCDEFGHIJ');
    expect(() =>
      read({
        domainName: 'sbe.example.com',
        certificateArn: certificateArn.replace('us-east-1', 'eu-west-1'),
      }),
    ).toThrow('context certificateArn must be the ARN of an ACM certificate in us-east-1');
    expect(() =>
      read({ domainName: 'sbe.example.com', certificateArn, hostedZoneId: 'example.com' }),
    ).toThrow('context hostedZoneId must be a Route 53 hosted zone id');
  });

  it('reads tracing and an alarm address', () => {
    expect(read({ tracing: 'true', alarmEmail: 'ops@example.com' })).toMatchObject({
      tracing: true,
      alarmEmail: 'ops@example.com',
    });
  });

  it('never repeats a refused value (it may have been pasted from the wrong place)', () => {
    expect(() => read({ alarmTopicArn: 'sbe_secretsecretsecret' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('sbe_secret') }),
    );
  });

  // The local server's CORS_ALLOW_ORIGINS and the deploy setting are parsed by one function,
  // but a deploy reads context only: an origin exported in the deployer's shell for the local
  // server must not silently become the deployed allow-list.
  it('reads CORS origins from context only, with the local server’s parser', () => {
    expect(read({ corsAllowOrigins: 'https://a.example' }).cors).toMatchObject({
      allowOrigins: ['https://a.example'],
    });
    const previous = process.env.CORS_ALLOW_ORIGINS;
    process.env.CORS_ALLOW_ORIGINS = 'https://b.example';
    try {
      expect(read({}).cors).toBeUndefined();
    } finally {
      if (previous === undefined) delete process.env.CORS_ALLOW_ORIGINS;
      else process.env.CORS_ALLOW_ORIGINS = previous;
    }
    expect(() => read({ corsAllowOrigins: 'https://a.example/path' })).toThrow(
      /corsAllowOrigins.*CORS_ALLOW_ORIGINS must be \* or a comma-separated list of origins/,
    );
  });

  it('names the stack after the stage', () => {
    expect(stackNameOf({ stage: undefined })).toBe('SystemBehaviorEngine');
    expect(stackNameOf({ stage: 'dev' })).toBe('SystemBehaviorEngine-dev');
  });
});
