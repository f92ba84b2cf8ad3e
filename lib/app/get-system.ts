/** One of a user's systems with its structure as registered. */
import {
  type PublicSystemRecord,
  type StoredStructure,
  type SystemStore,
  toPublicSystemRecord,
} from '../systems';
import { inContractTerms, systemNotFound } from './errors';

export type SystemWithStructure = PublicSystemRecord & { structure: StoredStructure };

export type GetSystem = (owner: string, id: string) => Promise<SystemWithStructure>;

export function createGetSystem(deps: { systems: Pick<SystemStore, 'get'> }): GetSystem {
  return (owner, id) =>
    inContractTerms(async () => {
      const found = await deps.systems.get(owner, id);
      if (found === undefined) throw systemNotFound();
      return { ...toPublicSystemRecord(found.record), structure: found.structure };
    });
}
