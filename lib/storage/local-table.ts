/**
 * Where the local server's table is when the environment does not say: plain constants in a
 * module of their own, so the CLIs that print them in their usage load no AWS SDK to do it.
 */

/** The table the local server and the keys CLI use when `TABLE_NAME` is not set. */
export const LOCAL_TABLE_NAME = 'sbe-local';

/** The embedded DynamoDB's port when `DYNAMO_PORT` is not set (the local server and the keys CLI). */
export const LOCAL_DYNAMO_PORT = 8000;
