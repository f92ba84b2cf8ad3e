export { type ReadGraph, readGraph } from './registry';
/** @internal until connect reads JSON Lines (issue #34); the span format tests use it. */
export { parseJsonLines } from './spans/otlp';
export {
  FORMAT_NAMES,
  FormatError,
  type FormatName,
  type GraphFormat,
  type MappedGraph,
  type ReadOptions,
  type SeriesLabels,
  type StepUnit,
} from './types';
