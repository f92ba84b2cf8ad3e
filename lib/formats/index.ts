export { detectedFormats, type ReadGraph, readGraph } from './registry';
export { parseJsonLines } from './spans/otlp';
export {
  FORMAT_NAMES,
  FormatError,
  type FormatName,
  type GraphFormat,
  type MappedGraph,
  ReadOptionError,
  type ReadOptions,
  type SeriesLabels,
  type StepUnit,
} from './types';
