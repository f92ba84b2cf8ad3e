/**
 * Set a system's settings (`PATCH /api/systems/{id}` `{ settings }`): capacities and arrivals
 * that no source says, replacing the ones before, applied on every engine run from now on. Ids
 * must name nodes of the structure; the structure itself is left as it is, and a refresh running
 * meanwhile leaves these settings as they are (each writes only its own attributes of the head).
 * Settings are written only onto the structure version they were checked against, so a refresh
 * that lands between the check and the write has them checked again against what it brought.
 * With `If-Match` (the ETag a GET gave), the write applies only while the settings are still
 * those; without it, the last PATCH wins.
 */
import { checkSettingsIds, parsePatchSystemRequest } from '../api/connect-request';
import { compileRunnableWithSettings, settingsSayNothing } from '../api/settings-fit';
import {
  matchedSettingsRevision,
  type PublicSystemRecord,
  SystemChangedError,
  type SystemStore,
  settingsETag,
  toPublicSystemRecord,
  unknownSettingsIds,
} from '../systems';

/** Reads, checks and writes of the settings before a run of refreshes meeting them is a 409. */
const REFRESH_RACES = 3;

import { inContractTerms, settingsChanged, systemNotFound } from './errors';
import { checkDeadline, checkTimeToStore, type FunctionTime } from './time-to-store';

/** A system as its owner sees it, and the ETag of its settings. */
export interface TaggedSystem<T = PublicSystemRecord> {
  system: T;
  etag: string;
}

export type UpdateSettings = (
  owner: string,
  id: string,
  body: unknown,
  ifMatch?: string,
  /** The function's time left: a check that runs the engine gives up in time (`checkDeadline`). */
  time?: FunctionTime,
) => Promise<TaggedSystem>;

export function createUpdateSettings(deps: {
  systems: Pick<SystemStore, 'get' | 'updateSettings'>;
}): UpdateSettings {
  const { systems } = deps;
  return (owner, id, body, ifMatch, time) =>
    inContractTerms(async () => {
      const { settings } = parsePatchSystemRequest(body);
      // Empty settings are no settings: the record goes back to what the structure says.
      const none = settingsSayNothing(settings);
      // The settings are written only onto the structure they were checked against: a refresh
      // landing in between fails the write, and they are checked again against what it brought.
      for (let attempt = 1; ; attempt++) {
        const stored = await systems.get(owner, id);
        if (stored === undefined) throw systemNotFound();
        const matched = ifMatch === undefined ? 'any' : matchedSettingsRevision(ifMatch, stored.record);
        if (matched === undefined) throw settingsChanged();
        const revision = matched === 'any' ? undefined : matched;
        checkSettingsIds(unknownSettingsIds(stored.structure, settings));
        compileRunnableWithSettings(stored.structure, settings, { shouldStop: checkDeadline(time) });
        // The check may have used the function's time: nothing is written that it may not cover.
        checkTimeToStore(time);
        try {
          const updated = await systems.updateSettings(owner, id, none ? undefined : settings, {
            ...(revision === undefined ? {} : { revision }),
            structureVersion: stored.record.version ?? 1,
          });
          if (updated === undefined) throw systemNotFound();
          return { system: toPublicSystemRecord(updated), etag: settingsETag(updated) };
        } catch (error) {
          // Refreshes that keep landing between the read and the write: 409, as for a refresh.
          if (!(error instanceof SystemChangedError) || attempt === REFRESH_RACES) throw error;
        }
      }
    });
}
