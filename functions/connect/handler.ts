import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { traceAwsClient, traceOutbound } from '../../lib/aws/tracing';
import { requiredEnv } from '../../lib/config/env';
import { readLimits } from '../../lib/config/limits';
import { readQuotas } from '../../lib/config/quotas';
import { createLogger } from '../../lib/logging';
// The settings' own modules: the outbound index would bring the fetch itself into the cold start.
import { readConnectAllowHosts } from '../../lib/outbound/allow-hosts';
import { readConnectDeadlineMs } from '../../lib/outbound/deadline';
import { createOwnerStores } from '../../lib/owners/stores';
import { isStoreUnavailable } from '../../lib/storage/faults';
import { processSystemCache } from '../../lib/systems';
import { createUserTokenVerifier, readUserTokenConfig } from '../../lib/tokens';
import { createConnectFunction } from './connect-function';

// Built once per Lambda instance (cold start). Missing settings (TABLE_NAME, the user pool)
// throw here, so a misconfigured deploy fails at once, naming the variable.
const tableName = requiredEnv(process.env, 'TABLE_NAME');
const { client, doc } = createDynamoClients();
traceAwsClient(client);
// Systems and keys, counted against each owner's quotas (MAX_SYSTEMS_PER_OWNER, …).
const { keys, systems } = createOwnerStores({ doc, tableName, quotas: readQuotas() });

const serve = createConnectFunction({
  logger: createLogger(),
  isUnavailable: isStoreUnavailable,
  verifyUserToken: createUserTokenVerifier(readUserTokenConfig()),
  keys,
  systems,
  limits: readLimits(),
  outbound: {
    allowHosts: readConnectAllowHosts(process.env),
    deadlineMs: readConnectDeadlineMs(process.env),
    trace: traceOutbound,
  },
  systemCache: processSystemCache(),
});

/** Every route that takes a user access token, dispatched on the event's route key. */
export async function handler(event: APIGatewayProxyEventV2, context: Context) {
  return serve(event, context);
}
