import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { requiredEnv } from '../../lib/config/env';
import { readLimits } from '../../lib/config/limits';
import { dispatchByRouteKey } from '../../lib/http/dispatch';
import { DynamoApiKeyStore } from '../../lib/keys';
import { createLogger } from '../../lib/logging';
import { readConnectAllowHosts } from '../../lib/outbound';
import { DynamoSystemStore } from '../../lib/systems';
import { createUserTokenVerifier, readUserTokenConfig } from '../../lib/tokens';
import { createKeyHandlers } from './keys-handlers';
import { createSystemHandlers } from './systems-handlers';

// Built once per Lambda instance (cold start). Missing settings (TABLE_NAME, the user pool)
// throw here, so a misconfigured deploy fails at once, naming the variable.
const tableName = requiredEnv(process.env, 'TABLE_NAME');
const logger = createLogger();
const { doc } = createDynamoClients();
const verifyUserToken = createUserTokenVerifier(readUserTokenConfig());
const keyStore = new DynamoApiKeyStore({ doc, tableName });

const systemStore = new DynamoSystemStore({ doc, tableName });

const dispatch = dispatchByRouteKey(
  'connect',
  {
    ...createKeyHandlers({ verifyUserToken, logger, keyStore }),
    ...createSystemHandlers({
      verifyUserToken,
      logger,
      systemStore,
      limits: readLimits(),
      allowHosts: readConnectAllowHosts(process.env),
    }),
  },
  { logger },
);

/** Every route that takes a user access token, dispatched on the event's route key. */
export async function handler(event: APIGatewayProxyEventV2, context: Context) {
  return dispatch(event, context);
}
