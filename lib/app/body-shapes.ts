/**
 * Each user route's body in words (lib/api/body-shapes.ts), for the function that declares the
 * routes (functions take the contract through lib/app): without the schemas that check the
 * bodies, which the connect function loads at the first request that needs them.
 */
export { BODY_SHAPES } from '../api/body-shapes';
