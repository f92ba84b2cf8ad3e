/**
 * Each user route's body in words: what its schema refuses a body with, and what a body that is
 * not JSON at all is told to send instead (`expects` of the route's body options). A module of
 * its own, without the schemas: the connect function declares its routes with these at cold
 * start and loads the schemas (zod, the format readers) only at the first request that checks a
 * body (functions/connect/connect-function.ts).
 */
export const BODY_SHAPES = Object.freeze({
  connect: 'a JSON object { name, url, format?, window?, sampleRate?, labels?, settings?, dryRun?, auth? }',
  registerSystem: 'a JSON object { name, document, format?, window?, sampleRate?, labels?, settings?, url? }',
  patchSystem: 'a JSON object { settings }',
  refresh: 'a JSON object { auth? } ({} for none)',
  createKey: 'a JSON object { name }',
});
