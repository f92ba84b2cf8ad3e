/**
 * Set a system's settings (`PATCH /api/systems/{id}` `{ settings }`): capacities and arrivals
 * that no source says, replacing the ones before, applied on every engine run from now on. Ids
 * must name nodes of the structure; the structure itself is left as it is.
 */
import { checkSettingsIds, parsePatchSystemRequest } from '../api/connect-request';
import {
  type PublicSystemRecord,
  type SystemStore,
  toPublicSystemRecord,
  unknownSettingsIds,
} from '../systems';
import { inContractTerms, systemNotFound } from './errors';

export type UpdateSettings = (owner: string, id: string, body: unknown) => Promise<PublicSystemRecord>;

export function createUpdateSettings(deps: {
  systems: Pick<SystemStore, 'get' | 'updateSettings'>;
}): UpdateSettings {
  const { systems } = deps;
  return (owner, id, body) =>
    inContractTerms(async () => {
      const { settings } = parsePatchSystemRequest(body);
      const stored = await systems.get(owner, id);
      if (stored === undefined) throw systemNotFound();
      checkSettingsIds(unknownSettingsIds(stored.structure, settings));
      // Empty settings are no settings: the record goes back to what the structure says.
      const none = settings.defaultCapacity === undefined && Object.keys(settings.nodes ?? {}).length === 0;
      const updated = await systems.updateSettings(owner, id, none ? undefined : settings);
      if (updated === undefined) throw systemNotFound();
      return toPublicSystemRecord(updated);
    });
}
