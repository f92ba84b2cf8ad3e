/**
 * Refresh a registered system: fetch its URL again (the external credential is sent anew, since
 * it is never stored), read the answer in the system's format and with its read options (window,
 * sampling rate, labels), and replace the structure only when the new one is whole and valid.
 * Readers see the old structure or the new one, never a mix; a refresh that fails (502, 422)
 * leaves the system exactly as it was.
 */
import { parseRefreshRequest, structureFromUpstream } from '../api/connect-request';
import { ApiError } from '../api/errors';
import { settingsMisfit } from '../api/settings-fit';
import type { Limits } from '../config/limits';
import { FORMAT_NAMES, type FormatName } from '../formats';
import type { FetchJsonOptions } from '../outbound';
import {
  type CompiledStructureCache,
  type SystemSettings,
  type SystemStore,
  settingsETag,
  toPublicSystemRecord,
  unknownSettingsIds,
} from '../systems';
import { quoteKey } from '../text';
import type { ConnectedSystem } from './connect-system';
import { inContractTerms, systemNotFound } from './errors';
import { fetchDocument } from './fetch-document';
import { checkDeadline, checkTimeToStore, type FunctionTime } from './time-to-store';
import type { TaggedSystem } from './update-settings';

export interface RefreshSystemDeps {
  systems: Pick<SystemStore, 'getRecord' | 'replace'>;
  limits: Pick<Limits, 'maxNodes' | 'maxDependencies' | 'maxDecodedBodyBytes'>;
  outbound: Pick<FetchJsonOptions, 'allowHosts' | 'deadlineMs' | 'resolveHost' | 'trace'>;
  cache?: CompiledStructureCache;
}

/**
 * The refreshed system and the ETag of the settings it shows: those of the head as the refresh's
 * update left it, so a PATCH that landed after that update (while the old chunks were removed) is
 * not in this answer, and its ETag says so.
 */
export type RefreshSystem = (
  owner: string,
  id: string,
  body: unknown,
  /** Told each URL before it is checked and fetched: the stored one, then every redirect's (the request line). */
  fetching?: (url: string) => void,
  /** The function's time left (`time-to-store.ts`): nothing is replaced that it may not cover. */
  time?: FunctionTime,
) => Promise<TaggedSystem<ConnectedSystem>>;

export function createRefreshSystem(deps: RefreshSystemDeps): RefreshSystem {
  const { systems, limits, outbound, cache } = deps;
  return (owner, id, body, fetching, time) =>
    inContractTerms(async () => {
      const request = parseRefreshRequest(body);
      const record = await systems.getRecord(owner, id);
      if (record === undefined) throw systemNotFound();
      if (record.url === undefined) {
        throw new ApiError(
          'INVALID_REQUEST',
          'This system was registered from a document, so there is no URL to fetch again: send the new document with POST /api/systems.',
        );
      }
      const token = request.auth?.token;
      const answer = await fetchDocument(
        record.url,
        { outbound, limits },
        { token, fetching, time, stored: true },
      );
      // The format it was registered in (older records, read before formats: the first that fits).
      // A system read from an answer with no nodes at all is read as a new one: an empty answer
      // says little of its format (Jaeger's `{ data: [] }` is both its traces' and its links'
      // answer for a quiet window, read as links), and its next answer says what it is.
      const format =
        (FORMAT_NAMES as readonly string[]).includes(record.format ?? '') && record.nodes > 0
          ? (record.format as FormatName)
          : 'auto';
      // Read as registered: the same window, sampling rate and labels.
      const read = structureFromUpstream(answer, limits, format, undefined, record.readOptions);
      // Whether the kept settings still fit, found before the write: it may run the engine, and
      // the time after the write is the answer's. Settings a PATCH changed meanwhile are checked
      // again below, while the answer's time allows (a check stopped finds nothing).
      const misfitBefore =
        record.settings === undefined
          ? undefined
          : settingsMisfit(read.structure, record.settings, {
              compiledAlone: read.compiled,
              shouldStop: checkDeadline(time),
            });
      checkTimeToStore(time);
      const replaced = await systems.replace(owner, id, {
        structure: read.structure,
        format: read.format,
        unit: read.unit,
        // A refresh that finished while this one fetched, or a delete, wins: 409, nothing replaced.
        replacing: record.version ?? 1,
      });
      if (replaced === undefined) throw systemNotFound();
      cache?.set(replaced.sha256, read.compiled);
      const warnings = [...read.warnings];
      // Settings are kept whole; those whose node is gone are said, not dropped.
      const vanished =
        replaced.settings === undefined ? [] : unknownSettingsIds(read.structure, replaced.settings);
      if (vanished.length > 0) {
        warnings.push(
          `settings name ${vanished.length} node${vanished.length === 1 ? '' : 's'} no longer in the structure (kept): ${vanished
            .slice(0, 5)
            .map((id) => quoteKey(id))
            .join(', ')}${vanished.length > 5 ? ', …' : ''}`,
        );
      }
      // What one step stands for can change with the answer (times it now carries) or with how the
      // format reads the options kept (a window read since): the settings' times and rates are read
      // per step, so a change is said, never silent.
      if (record.unit !== undefined && record.unit !== read.unit) {
        warnings.push(
          `one step is now ${STEP_WORDS[read.unit] ?? read.unit} (it was ${STEP_WORDS[record.unit] ?? record.unit})${
            replaced.settings === undefined
              ? ''
              : ": the settings' times and rates (serviceTime, slo, arrival, capacity) are read per the new step; check them"
          }`,
        );
      }
      const misfit =
        replaced.settings === undefined
          ? undefined
          : sameSettings(replaced.settings, record.settings)
            ? misfitBefore
            : settingsMisfit(read.structure, replaced.settings, {
                compiledAlone: read.compiled,
                shouldStop: checkDeadline(time, { afterWrite: true }),
              });
      if (misfit !== undefined) {
        warnings.push(
          `settings no longer fit the structure (runs answer PAYLOAD_ERROR until they change): ${misfit}`,
        );
      }
      const shown = toPublicSystemRecord(replaced);
      return {
        system: warnings.length === 0 ? shown : { ...shown, warnings },
        etag: settingsETag(replaced),
      };
    });
}

/** What one step stands for, by `unit`. */
const STEP_WORDS: Readonly<Record<string, string>> = {
  second: 'one second',
  window: "the source's whole window",
  none: 'nothing (no traffic in the source)',
  'as-sent': 'what the document says it is',
};

/** Whether two settings say the same (their JSON, as the store keeps them). */
function sameSettings(a: SystemSettings | undefined, b: SystemSettings | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
