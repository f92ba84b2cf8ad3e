/** Not written yet: detects nothing. */
import { FormatError, type GraphFormat } from './types';

export const cytoscape: GraphFormat = {
  name: 'cytoscape',
  detect: () => false,
  toStructure() {
    throw new FormatError('', 'not implemented yet');
  },
};
