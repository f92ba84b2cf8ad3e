/**
 * Stands in for `@aws-sdk/credential-provider-node` inside the Lambda bundles, through an
 * esbuild alias (`functionBundling` in infra/functions.ts); nothing imports it directly.
 *
 * Lambda gives every function its role's credentials in environment variables
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), which is the first thing the
 * SDK's default chain reads. The rest of that chain (SSO, shared files, web identity, instance
 * and container metadata, login) is about 90 KB of minified code that every cold start would
 * load and no invocation would use. Off Lambda (tests, the local server, the CLIs) nothing is
 * aliased and the full chain applies.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** What the SDK's clients call as their credential default provider. */
export const defaultProvider = fromEnv;
