/**
 * The cap on a graph or span document's objects and arrays, for the route that takes one in its
 * body (`POST /api/systems`) as connect reads one fetched: a module of its own, so the function's
 * eager code imports no more than this.
 */
export { documentContainerCap } from '../text/json-containers';
