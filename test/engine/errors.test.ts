import { describe, expect, it } from 'vitest';
import { analyze, PayloadError, ResultTooLargeError } from '../../lib/engine';
import { EngineInvariantError } from '../../lib/engine/finite';

describe('engine errors', () => {
  // A dependency to a node that does not exist: the error says which element and why, in a
  // message that can go back to the caller as is, and names its own kind.
  it('a payload error names the element, the problem and itself', () => {
    let caught: unknown;
    try {
      analyze({ nodes: [{ id: 'A', load: 1 }], dependencies: [{ from: 'A', to: 'db' }] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PayloadError);
    const error = caught as PayloadError;
    expect(error.name).toBe('PayloadError');
    expect(error.path).toBe('dependencies[0].to');
    expect(error.message).toBe('dependencies[0].to: unknown node "db"');
    expect(String(error)).toBe('PayloadError: dependencies[0].to: unknown node "db"');
  });

  // A structure that is not an object is wrong as a whole: no path, the message alone.
  it('a payload error about the whole structure has no path', () => {
    expect(() => analyze(42 as never)).toThrow(
      expect.objectContaining({
        name: 'PayloadError',
        path: '',
        message: 'structure must be an object with "nodes" and "dependencies" arrays',
      }),
    );
  });

  it('the other two errors name their kind', () => {
    expect(new ResultTooLargeError('too long').name).toBe('ResultTooLargeError');
    expect(new EngineInvariantError('broken').name).toBe('EngineInvariantError');
  });
});
