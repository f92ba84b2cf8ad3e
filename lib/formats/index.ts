export { FORMAT_NAMES, type ReadGraph, readGraph } from './registry';
export { parseJsonLines } from './spans/otlp';
export {
  FormatError,
  type FormatName,
  type GraphFormat,
  type MappedGraph,
  type ReadOptions,
  type StepUnit,
} from './types';
