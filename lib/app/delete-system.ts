/** Delete one of a user's systems. */
import type { SystemStore } from '../systems';
import { inContractTerms, systemNotFound } from './errors';

export type DeleteSystem = (owner: string, id: string) => Promise<void>;

export function createDeleteSystem(deps: { systems: Pick<SystemStore, 'delete'> }): DeleteSystem {
  return (owner, id) =>
    inContractTerms(async () => {
      if (!(await deps.systems.delete(owner, id))) throw systemNotFound();
    });
}
