export { FORMAT_NAMES, type ReadGraph, readGraph } from './registry';
export { FormatError, type FormatName, type GraphFormat, type MappedGraph, type StepUnit } from './types';
