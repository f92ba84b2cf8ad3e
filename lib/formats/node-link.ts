/** Not written yet: detects nothing. */
import { FormatError, type GraphFormat } from './types';

export const nodeLink: GraphFormat = {
  name: 'node-link',
  detect: () => false,
  toStructure() {
    throw new FormatError('', 'not implemented yet');
  },
};
