import { describe, expect, it } from 'vitest';
import { OutboundError } from '../../lib/outbound/errors';

describe('OutboundError', () => {
  // In a log line or a stack it names itself, not a plain Error, and carries the code callers map.
  it('prints with its own name and keeps its code', () => {
    const error = new OutboundError('URL_NOT_ALLOWED', 'The URL names this machine.');
    expect(String(error)).toBe('OutboundError: The URL names this machine.');
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error).toBeInstanceOf(Error);
  });
});
