import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, readLimits } from '../../lib/config/limits';

describe('readLimits', () => {
  it("gives the contract's defaults when nothing is set", () => {
    // 6 MB is Lambda's 6 MiB: 6,291,456 bytes, for the request and the response alike.
    expect(readLimits({})).toEqual({
      maxBodyBytes: 6_291_456,
      maxDecodedBodyBytes: 67_108_864,
      maxNodes: 100_000,
      maxDependencies: 500_000,
      maxTicks: 1000,
      defaultTicks: 10,
      maxResponseBytes: 6_291_456,
      maxResponseElements: 1_000_000,
    });
    expect(readLimits({})).toEqual(DEFAULT_LIMITS);
  });

  it('reads every variable', () => {
    // A small test deployment lowers everything.
    const limits = readLimits({
      MAX_BODY_BYTES: '1024',
      MAX_DECODED_BODY_BYTES: '4096',
      MAX_NODES: '50',
      MAX_DEPENDENCIES: '60',
      MAX_TICKS: '20',
      DEFAULT_TICKS: '5',
      MAX_RESPONSE_BYTES: '65536',
      MAX_RESPONSE_ELEMENTS: '700',
    });
    expect(limits).toEqual({
      maxBodyBytes: 1024,
      maxDecodedBodyBytes: 4096,
      maxNodes: 50,
      maxDependencies: 60,
      maxTicks: 20,
      defaultTicks: 5,
      maxResponseBytes: 65_536,
      maxResponseElements: 700,
    });
  });

  it.each([
    ['MAX_BODY_BYTES', '6291457'],
    ['MAX_NODES', '1000001'],
    ['MAX_DEPENDENCIES', '5000001'],
    ['MAX_TICKS', '1001'],
    ['MAX_RESPONSE_BYTES', '6291457'],
    ['MAX_RESPONSE_ELEMENTS', '1000001'],
  ])('refuses to raise %s past its ceiling (%s)', (name, value) => {
    // Lambda's payload limit and the contract's ticks are ceilings; the counts have ceilings of their own.
    expect(() => readLimits({ [name]: value })).toThrow(new RegExp(`^${name} must be an integer`));
  });

  it('lets a deployment with more memory raise the node and dependency counts', () => {
    const raised = readLimits({ MAX_NODES: '250000', MAX_DEPENDENCIES: '1000000' });
    expect(raised.maxNodes).toBe(250_000);
    expect(raised.maxDependencies).toBe(1_000_000);
  });

  it.each([
    ['MAX_NODES', 'lots'],
    ['MAX_TICKS', '0'],
    ['DEFAULT_TICKS', '2.5'],
    ['MAX_RESPONSE_BYTES', '100'],
  ])('throws naming %s for the bad value %j', (name, value) => {
    expect(() => readLimits({ [name]: value })).toThrow(new RegExp(`^${name} `));
  });

  it('refuses a default above the maximum', () => {
    // DEFAULT_TICKS=50 with MAX_TICKS=20 would make a request without `ticks` invalid.
    expect(() => readLimits({ MAX_TICKS: '20', DEFAULT_TICKS: '50' })).toThrow(
      'DEFAULT_TICKS must be an integer from 1 to 20; got 50',
    );
  });

  it('pulls the default down with a lowered maximum', () => {
    // MAX_TICKS=5 alone: the default of 10 would exceed it, so the default becomes 5.
    expect(readLimits({ MAX_TICKS: '5' }).defaultTicks).toBe(5);
  });

  it('allows zero dependencies but not zero nodes', () => {
    // A deployment may accept only dependency-free structures; one that accepts no nodes is useless.
    expect(readLimits({ MAX_DEPENDENCIES: '0' }).maxDependencies).toBe(0);
    expect(() => readLimits({ MAX_NODES: '0' })).toThrow(/^MAX_NODES/);
  });
});
