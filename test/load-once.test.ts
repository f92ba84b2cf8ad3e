import { describe, expect, it } from 'vitest';
import { loadOnce } from '../lib/load-once';

describe('loadOnce (a part of a function loaded at its first request)', () => {
  it('loads once, and every call gets what that load gave', async () => {
    let loads = 0;
    const load = loadOnce(async () => ({ part: ++loads }));
    const [first, second] = await Promise.all([load(), load()]);
    expect(first).toBe(second);
    expect(await load()).toBe(first);
    expect(loads).toBe(1);
  });

  // A passing fault must not fail every later request of the instance.
  it('tries again after a load that failed', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads++;
      if (loads === 1) throw new Error('the first load fails');
      return 'loaded';
    });
    await expect(load()).rejects.toThrow('the first load fails');
    await expect(load()).resolves.toBe('loaded');
    await expect(load()).resolves.toBe('loaded');
    expect(loads).toBe(2);
  });
});
