/**
 * `withVary`: each step that makes an answer depend on a request header adds it, once.
 */
import { describe, expect, it } from 'vitest';
import { withVary } from '../../lib/http/vary';

describe('withVary', () => {
  // The encoding step and the CORS step each add theirs; the preflight's own Origin is not
  // repeated ("Origin, Origin"), whatever its case.
  it('adds a field once, keeping what is listed', () => {
    expect(withVary(undefined, 'Origin')).toBe('Origin');
    expect(withVary('Origin', 'Accept-Encoding')).toBe('Origin, Accept-Encoding');
    expect(withVary('Origin', 'Origin')).toBe('Origin');
    expect(withVary('accept-encoding, origin', 'Origin')).toBe('accept-encoding, origin');
    expect(withVary(' Accept-Encoding ,', 'Origin')).toBe('Accept-Encoding, Origin');
  });
});
