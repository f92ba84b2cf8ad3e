/**
 * Set a system's settings (`PATCH /api/systems/{id}` `{ settings }`): capacities and arrivals
 * that no source says, replacing the ones before, applied on every engine run from now on. Ids
 * must name nodes of the structure; the structure itself is left as it is, and a refresh running
 * meanwhile leaves these settings as they are (each writes only its own attributes of the head).
 * Settings are written only onto the structure version they were checked against, so a refresh
 * that lands between the check and the write has them checked again against what it brought.
 * With `If-Match` (the ETag a GET gave), the write applies only while the settings are still
 * those; with `If-None-Match`, only while they are none of those it lists (`*`: never, as the
 * system's settings, none included, have a tag to match); without either, the last PATCH wins.
 */
import { checkSettingsIds, parsePatchSystemRequest } from '../api/connect-request';
import { compileRunnableWithSettings, settingsSayNothing } from '../api/settings-fit';
import {
  matchedSettingsRevision,
  type PublicSystemRecord,
  SettingsChangedError,
  SystemChangedError,
  type SystemStore,
  settingsETag,
  toPublicSystemRecord,
  unknownSettingsIds,
  unmatchedSettingsRevision,
} from '../systems';

/** Reads, checks and writes of the settings before a run of refreshes meeting them is a 409. */
const REFRESH_RACES = 3;

import {
  inContractTerms,
  settingsChanged,
  settingsKeptChanging,
  settingsUnchanged,
  systemNotFound,
} from './errors';
import { checkDeadline, checkTimeToStore, type FunctionTime } from './time-to-store';

/** A system as its owner sees it, and the ETag of its settings. */
export interface TaggedSystem<T = PublicSystemRecord> {
  system: T;
  etag: string;
}

/** A PATCH's conditions on the settings it replaces: its `If-Match` and `If-None-Match` headers. */
export interface SettingsPreconditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
}

export type UpdateSettings = (
  owner: string,
  id: string,
  body: unknown,
  preconditions?: SettingsPreconditions,
  /** The function's time left: a check that runs the engine gives up in time (`checkDeadline`). */
  time?: FunctionTime,
) => Promise<TaggedSystem>;

export function createUpdateSettings(deps: {
  systems: Pick<SystemStore, 'get' | 'updateSettings'>;
}): UpdateSettings {
  const { systems } = deps;
  return (owner, id, body, { ifMatch, ifNoneMatch } = {}, time) =>
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
        // If-None-Match (RFC 9110 §13.1.2): `*` or the current tag is a 412; otherwise the write
        // waits for the settings read, so one that a rival PATCH made a listed tag is not overwritten.
        const unmatched =
          ifNoneMatch === undefined ? 'any' : unmatchedSettingsRevision(ifNoneMatch, stored.record);
        if (unmatched === undefined) throw settingsUnchanged();
        // An entry a refresh left without its node is kept (refresh-system.ts), so a PATCH that
        // sends it back as it read it keeps it too. Changed, it could not be checked against the
        // node (a capacity that disagrees with its servers would fail every run once the node is
        // back), so a changed one, like a new one, must name a node of the structure.
        const keptNodes = stored.record.settings?.nodes ?? {};
        const unknownIds = unknownSettingsIds(stored.structure, settings);
        checkSettingsIds(unknownIds, (node) =>
          !Object.hasOwn(keptNodes, node)
            ? undefined
            : sameEntry(keptNodes[node]!, settings.nodes![node]!)
              ? 'as-read'
              : 'changed',
        );
        // Either header pins the write to the settings read (both name that revision), and so
        // does a kept entry sent back: taken because these settings hold it, it is written only
        // onto them (a rival PATCH that dropped it in between: read and ask again).
        const pinnedByIfNoneMatch = matched === 'any' && unmatched !== 'any';
        const pinnedByKept = matched === 'any' && !pinnedByIfNoneMatch && unknownIds.length > 0;
        // Either pin names the revision read (`unmatched` is it too).
        const revision =
          matched !== 'any'
            ? matched
            : pinnedByIfNoneMatch || pinnedByKept
              ? (stored.record.settingsRevision ?? 0)
              : undefined;
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
          // A rival PATCH between the read and a write that waited only for If-None-Match (or for
          // the kept entries it sends back): read again, and ask the header, or the entries, of
          // what it wrote.
          const rivalPatch = error instanceof SettingsChangedError && (pinnedByIfNoneMatch || pinnedByKept);
          // PATCHes that keep landing in between: a 412 that says so (not one about If-Match,
          // which this PATCH did not send).
          if (rivalPatch && attempt === REFRESH_RACES)
            throw settingsKeptChanging(pinnedByIfNoneMatch ? 'If-None-Match' : 'kept entries');
          // Refreshes that keep landing between the read and the write: 409, as for a refresh.
          if (!(error instanceof SystemChangedError || rivalPatch) || attempt === REFRESH_RACES) throw error;
        }
      }
    });
}

/** Whether two settings entries of a node set the same fields to the same numbers. */
function sameEntry(a: object, b: object): boolean {
  const fields = Object.keys(a) as Array<keyof typeof a>;
  return (
    fields.length === Object.keys(b).length &&
    fields.every((field) => Object.is(a[field], b[field as keyof typeof b]))
  );
}
