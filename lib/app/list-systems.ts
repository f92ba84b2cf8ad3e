/** One page of a user's registered systems, newest first. */
import { type PublicSystemRecord, type SystemStore, toPublicSystemRecord } from '../systems';
import { inContractTerms } from './errors';

export interface SystemPageAnswer {
  systems: PublicSystemRecord[];
  /** Present when there are more; pass it back as `cursor` for the next page. */
  cursor?: string;
}

export type ListSystems = (
  owner: string,
  options?: { limit?: number | string; cursor?: string },
) => Promise<SystemPageAnswer>;

export function createListSystems(deps: { systems: Pick<SystemStore, 'list'> }): ListSystems {
  return (owner, options = {}) =>
    inContractTerms(async () => {
      const page = await deps.systems.list(owner, options);
      const systems = page.systems.map(toPublicSystemRecord);
      return page.cursor === undefined ? { systems } : { systems, cursor: page.cursor };
    });
}
