/** One of a user's systems with its structure as registered, and the ETag of its settings. */
import {
  type PublicSystemRecord,
  type StoredStructure,
  type SystemStore,
  settingsETag,
  toPublicSystemRecord,
} from '../systems';
import { inContractTerms, systemNotFound } from './errors';
import type { TaggedSystem } from './update-settings';

/** What the route's 413 advises for a system too large to return: it is returned whole. */
export { WHOLE_SYSTEM_ADVICE } from '../api/response-size';

export type SystemWithStructure = PublicSystemRecord & { structure: StoredStructure };

export type GetSystem = (owner: string, id: string) => Promise<TaggedSystem<SystemWithStructure>>;

export function createGetSystem(deps: { systems: Pick<SystemStore, 'get'> }): GetSystem {
  return (owner, id) =>
    inContractTerms(async () => {
      const found = await deps.systems.get(owner, id);
      if (found === undefined) throw systemNotFound();
      return {
        system: { ...toPublicSystemRecord(found.record), structure: found.structure },
        etag: settingsETag(found.record),
      };
    });
}
