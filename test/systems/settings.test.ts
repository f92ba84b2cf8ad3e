import { describe, expect, it } from 'vitest';
import { settingsKey, unknownSettingsIds } from '../../lib/systems/settings';

describe('unknownSettingsIds', () => {
  // Settings that name nodes the structure does not hold, reported in the settings' order.
  it('lists the ids the structure lacks', () => {
    const structure = { nodes: [{ id: 'api' }, { id: 'db' }] };
    expect(unknownSettingsIds(structure, { nodes: { zeta: {}, db: {}, alpha: {} } })).toEqual([
      'zeta',
      'alpha',
    ]);
    expect(unknownSettingsIds(structure, { defaultCapacity: 5 })).toEqual([]);
  });
});

describe('settingsKey', () => {
  // No settings, no key; equal settings, equal key; any change, another 16-hex-digit key.
  it('fingerprints settings', () => {
    expect(settingsKey(undefined)).toBe('');
    const key = settingsKey({ defaultCapacity: 5 });
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(settingsKey({ defaultCapacity: 5 })).toBe(key);
    expect(settingsKey({ defaultCapacity: 6 })).not.toBe(key);
    expect(settingsKey({})).not.toBe('');
  });
});
