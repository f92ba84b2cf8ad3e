/** Not written yet: detects nothing. */
import { FormatError, type GraphFormat } from './types';

export const jgf: GraphFormat = {
  name: 'jgf',
  detect: () => false,
  toStructure() {
    throw new FormatError('', 'not implemented yet');
  },
};
