export { type CallGraph, callGraphStructure, type ObservedCall } from './call-graph';
export { FORMAT_NAMES, FORMATS, type ReadGraph, readGraph, shapeOf } from './registry';
export { FormatError, type FormatName, type GraphFormat, type MappedGraph, type StepUnit } from './types';
