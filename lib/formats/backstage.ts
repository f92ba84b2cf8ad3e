/** Not written yet: detects nothing. */
import { FormatError, type GraphFormat } from './types';

export const backstage: GraphFormat = {
  name: 'backstage',
  detect: () => false,
  toStructure() {
    throw new FormatError('', 'not implemented yet');
  },
};
