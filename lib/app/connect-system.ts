/**
 * Register a system: fetch the external API's document (SSRF-safe, `lib/outbound`), read the
 * structure in it by the engine's own rules and store it for its owner. The external token is
 * used for that one fetch and kept nowhere.
 */
import { parseConnectRequest, structureFromUpstream } from '../api/connect-request';
import type { Limits } from '../config/limits';
import { type FetchJsonOptions, fetchJson } from '../outbound';
import {
  type CompiledStructureCache,
  type PublicSystemRecord,
  type SystemStore,
  toPublicSystemRecord,
} from '../systems';
import { inContractTerms } from './errors';

export interface ConnectSystemDeps {
  systems: Pick<SystemStore, 'create'>;
  limits: Pick<Limits, 'maxNodes' | 'maxDependencies'>;
  /** The deployment's outbound settings: hosts exempt from the address rules, the deadline. */
  outbound: Pick<FetchJsonOptions, 'allowHosts' | 'deadlineMs' | 'resolveHost'>;
  /**
   * The compiled stored systems of this process: a registration keeps the structure it has
   * just compiled, so a run on the new system in the same process starts from it.
   */
  cache?: CompiledStructureCache;
}

/** The registered system as its owner sees it, and what the mapping had to say (when anything). */
export type ConnectedSystem = PublicSystemRecord & { warnings?: string[] };

export type ConnectSystem = (owner: string, body: unknown) => Promise<ConnectedSystem>;

export function createConnectSystem(deps: ConnectSystemDeps): ConnectSystem {
  const { systems, limits, outbound, cache } = deps;
  return (owner, body) =>
    inContractTerms(async () => {
      const request = parseConnectRequest(body);
      const token = request.auth?.token;
      const fetched = await fetchJson(request.url, {
        ...outbound,
        ...(token === undefined ? {} : { token }),
      });
      const { structure, compiled, format, unit, warnings } = structureFromUpstream(
        fetched.body,
        limits,
        request.format ?? 'auto',
      );
      const record = await systems.create({
        owner,
        name: request.name,
        url: request.url,
        structure,
        format,
        unit,
      });
      cache?.set(record.sha256, compiled);
      const shown = toPublicSystemRecord(record);
      return warnings.length === 0 ? shown : { ...shown, warnings };
    });
}
