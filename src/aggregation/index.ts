export type * from './aggregator.js';
