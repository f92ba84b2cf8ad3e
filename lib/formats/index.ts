export { FORMAT_NAMES, type ReadGraph, readGraph } from './registry';
/** @internal until connect reads JSON Lines (issue #34); the span format tests use it. */
export { parseJsonLines } from './spans/otlp';
export {
  FormatError,
  type FormatName,
  type GraphFormat,
  type MappedGraph,
  type ReadOptions,
  type StepUnit,
} from './types';
