/**
 * The connect function's routes that read a graph: connect (fetch an external API's answer and
 * read it), register (read a document sent in the body), refresh (fetch again) and settings
 * (checked against the structure). Together they need the format readers, the engine's compiler,
 * the request schemas (zod), the outbound fetch with its DNS guard and `ipaddr.js`: most of the
 * function's code, and none of it used by the routes that list, read or delete systems and
 * keys. So connect-function.ts loads this module with `import()` at the first request of one of
 * these routes, and the bundle keeps it in chunks of its own that a cold start does not load
 * (docs/deploy.md, "Bundles and cold start").
 */
import { type ConnectSystemDeps, createConnectSystem } from '../../lib/app/connect-system';
import { createRefreshSystem } from '../../lib/app/refresh-system';
import { createRegisterSystem } from '../../lib/app/register-system';
import { createUpdateSettings } from '../../lib/app/update-settings';
import type { SystemStore } from '../../lib/systems';

export interface GraphRoutesDeps extends Omit<ConnectSystemDeps, 'systems'> {
  systems: SystemStore;
}

/** The use cases of the graph-reading routes, built on the function's stores and settings. */
export function createGraphRoutes(deps: GraphRoutesDeps) {
  const { systems, limits, outbound, cache } = deps;
  const cached = cache ? { cache } : {};
  return {
    connectSystem: createConnectSystem({ systems, limits, outbound, ...cached }),
    registerSystem: createRegisterSystem({ systems, limits, ...cached }),
    refreshSystem: createRefreshSystem({ systems, limits, outbound, ...cached }),
    updateSettings: createUpdateSettings({ systems }),
  };
}
