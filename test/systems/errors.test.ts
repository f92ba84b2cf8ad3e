import { describe, expect, it } from 'vitest';
import { SystemChangedError, SystemInputError, SystemStorageError } from '../../lib/systems/errors';

describe('system store errors', () => {
  // In a log line each names itself, so a 500's cause is told from a lost race or a bad input.
  it('print with their own names', () => {
    expect(String(new SystemStorageError('chunk 3 is missing'))).toBe(
      'SystemStorageError: chunk 3 is missing',
    );
    expect(String(new SystemChangedError('replaced meanwhile'))).toBe(
      'SystemChangedError: replaced meanwhile',
    );
    const input = new SystemInputError('limit', 'limit must be an integer from 1 to 100');
    expect(String(input)).toBe('SystemInputError: limit must be an integer from 1 to 100');
    expect(input.field).toBe('limit');
  });
});
