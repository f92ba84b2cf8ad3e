/** Not written yet: detects nothing. */
import { FormatError, type GraphFormat } from './types';

export const xray: GraphFormat = {
  name: 'xray',
  detect: () => false,
  toStructure() {
    throw new FormatError('', 'not implemented yet');
  },
};
