/**
 * The word every structure without traffic carries (unit `none`: a catalog, a diagram, a
 * containment tree). It maps to weight 1 and no arrival anywhere, and with nothing entering, the
 * engine's answer is 0 everywhere: no flow, no throughput, no blockage, no headroom. A reader is
 * told so once per document, first among its warnings, with what gives it traffic.
 */
export const NO_TRAFFIC_WARNING =
  'no traffic in the document: no node has an arrival, so every flow and throughput is 0 and there is nothing to analyze until arrivals are set (settings.nodes.<id>.arrival: what enters each entry point per step)';
