/**
 * Register a system from a document sent in the request (`POST /api/systems`): for graphs the
 * service cannot fetch (internal telemetry, files). Read, checked and stored exactly as connect
 * does with a fetched answer, with the same answers and errors.
 */
import {
  checkSettingsIds,
  parseRegisterSystemRequest,
  readOptionsOf,
  structureFromUpstream,
} from '../api/connect-request';
import { compileRunnableWithSettings } from '../api/settings-fit';
import type { Limits } from '../config/limits';
import { type CompiledStructureCache, type SystemStore, unknownSettingsIds } from '../systems';
import type { ConnectedSystem } from './connect-system';
import { inContractTerms } from './errors';
import { checkDeadline, type FunctionTime, storeNewSystem } from './time-to-store';

export interface RegisterSystemDeps {
  systems: Pick<SystemStore, 'create' | 'delete'>;
  limits: Pick<Limits, 'maxNodes' | 'maxDependencies'>;
  /** The compiled stored systems of this process, as for connect. */
  cache?: CompiledStructureCache;
}

export type RegisterSystem = (
  owner: string,
  body: unknown,
  /** The function's time left (`time-to-store.ts`): nothing is stored that it may not cover. */
  time?: FunctionTime,
) => Promise<ConnectedSystem>;

export function createRegisterSystem(deps: RegisterSystemDeps): RegisterSystem {
  const { systems, limits, cache } = deps;
  return (owner, body, time) =>
    inContractTerms(async () => {
      const request = parseRegisterSystemRequest(body);
      const readOptions = readOptionsOf(request);
      const { structure, compiled, format, unit, warnings } = structureFromUpstream(
        request.document,
        limits,
        request.format ?? 'auto',
        'The document',
        readOptions,
      );
      const { settings } = request;
      if (settings !== undefined) {
        checkSettingsIds(unknownSettingsIds(structure, settings));
        compileRunnableWithSettings(structure, settings, {
          compiledAlone: compiled,
          shouldStop: checkDeadline(time),
        });
      }
      return storeNewSystem(
        { systems, cache },
        {
          owner,
          name: request.name,
          ...(request.url === undefined ? {} : { url: request.url }),
          structure,
          format,
          unit,
          ...(readOptions === undefined ? {} : { readOptions }),
          ...(settings === undefined ? {} : { settings }),
        },
        { compiled, warnings },
        time,
      );
    });
}
